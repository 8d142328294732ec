#!/bin/sh
# was t-24-malformed-patch
# Malformed patch tables are refused with EINVAL and a message.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
for how in no_new_func no_old_name no_funcs no_objs; do
	dmesg_mark
	expect_load_error EINVAL klpc-test-patch func=cmdline_proc_show broken=$how
	assert_dmesg_has "klpc: .*(invalid patch|patch 'klpc_test_patch')"
	assert_not_exists "$(patch_dir klpc_test_patch)"
done
assert_ne "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "nothing patched"
unload klpc
