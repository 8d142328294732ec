#!/bin/sh
# was t-37-uring-worker
# io_uring workers (io-wq threads, created by create_io_thread() without
# the fork tracepoint) are tasks like any other: one created during a
# transition starts in its creator's state, and once it sleeps inside a
# new function it blocks a reversal until it leaves it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

# find_worker PID: an io-wq thread of process PID sleeping in
# klpc_cm_sleeper (either version); its tid in WORKER.
find_worker() {
	for _t in /proc/"$1"/task/*; do
		case $(cat "$_t/comm" 2>/dev/null) in
		iou-wrk-*) ;;
		*) continue ;;
		esac
		grep -q klpc_cm_sleeper "$_t/stack" 2>/dev/null || continue
		WORKER=${_t##*/}
		return 0
	done
	return 1
}

klpc_core_load
load_cm_patch_blocked
sleeper=$SLEEPER
d=$(patch_dir klpc_cm_patch)
assert_eq 1 "$(klpc_stat pending)" "pending: only the sleeper"

# The test shell moved to the patched state; so does the reader it forks,
# and an io worker that reader creates must too.
"$KLPC_TASKS" uring-read /proc/klpc_cm_sleep 1 >"$KLPC_TMP/uring.out" &
reader=$!
wait_until 10 find_worker "$reader" ||
	die "no io worker of $reader sleeps in klpc_cm_sleeper: $(cat /proc/"$reader"/task/*/comm 2>&1 | tr '\n' ' ')"
worker=$WORKER
comm=$(cat "/proc/$reader/task/$worker/comm")
stack=$(cat "/proc/$reader/task/$worker/stack")
info "io worker $worker ($comm) sleeps in: $(echo "$stack" | grep klpc_cm_sleeper)"
echo "$stack" | grep -q 'klpc_cm_sleeper_v2' ||
	die "io worker $worker, created by a patched task, runs the old klpc_cm_sleeper: $(echo "$stack" | grep klpc_cm_sleeper)"
if tasks_blocking | grep -q "^$worker "; then
	die "io worker $worker listed as still to move while patching: $(blocking_summary)"
fi
assert_eq 1 "$(klpc_stat pending)" "pending with the io worker: only the sleeper"

# reverse: the worker sleeps inside klpc_cm_sleeper_v2, so it cannot move
# back, and the reversal must wait for it
dmesg_mark
expect_write_ok "$d/enabled" 0
assert_dmesg_has "'klpc_cm_patch': reversing transition from patching"
sleep 3
[ "$(cat "$d/transition")" = 1 ] ||
	die "the reversal completed while io worker $worker ($comm) sleeps in the new klpc_cm_sleeper: $(echo "$stack" | grep klpc_cm_sleeper | head -n 1)"
tasks_blocking | grep -Eq "^$worker $comm patched klpc_cm_sleeper$" ||
	die "io worker $worker not listed as blocking the reversal: $(blocking_summary)"
assert_eq 1 "$(klpc_stat pending)" "pending during the reversal: only the io worker"

# release both sleepers: each ran the version of its own state
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "the unpatched sleeper"
wait "$reader" || die "klpc-tasks uring-read failed"
assert_eq "slept v2" "$(cat "$KLPC_TMP/uring.out")" "the io worker (patched state)"
wait_transition_within klpc_cm_patch 10
assert_file_eq "$d/enabled" 0
assert_eq 0 "$(klpc_stat entries)" "entries after the reversal"
assert_eq 0 "$(cm_mismatches)" "mismatches"

unload klpc-cm-patch
unload klpc-cm-target
unload klpc
