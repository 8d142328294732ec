#!/bin/sh
# was t-36-exec-thread
# exec() from a thread that is not the group leader, during a blocked
# transition: de_thread() swaps the pids of the exec'ing thread and the old
# leader.  The task table must not lose track of either: their entries go
# when they are freed, nothing stays pending, and a reversal afterwards
# neither counts nor touches the dead tasks and completes.
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load_cm_patch_blocked
sleeper=$SLEEPER
d=$(patch_dir klpc_cm_patch)
assert_eq 1 "$(klpc_stat pending)" "pending before the execs: only the sleeper"
entries=$(klpc_stat entries)
info "entries before: $entries"

# 50 processes whose second thread execs while the leader sleeps
"$KLPC_TASKS" execthr 50 || die "klpc-tasks execthr 50 failed"
sleep 1
after=$(klpc_stat entries)
pending=$(klpc_stat pending)
info "entries after 50 execs from threads: $after, pending $pending"
# Report both findings, then go on: the reversal below is the real test
# of what stale entries do.
errors=
[ "$after" -le $((entries + 16)) ] ||
	errors="entries of exec'd tasks stay: $entries before, $after after 50 execs"
[ "$pending" = 1 ] ||
	errors="${errors:+$errors; }pending after the execs: expected 1, got $pending"
tasks_blocking | grep -q "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	errors="${errors:+$errors; }sleeper not listed: $(blocking_summary)"
[ -z "$errors" ] || info "FAIL (continuing): $errors"

# reverse: every task that moved must move back, and only live tasks
dmesg_mark
expect_write_ok "$d/enabled" 0
(wait_transition_within klpc_cm_patch 20) ||
	die "${errors:+$errors; }the reversal did not complete in 20 s; /proc/klpc/tasks: $(blocking_summary); stats: $(tr '\n' ' ' </proc/klpc/stats)"
[ -z "$errors" ] || die "$errors"
assert_file_eq "$d/enabled" 0
assert_dmesg_has "'klpc_cm_patch': reversing transition from patching"
assert_eq 0 "$(klpc_stat entries)" "entries after the reversal"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after the reversal"

# enable again: blocked by the sleeper until it wakes, then complete
expect_write_ok "$d/enabled" 1
sleep 1
assert_file_eq "$d/transition" 1
"$KLPC_TASKS" execthr 20 || die "klpc-tasks execthr 20 failed"
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "the sleeper ran the old version"
wait_transition_within klpc_cm_patch 20
assert_file_eq "$d/enabled" 1
assert_eq 0 "$(klpc_stat entries)" "entries after completion"
assert_eq 0 "$(cm_mismatches)" "mismatches"

expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 0
wait_transition_within klpc_cm_patch 20
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
