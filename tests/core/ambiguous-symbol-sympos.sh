#!/bin/sh
# was t-22-ambiguous-symbol
# klpc_target has two local functions named klpc_target_dup: sympos 0 is
# refused as ambiguous, a position past the last one as not found, and
# sympos 2 patches exactly the second one.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-target
assert_eq 1,2 "$(target_field dup)" "unpatched"

dmesg_mark
expect_load_error EINVAL klpc-test-patch obj=klpc_target func=klpc_target_dup
assert_dmesg_has "patch 'klpc_test_patch': object 'klpc_target': function 'klpc_target_dup' is ambiguous"
assert_not_exists "$(patch_dir klpc_test_patch)"

dmesg_mark
expect_load_error ENOENT klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=3
assert_dmesg_has "function 'klpc_target_dup' not found at that old_sympos"
assert_eq 1,2 "$(target_field dup)" "after the refused loads"

load klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=2
wait_transition klpc_test_patch
assert_exists "$(patch_dir klpc_test_patch)/klpc_target/klpc_target_dup,2"
assert_eq 1,42 "$(target_field dup)" "second klpc_target_dup patched"
disable_patch klpc_test_patch
assert_eq 1,2 "$(target_field dup)" "unpatched again"
unload klpc-test-patch

load klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=1
wait_transition klpc_test_patch
assert_eq 42,2 "$(target_field dup)" "first klpc_target_dup patched"
disable_patch klpc_test_patch
unload klpc-test-patch
unload klpc-target
unload klpc
