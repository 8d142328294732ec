#!/bin/sh
# was t-71-replace-carried
# A replace patch over two stacked patches: what it carries wins, what
# it drops reverts; the usual stacking rules apply above it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

cmdline=$(cat /proc/cmdline)
version=$(cat /proc/version)
klpc_core_load
load klpc-test-proc-a cmdline=carried-a version=carried-a
wait_transition klpc_test_proc_a
load klpc-test-proc-b cmdline=carried-b
wait_transition klpc_test_proc_b
assert_eq carried-b "$(cat /proc/cmdline)" "/proc/cmdline stacked"

load klpc-test-proc-c cmdline=carried-c replace=1
wait_transition klpc_test_proc_c
assert_eq carried-c "$(cat /proc/cmdline)" "/proc/cmdline replaced"
assert_eq "$version" "$(cat /proc/version)" "/proc/version replaced"
assert_file_eq "$(patch_dir klpc_test_proc_a)/enabled" 0
assert_file_eq "$(patch_dir klpc_test_proc_b)/enabled" 0
unload klpc-test-proc-b
unload klpc-test-proc-a

# a non-replace patch stacks on the replace patch
load klpc-test-proc-a version=carried-top
wait_transition klpc_test_proc_a
assert_eq carried-top "$(cat /proc/version)" "/proc/version on top"
expect_write_error "$(patch_dir klpc_test_proc_c)/enabled" 0 EBUSY
disable_patch klpc_test_proc_a
disable_patch klpc_test_proc_c
assert_eq "$cmdline" "$(cat /proc/cmdline)" "/proc/cmdline at the end"
assert_eq "$version" "$(cat /proc/version)" "/proc/version at the end"
unload klpc-test-proc-a
unload klpc-test-proc-c
