#!/bin/sh
# was t-75-callbacks-only-object
# An object with callbacks and no function, as upstream allows: its
# callbacks follow its module in and out, and a replace patch over it needs
# no nop for it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-target
dmesg_mark
load klpc-test-proc-a cmdline=cb-only target_cb=1
wait_transition klpc_test_proc_a
a=$(patch_dir klpc_test_proc_a)
assert_module_log klpc_test_proc_a "pre_patch" "pre_patch klpc_target" \
	"post_patch" "post_patch klpc_target"
assert_file_eq "$a/klpc_target/patched" 1

dmesg_mark
unload klpc-target
assert_file_eq "$a/klpc_target/patched" 0
load klpc-target
assert_file_eq "$a/klpc_target/patched" 1
assert_module_log klpc_test_proc_a "pre_unpatch klpc_target" \
	"post_unpatch klpc_target" "pre_patch klpc_target" \
	"post_patch klpc_target"

dmesg_mark
load klpc-test-proc-b cmdline=cb-replace replace=1
wait_transition klpc_test_proc_b
assert_not_exists "$(patch_dir klpc_test_proc_b)/klpc_target"
assert_file_eq "$a/enabled" 0
assert_module_log klpc_test_proc_a
assert_eq cb-replace "$(cat /proc/cmdline)" "/proc/cmdline"
unload klpc-test-proc-a
disable_patch klpc_test_proc_b
unload klpc-test-proc-b
unload klpc-target
