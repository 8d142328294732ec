#!/bin/sh
# was t-12-stacking
# Two patches on one function: the newest wins; only the top patch may be
# disabled and only the first disabled one enabled; a new patch cannot be
# loaded above a disabled one.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

orig=$(cat /proc/cmdline)
klpc_core_load
load klpc-sample
wait_transition klpc_sample
load klpc-sample-stack
wait_transition klpc_sample_stack
assert_eq "$KLPC_STACK_TEXT" "$(cat /proc/cmdline)" "top of the stack"

dmesg_mark
expect_write_error "$(patch_dir klpc_sample)/enabled" 0 EBUSY
assert_dmesg_has "patch 'klpc_sample': cannot disable, patch 'klpc_sample_stack' above it is enabled"
assert_file_eq "$(patch_dir klpc_sample)/enabled" 1
assert_eq "$KLPC_STACK_TEXT" "$(cat /proc/cmdline)" "after the refused disable"

disable_patch klpc_sample_stack
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "lower patch revealed"
disable_patch klpc_sample
assert_eq "$orig" "$(cat /proc/cmdline)" "both disabled"

dmesg_mark
expect_write_error "$(patch_dir klpc_sample_stack)/enabled" 1 EBUSY
assert_dmesg_has "patch 'klpc_sample_stack': cannot enable, patch 'klpc_sample' below it is disabled"
assert_eq "$orig" "$(cat /proc/cmdline)" "after the refused enable"

enable_patch klpc_sample
enable_patch klpc_sample_stack
assert_eq "$KLPC_STACK_TEXT" "$(cat /proc/cmdline)" "both enabled again"

# a new patch may not go above a disabled one
disable_patch klpc_sample_stack
unload klpc-sample-stack
disable_patch klpc_sample
expect_load_error EBUSY klpc-sample-stack
assert_not_exists "$(patch_dir klpc_sample_stack)"
assert_eq "$orig" "$(cat /proc/cmdline)" "after the refused load"

unload klpc-sample
unload klpc
