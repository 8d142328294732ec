#!/bin/sh
# was t-74-replace-bad-input
# Replace patches that fail to load change nothing: the patch they
# would replace stays enabled and in force, and no nop is left behind.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-test-proc-a cmdline=replace-a
wait_transition klpc_test_proc_a

dmesg_mark
expect_load_error ENOENT klpc-test-patch func=klpc_no_such_function replace=1
assert_dmesg_has "klpc: patch 'klpc_test_patch': object 'vmlinux': function 'klpc_no_such_function' not found"
assert_not_exists "$(patch_dir klpc_test_patch)"

dmesg_mark
expect_load_error ENODEV klpc-test-proc-b version=replace-b replace=1 pre_patch_ret=-19
assert_dmesg_has "klpc: patch 'klpc_test_proc_b': pre-patch callback failed for object 'vmlinux' \(-19\)"
assert_module_log klpc_test_proc_b "pre_patch"
assert_not_exists "$(patch_dir klpc_test_proc_b)"

assert_file_eq "$(patch_dir klpc_test_proc_a)/enabled" 1
assert_eq replace-a "$(cat /proc/cmdline)" "/proc/cmdline"
disable_patch klpc_test_proc_a
unload klpc-test-proc-a
