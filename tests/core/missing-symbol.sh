#!/bin/sh
# was t-21-missing-symbol
# A patch naming a function that does not exist fails to load, names the
# function in dmesg and leaves nothing registered.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
dmesg_mark
expect_load_error ENOENT klpc-test-patch func=klpc_no_such_function
assert_dmesg_has "klpc: patch 'klpc_test_patch': object 'vmlinux': function 'klpc_no_such_function' not found"
assert_not_exists "$(patch_dir klpc_test_patch)"

# a module object that is loaded but lacks the function
load klpc-target
dmesg_mark
expect_load_error ENOENT klpc-test-patch obj=klpc_target func=klpc_no_such_function
assert_dmesg_has "object 'klpc_target': function 'klpc_no_such_function' not found"
assert_not_exists "$(patch_dir klpc_test_patch)"
assert_eq original "$(target_field message)" "target untouched"

# the patch still loads fine afterwards
load klpc-sample
wait_transition klpc_sample
disable_patch klpc_sample
unload klpc-sample
unload klpc-target
unload klpc
