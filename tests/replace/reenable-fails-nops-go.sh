#!/bin/sh
# was t-76-replace-reenable-fail
# A replace patch re-enabled through sysfs gets a nop for every function an
# enabled patch below changes and it does not.  If the enable then fails
# (here: the task table cannot be allocated, made to fail by
# klpc-test-fail), the nops must go with it: they name functions of other
# patch modules.  The patch stays disabled, with the directories it had,
# and enables afterwards.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-cm-target
load klpc-cm-patch
wait_transition klpc_cm_patch
# a replace transition reversed at once: the patch stays, disabled
start_sleeper
load klpc-test-proc-a cmdline=replace-a replace=1
a=$(patch_dir klpc_test_proc_a)
expect_write_ok "$a/enabled" 0
release_sleeper
wait "$SLEEPER" || true
wait_transition klpc_test_proc_a
assert_file_eq "$a/enabled" 0
assert_not_exists "$a/klpc_cm_target"
before=$(cd "$a" && find . | sort)

# re-enable: the transition's table cannot be allocated
load klpc-test-fail func=klpc_tasks_alloc nth=1
dmesg_mark
expect_write_error "$a/enabled" 1 ENOMEM
assert_file_eq /sys/module/klpc_test_fail/parameters/injected 1
unload klpc-test-fail
assert_dmesg_has "patch 'klpc_test_proc_a': cannot prepare the patching transition"
assert_file_eq "$a/enabled" 0
assert_file_eq "$a/transition" 0
after=$(cd "$a" && find . | sort)
[ "$before" = "$after" ] || die "the failed enable left nops behind: $(echo "$after" | grep -v -x -F "$before" | tr '\n' ' ')"
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_sleeper() still patched by klpc_cm_patch"

# the patch below can go now that nothing points into it
enable_patch klpc_test_proc_a
assert_file_eq "$(patch_dir klpc_cm_patch)/enabled" 0
assert_eq replace-a "$(cat /proc/cmdline)" "/proc/cmdline"
unload klpc-cm-patch
disable_patch klpc_test_proc_a
unload klpc-test-proc-a
unload klpc-cm-target
