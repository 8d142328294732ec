#!/bin/sh
# was t-11-reenable
# A disabled patch is enabled again through sysfs, without reloading it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

orig=$(cat /proc/cmdline)
klpc_core_load
load klpc-sample
wait_transition klpc_sample
for round in 1 2 3; do
	disable_patch klpc_sample
	assert_eq "$orig" "$(cat /proc/cmdline)" "round $round: disabled"
	enable_patch klpc_sample
	assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "round $round: re-enabled"
	assert_file_eq "$(patch_dir klpc_sample)/vmlinux/patched" 1
done
disable_patch klpc_sample
unload klpc-sample
unload klpc
