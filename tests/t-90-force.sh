#!/bin/sh
# 'force' completes a transition a sleeper blocks, warns loudly, and pins
# the patch module for good.  It leaves klpc loaded: keep this test last.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"

klpc_core_load
load klpc-cm-target
load klpc-cm-patch
d=$(patch_dir klpc_cm_patch)
wait_transition klpc_cm_patch

expect_write_error "$d/force" 1 EINVAL
expect_write_error "$d/force" 0 EINVAL

start_sleeper
sleeper=$SLEEPER
expect_write_ok "$d/enabled" 0
sleep 1
assert_file_eq "$d/transition" 1
tasks_blocking | grep -q "klpc_cm_sleeper" || die "sleeper not listed: $(tasks_blocking)"

dmesg_mark
expect_write_ok "$d/force" 1
assert_file_eq "$d/transition" 0
assert_file_eq "$d/enabled" 0
assert_dmesg_has "'klpc_cm_patch': forcing 1 tasks to the unpatched state"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after force"

write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
expect_fail rmmod klpc_cm_patch
is_loaded klpc-cm-patch || die "a forced patch module was removed"
