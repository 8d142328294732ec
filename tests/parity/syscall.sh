#!/bin/sh
# was t-47-lp-syscall
# Upstream test-syscall.sh (after 6.1): patch getpid() while processes
# call it in loops; the patch records which of them reach the new version.
# The transition must complete, and then every process must have been seen
# by the new getpid() (all moved), which returns the right pid throughout;
# the transition back completes under the same load.
# klpc-timeout: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

p=klpc_test_lp_syscall
pending=/sys/module/$p/parameters/pending
nr=$(($(nproc) * 8))
hammers=
list=

stop_hammers() {
	for _pid in $hammers; do
		kill "$_pid" 2>/dev/null || true
	done
}

# hammers_alive: a hammer that saw a wrong pid has exited with an error.
hammers_alive() {
	for _pid in $hammers; do
		kill -0 "$_pid" 2>/dev/null || die "getpid() hammer $_pid exited early"
	done
}

# wait_pending_zero SECONDS
wait_pending_zero() {
	_i=0
	while [ "$(cat "$pending")" != 0 ]; do
		_i=$((_i + 1))
		[ $_i -le $(($1 * 10)) ] ||
			die "$(cat "$pending") of $nr processes never reached the new getpid() in $1 s"
		sleep 0.1
	done
}

# log_ms TEXT: kernel log time, in ms, of the last line since the mark
# that contains TEXT (the shell is starved by the loops; the kernel's
# timestamps time the transitions themselves)
log_ms() {
	dmesg_since_mark | awk -v t="$1" 'index($0, t) { s = $0 }
		END { sub(/^\[ */, "", s); sub(/\].*/, "", s); printf "%d\n", s * 1000 }'
}

klpc_core_load
trap stop_hammers EXIT
for _ in $(seq "$nr"); do
	"$KLPC_HAMMER" getpid 600 &
	hammers="$hammers $!"
	list="$list${list:+,}$!"
done
sleep 1
hammers_alive

dmesg_mark
start=$(ms_now)
load klpc-test-lp-syscall "pids=$list"
wait_transition $p 120
moved=$(ms_now)
wait_pending_zero 30
seen=$(ms_now)
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after completion"
hammers_alive

disable_patch $p 120
unpatched=$(ms_now)
hammers_alive
unload klpc-test-lp-syscall
stop_hammers
wait 2>/dev/null || true
unload klpc

enabling=$(log_ms "enabling patch '$p'")
patching=$(log_ms "'$p': starting patching transition")
patched=$(log_ms "'$p': patching complete")
unpatching=$(log_ms "'$p': starting unpatching transition")
unpatched_k=$(log_ms "'$p': unpatching complete")
figure "syscall: $nr getpid() loops; kernel log: enabling to patching start" \
	"$((patching - enabling)) ms, patching $((patched - patching)) ms," \
	"unpatching $((unpatched_k - unpatching)) ms"
figure "syscall: as the starved test shell sees it: insmod to transition 0" \
	"$((moved - start)) ms, all $nr seen $((seen - start)) ms," \
	"disable to transition 0 $((unpatched - seen)) ms"
