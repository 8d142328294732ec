#!/bin/sh
# was t-70-replace-basic
# Atomic replace, as upstream's test-livepatch.sh "atomic replace
# livepatch": a replace patch that carries only /proc/version takes over
# from a patch of /proc/cmdline, which reverts in the same transition; the
# replaced patch is disabled for good and can be removed.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

cmdline=$(cat /proc/cmdline)
version=$(cat /proc/version)
klpc_core_load
load klpc-test-proc-a cmdline=replace-a
wait_transition klpc_test_proc_a
a=$(patch_dir klpc_test_proc_a)
assert_file_eq "$a/replace" 0

dmesg_mark
load klpc-test-proc-b version=replace-b replace=1
wait_transition klpc_test_proc_b
b=$(patch_dir klpc_test_proc_b)
assert_file_eq "$b/replace" 1
assert_file_eq "$b/enabled" 1
assert_eq "$cmdline" "$(cat /proc/cmdline)" "/proc/cmdline after replace"
assert_eq replace-b "$(cat /proc/version)" "/proc/version after replace"
assert_file_eq "$a/enabled" 0
assert_dmesg_has "klpc: patch 'klpc_test_proc_a' replaced by 'klpc_test_proc_b'"
# the nops are gone with the transition
assert_not_exists "$b/vmlinux/cmdline_proc_show,1"

# a replaced patch never comes back
dmesg_mark
expect_write_error "$a/enabled" 1 EINVAL
assert_dmesg_has "klpc: patch 'klpc_test_proc_a' was replaced by a replace patch and cannot be enabled again"
assert_module_log klpc_test_proc_a
unload klpc-test-proc-a

disable_patch klpc_test_proc_b
assert_eq "$version" "$(cat /proc/version)" "/proc/version after disable"
unload klpc-test-proc-b
