#!/bin/sh
# was t-3c-freezer
# A frozen cgroup (cgroup v2 freezer) and transitions. The freezer stops
# a task in get_signal(), on its way back to user space, above no
# function of its system call: so frozen tasks never hold a transition,
# klpc moves them while they stay frozen, and once thawed they run the
# new code (no caller/callee mismatch). A task sleeping interruptibly in
# a patched function leaves it when its cgroup freezes (its read restarts
# after the thaw, in the new version). A task sleeping killably there
# cannot be frozen: the cgroup stays "freezing", the transition waits and
# names it, and a reverse completes. (Force: consistency/force-frozen-cgroup.)
# klpc-timeout: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-freezer.sh
. "${0%/*}/../lib-freezer.sh"

klpc_core_load
load klpc-cm-target
cg_setup
write_sysfs 0 "$KLPC_SIGNAL_SECS"
d=$(patch_dir klpc_cm_patch)

# 1. frozen readers of the patched pair: the transitions do not wait
"$KLPC_HAMMER" read /proc/klpc_cm 600 &
reader=$!
sleep 1000 &
idle=$!
cg_add $reader $idle
cg_freeze_wait
assert_frozen_stack $reader
assert_frozen_stack $idle
load klpc-cm-patch
wait_transition_within klpc_cm_patch 30
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks, patched with the tasks frozen"
cg_frozen || die "the patching thawed the cgroup"
cg_freeze 0
sleep 2
assert_eq 0 "$(cm_mismatches)" "mismatches after the thaw"
cg_freeze_wait
disable_patch klpc_cm_patch
cg_frozen || die "the unpatching thawed the cgroup"
cg_freeze 0
sleep 2
assert_eq 0 "$(cm_mismatches)" "mismatches after the second thaw"
kill $reader $idle
wait $reader $idle 2>/dev/null || true

# 2. an interruptible sleeper in the old function: the freeze takes it
# out; its read restarts, in the new version, after the thaw
start_sleeper
sleeper=$SLEEPER
cg_add "$sleeper"
expect_write_ok "$d/enabled" 1
sleep 1
assert_file_eq "$d/transition" 1
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "the sleeper does not block: $(tasks_blocking)"
cg_freeze_wait
assert_frozen_stack "$sleeper"
wait_transition_within klpc_cm_patch 30
cg_freeze 0
wait_until 10 sleeping_in klpc_cm_wait "$sleeper" ||
	die "the thawed sleeper did not sleep again in its read"
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v2" "$(cat "$KLPC_TMP/sleeper.out")" "the thawed sleeper's read"

# 3. a killable sleeper in the new function: not frozen, it holds the
# unpatching, named; a reverse completes; it freezes once released
start_sleeper k
sleeper=$SLEEPER
cg_add "$sleeper"
expect_write_ok "$d/enabled" 0
cg_freeze 1
sleep 2
! cg_frozen || die "the cgroup froze with a task sleeping killably"
assert_file_eq "$d/transition" 1
tasks_blocking | grep -Eq "^$sleeper cat patched klpc_cm_sleeper$" ||
	die "the sleeper in the freezing cgroup is not named: $(tasks_blocking)"
dmesg_mark
expect_write_ok "$d/enabled" 1
wait_transition_within klpc_cm_patch 30
assert_dmesg_has "'klpc_cm_patch': reversing transition from unpatching"
assert_file_eq "$d/enabled" 1
write_sysfs 1 /proc/klpc_cm_sleep
wait_until 20 cg_frozen || die "the released sleeper did not freeze"
cg_freeze 0
wait "$sleeper"
assert_eq "slept v2" "$(cat "$KLPC_TMP/sleeper.out")" "the killable sleeper's read"

disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
