#!/bin/sh
# was t-30-cm-sleeper
# A task sleeping inside a patched function blocks the transition and is
# named in /proc/klpc/tasks; disabling meanwhile reverses the transition;
# once the sleeper wakes and returns to user space the transition completes.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load_cm_patch_blocked
sleeper=$SLEEPER
d=$(patch_dir klpc_cm_patch)
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "sleeper $sleeper not listed in /proc/klpc/tasks: $(tasks_blocking)"
[ "$(tasks_blocking | wc -l)" -eq 1 ] || die "others block too: $(tasks_blocking)"

# disabling during the transition reverses it; the sleeper never moved
dmesg_mark
expect_write_ok "$d/enabled" 0
wait_transition klpc_cm_patch 10
assert_file_eq "$d/enabled" 0
assert_dmesg_has "'klpc_cm_patch': reversing transition from patching"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after the transition"

# enable again: still blocked by the sleeper, until it wakes
expect_write_ok "$d/enabled" 1
sleep 1
assert_file_eq "$d/transition" 1
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "the sleeper ran the old version"
wait_transition klpc_cm_patch 10
assert_file_eq "$d/enabled" 1
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "a new read runs the new version"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after completion"

disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
