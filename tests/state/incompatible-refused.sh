#!/bin/sh
# was t-68-state-incompatible
# Incompatible patches, as upstream's test-state.sh: a patch may not
# load over an older version of a state, and a replace patch must carry
# every state of the patches it replaces.  A refused load changes nothing.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-test-proc-a cmdline=state-a state=2 replace=1
wait_transition klpc_test_proc_a

dmesg_mark
expect_load_error EINVAL klpc-test-proc-b cmdline=state-b state=1 replace=1
assert_dmesg_has "klpc: patch 'klpc_test_proc_b': not compatible with patch 'klpc_test_proc_a': system state 1 version 2 is newer than this patch's"
expect_load_error EINVAL klpc-test-proc-b cmdline=state-b state=1
expect_load_error EINVAL klpc-test-proc-b cmdline=state-b replace=1
assert_dmesg_has "klpc: patch 'klpc_test_proc_b': not compatible with patch 'klpc_test_proc_a': system state 1 version 2 is not carried by this replace patch"
assert_module_log klpc_test_proc_b
assert_not_exists "$(patch_dir klpc_test_proc_b)"
assert_file_eq "$(patch_dir klpc_test_proc_a)/enabled" 1
assert_eq state-a "$(cat /proc/cmdline)" "/proc/cmdline"

# a non-replace patch without the state stacks on top
load klpc-test-proc-b version=state-b
wait_transition klpc_test_proc_b
assert_eq state-b "$(cat /proc/version)" "/proc/version"
disable_patch klpc_test_proc_b
unload klpc-test-proc-b
disable_patch klpc_test_proc_a
unload klpc-test-proc-a
