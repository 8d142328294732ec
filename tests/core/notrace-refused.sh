#!/bin/sh
# was t-23-notrace
# A function ftrace cannot trace cannot be patched: the load fails cleanly.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-target
dmesg_mark
expect_load_error EINVAL klpc-test-patch obj=klpc_target func=klpc_target_untraceable
assert_dmesg_has "patch 'klpc_test_patch': object 'klpc_target': function 'klpc_target_untraceable' cannot be traced by ftrace"
assert_not_exists "$(patch_dir klpc_test_patch)"
assert_eq 0 "$(target_field untraceable)" "untouched"
unload klpc-target
unload klpc
