#!/bin/sh
# was t-61-shadow-concurrent
# Shadow variables from 4 kernel threads, a timer (softirq) and a hard-irq
# hrtimer at once, on shared and per-thread parents: the test module
# reports no duplicate variable, no wrong data handed out, nothing lost,
# and calls from every context; the load fails otherwise.  Run with a
# CPU-bound task per CPU too, so that threads are preempted mid-call.
# klpc-timeout: 150
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-shadow.sh
. "${0%/*}/../lib-shadow.sh"

SECS=8

# run_stress: load the module, print its result line.
run_stress() {
	dmesg_mark
	if ! _out=$(try_load klpc-test-shadow-stress threads=4 secs=$SECS 2>&1); then
		module_log klpc-test-shadow-stress >&2
		die "the stress module failed: $_out"
	fi
	module_log klpc-test-shadow-stress | grep '^result: ' ||
		die "no result line from the stress module"
}

klpc_core_load
pids=
for _ in $(seq "$(nproc)"); do
	"$KLPC_HAMMER" spin $((SECS + 5)) &
	pids="$pids $!"
done
result=$(run_stress)
for pid in $pids; do
	kill "$pid" 2>/dev/null || true
done
wait 2>/dev/null || true
info "$result"

for field in dup bad lost idle; do
	assert_eq 0 "$(result_field "$result" $field)" "$field"
done
for field in thread_ops timer_ops hardirq_ops ctors; do
	[ "$(result_field "$result" $field)" -gt 0 ] || die "$field is 0: $result"
done
assert_eq "$(result_field "$result" ctors)" "$(result_field "$result" dtors)" \
	"destructor calls against constructor calls"
assert_eq "" "$(klpc_shadow_lines)" "klpc's shadow variable messages"
unload klpc-test-shadow-stress
unload klpc
assert_eq "" "$(klpc_shadow_lines)" "klpc's messages at unload"
figure "shadow stress ${SECS} s: $(echo "${result#result: }" | cut -d' ' -f3-7)"
