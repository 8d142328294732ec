#!/bin/sh
# was t-16-rmmod-core
# klpc.ko cannot be removed while any patch is registered, enabled or not.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-sample
wait_transition klpc_sample
expect_fail rmmod klpc
disable_patch klpc_sample
expect_fail rmmod klpc
is_loaded klpc || die "klpc was removed with a patch registered"
assert_exists "$(patch_dir klpc_sample)"
unload klpc-sample
unload klpc
