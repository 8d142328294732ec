#!/bin/sh
# was t-85-4-fault-tasks
# Fault sweep (lib-fault.sh): the start of a patching transition with
# 1,000 more tasks, threads sleeping in nanosleep(). Every allocation the
# enabling write and the transition's first round make fails in turn: the
# write fails with ENOMEM and the patch stays disabled, or the transition
# completes (a failed round is retried) with the patch working.
# klpc-timeout: 900
# klpc-weight: 220
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

fault_proc_a_load
disable_patch klpc_test_proc_a

"$KLPC_TASKS" threads 1000 3600 &
THREADS=$!
FAULT_PIDS=$THREADS
nr_threads() {
	[ "$(awk '/^Threads:/ { print $2 }' "/proc/$THREADS/status")" -ge 1001 ]
}
wait_until 60 nr_threads || die "klpc-tasks did not start its 1,000 threads"

fault_op() {
	write_sysfs 1 "$FAULT_PATCH/enabled"
}

fault_check_done() {
	fault_proc_a_is 1
	disable_patch klpc_test_proc_a
	fault_check_before
}

fault_check_before() {
	fault_proc_a_is 0
}

fault_sweep "start-1000-tasks" klpc_set_enabled
kill "$THREADS"
wait "$THREADS" || true
FAULT_PIDS=
unload klpc-test-proc-a
