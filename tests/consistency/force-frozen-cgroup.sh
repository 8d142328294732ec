#!/bin/sh
# was t-91-freezer-force
# A frozen cgroup and force: a task sleeping killably in a patched
# function keeps its cgroup "freezing" and the transition waiting, named
# in /proc/klpc/tasks; 'force' completes the transition while the cgroup
# stays frozen for the rest of its tasks; the task freezes once released.
# Force pins klpc_cm_patch for good: this runs in the tail, after
# consistency/force.
# klpc-timeout: 180
# klpc-group: tail
# klpc-order: 93 (the tail that leaves state for good, in this order)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-freezer.sh
. "${0%/*}/../lib-freezer.sh"

klpc_core_load
is_loaded klpc_cm_target || load klpc-cm-target
d=$(patch_dir klpc_cm_patch)
if ! is_loaded klpc_cm_patch; then
	load klpc-cm-patch
	wait_transition klpc_cm_patch
elif [ "$(cat "$d/enabled")" = 0 ]; then
	enable_patch klpc_cm_patch
fi
cg_setup
write_sysfs 0 "$KLPC_SIGNAL_SECS"

sleep 1000 &
idle=$!
start_sleeper k
sleeper=$SLEEPER
cg_add $idle "$sleeper"
cg_freeze 1
expect_write_ok "$d/enabled" 0
sleep 2
assert_file_eq "$d/transition" 1
! cg_frozen || die "the cgroup froze with a task sleeping killably"
assert_frozen_stack $idle
tasks_blocking | grep -Eq "^$sleeper cat patched klpc_cm_sleeper$" ||
	die "the sleeper in the freezing cgroup is not named: $(tasks_blocking)"

dmesg_mark
expect_write_ok "$d/force" 1
assert_file_eq "$d/transition" 0
assert_file_eq "$d/enabled" 0
assert_file_eq "$d/forced" 1
assert_dmesg_has "'klpc_cm_patch': forcing 1 tasks to the unpatched state"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after force"
assert_frozen_stack $idle
sleeping_in klpc_cm_wait "$sleeper" || die "the force woke the sleeper"

write_sysfs 1 /proc/klpc_cm_sleep
wait_until 20 cg_frozen || die "the released sleeper did not freeze"
cg_freeze 0
wait "$sleeper"
assert_eq "slept v2" "$(cat "$KLPC_TMP/sleeper.out")" "the sleeper finished the old (v2) read"
kill $idle
wait $idle 2>/dev/null || true
