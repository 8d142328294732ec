#!/bin/sh
# was t-31-cm-stress
# klpc-cm-patch changes a callee's return convention and its caller.  While
# readers hammer the pair and other processes fork and exit, the patch is
# enabled, disabled and reversed mid-transition 102 times: no task may ever
# run an old caller into a new callee or the reverse.
# klpc-timeout: 900
# klpc-weight: 1500
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

CYCLES=102
# the load lasts until the end of the test, however slow the kernel (under
# the debug kernel the cycles outlasted a 600 s load, and a reader that
# had simply finished read as one that saw a mismatch)
SECONDS_LOAD=36000

try_write() {
	write_sysfs "$1" "$d/enabled" 2>/dev/null || true
}

klpc_core_load
load klpc-cm-target
load klpc-cm-patch
d=$(patch_dir klpc_cm_patch)
wait_transition klpc_cm_patch

pids=
for _ in 1 2 3; do
	"$KLPC_HAMMER" read /proc/klpc_cm "$SECONDS_LOAD" &
	pids="$pids $!"
done
"$KLPC_HAMMER" forks "$SECONDS_LOAD" &
forker=$!
# shellcheck disable=SC2086 # lists of pids
trap 'kill $pids $forker 2>/dev/null || true' EXIT

start=$(ms_now)
i=0
while [ $i -lt $CYCLES ]; do
	case $((i % 3)) in
	0)	# disable, then enable, each to completion
		try_write 0
		wait_transition klpc_cm_patch 30
		try_write 1
		;;
	1)	# disable and reverse it at once
		try_write 0
		try_write 1
		;;
	2)	# reverse twice
		try_write 0
		try_write 1
		try_write 0
		wait_transition klpc_cm_patch 30
		try_write 1
		;;
	esac
	wait_transition klpc_cm_patch 30
	assert_file_eq "$d/enabled" 1
	i=$((i + 1))
	[ $((i % 20)) -ne 0 ] || info "$i cycles at $(ms_now) ms: $(cat /proc/klpc_cm)"
done

kill "$forker" 2>/dev/null || true
for pid in $pids; do
	if ! kill -0 "$pid" 2>/dev/null; then
		rc=0
		wait "$pid" || rc=$?
		die "a reader exited early (status $rc; 1: it saw a mismatch)"
	fi
	kill "$pid"
done
wait 2>/dev/null || true

line=$(cat /proc/klpc_cm)
info "after $CYCLES cycles: $line"
figure "stress: $CYCLES enable/disable/reverse cycles in $(($(ms_now) - start)) ms"
case $line in
*" mismatches=0") ;;
*) die "mismatches: $line" ;;
esac
calls=${line#calls=}
calls=${calls%% *}
[ "$calls" -gt 100000 ] || die "too few calls to mean anything: $calls"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks at the end"

disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
