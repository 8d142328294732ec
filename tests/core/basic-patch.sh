#!/bin/sh
# was t-10-basic
# klpc-sample patches cmdline_proc_show: /proc/cmdline changes, the sysfs
# ABI shows the patch, disabling restores the original, rmmod unregisters.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

orig=$(cat /proc/cmdline)
assert_ne "$KLPC_SAMPLE_TEXT" "$orig" "/proc/cmdline before patching"

dmesg_mark
klpc_core_load
load klpc-sample
d=$(patch_dir klpc_sample)
wait_transition klpc_sample
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline patched"
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/transition" 0
assert_file_eq "$d/replace" 0
assert_file_eq "$d/vmlinux/patched" 1
assert_exists "$d/vmlinux/cmdline_proc_show,1"
assert_dmesg_has "klpc: enabling patch 'klpc_sample'"
assert_dmesg_has "klpc: 'klpc_sample': patching complete"

disable_patch klpc_sample
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
assert_file_eq "$d/enabled" 0
assert_file_eq "$d/vmlinux/patched" 0
assert_dmesg_has "klpc: 'klpc_sample': unpatching complete"

unload klpc-sample
assert_not_exists "$d"
unload klpc
assert_not_exists "$KLPC_SYSFS"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline at the end"
