#!/bin/sh
# was t-18-disabled-missing-symbol
# A disabled patch whose object names a function the module lacks does
# not stand in the way of that module's load; enabling the patch then
# fails, naming the function, and leaves it disabled.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
! is_loaded klpc-target || die "klpc_target is loaded already"
# the object is not loaded: nothing to resolve yet
load klpc-test-patch obj=klpc_target func=klpc_no_such_function
wait_transition_within klpc_test_patch 10
d=$(patch_dir klpc_test_patch)
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/klpc_target/patched" 0
expect_write_ok "$(patch_dir klpc_test_patch)/enabled" 0
wait_transition_within klpc_test_patch 10

dmesg_mark
out=$(try_load klpc-target 2>&1) ||
	die "the disabled patch refused klpc_target: $out; kernel log: $(dmesg_since_mark | grep klpc | tr '\n' ';')"
assert_eq original "$(target_field message)" "klpc_target"
assert_file_eq "$d/klpc_target/patched" 0

dmesg_mark
expect_write_error "$d/enabled" 1 ENOENT
assert_dmesg_has "klpc: patch 'klpc_test_patch': object 'klpc_target': function 'klpc_no_such_function' not found"
n=$(dmesg_since_mark | grep -c "klpc_no_such_function" || true)
assert_eq 1 "$n" "kernel log lines naming the function"
assert_file_eq "$d/enabled" 0
assert_file_eq "$d/transition" 0
assert_file_eq "$d/klpc_target/patched" 0
assert_eq original "$(target_field message)" "klpc_target after the failed enable"

unload klpc-target
unload klpc-test-patch
unload klpc
