#!/bin/sh
# was t-15-rmmod-pinned
# An enabled patch pins its module; once disabled it can be removed, which
# unregisters the patch.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-sample
wait_transition klpc_sample
expect_fail rmmod klpc_sample
is_loaded klpc-sample || die "klpc_sample was removed while enabled"
assert_file_eq "$(patch_dir klpc_sample)/enabled" 1
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "still patched"

disable_patch klpc_sample
unload klpc-sample
assert_not_exists "$(patch_dir klpc_sample)"
unload klpc
