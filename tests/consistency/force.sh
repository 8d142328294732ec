#!/bin/sh
# was t-90-force
# 'force' completes a transition a sleeper blocks, warns loudly, and pins
# the modules of the patches whose code tasks may still run (the one in
# transition, the enabled ones) with one reference each, for good; a
# disabled patch stays removable, and later enables and disables of a
# forced patch keep its module's count right.  It leaves klpc loaded:
# keep this test last.
# klpc-group: tail
# klpc-order: 92 (the tail that leaves state for good, in this order)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-cm-target
load klpc-cm-patch
d=$(patch_dir klpc_cm_patch)
wait_transition klpc_cm_patch

expect_write_error "$d/force" 1 EINVAL
expect_write_error "$d/force" 0 EINVAL

# a disabled patch above the one that will be forced
load klpc-sample
wait_transition klpc_sample
disable_patch klpc_sample
assert_eq 0 "$(module_refcnt klpc-sample)" "klpc_sample's refcnt while disabled"
assert_eq 1 "$(module_refcnt klpc-cm-patch)" "klpc_cm_patch's refcnt while enabled"

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

# the forced patch holds one reference for good, the disabled one none
assert_eq 1 "$(module_refcnt klpc-cm-patch)" "klpc_cm_patch's refcnt after force"
assert_file_eq "$d/forced" 1
assert_file_eq "$(patch_dir klpc_sample)/forced" 0
assert_eq 0 "$(module_refcnt klpc-sample)" "klpc_sample's refcnt after force"
enable_patch klpc_cm_patch
assert_eq 2 "$(module_refcnt klpc-cm-patch)" "klpc_cm_patch's refcnt enabled again"
enable_patch klpc_sample
assert_eq 1 "$(module_refcnt klpc-sample)" "klpc_sample's refcnt enabled again"
disable_patch klpc_sample
assert_eq 0 "$(module_refcnt klpc-sample)" "klpc_sample's refcnt disabled again"
unload klpc-sample
disable_patch klpc_cm_patch
assert_eq 1 "$(module_refcnt klpc-cm-patch)" "klpc_cm_patch's refcnt disabled again"

expect_fail rmmod klpc_cm_patch
is_loaded klpc-cm-patch || die "a forced patch module was removed"
