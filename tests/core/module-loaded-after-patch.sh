#!/bin/sh
# was t-14-module-loaded-later
# A patch on a module that is not loaded registers, and applies when the
# module loads.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
! is_loaded klpc-target || die "klpc_target is loaded already"
load klpc-sample-mod
wait_transition klpc_sample_mod
d=$(patch_dir klpc_sample_mod)
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/klpc_target/patched" 0

dmesg_mark
load klpc-target
assert_dmesg_has "klpc: applying patch 'klpc_sample_mod' to loading module 'klpc_target'"
assert_file_eq "$d/klpc_target/patched" 1
assert_eq "patched by klpc" "$(target_field message)" "module patched on load"

unload klpc-target
assert_file_eq "$d/klpc_target/patched" 0
disable_patch klpc_sample_mod
load klpc-target
assert_eq original "$(target_field message)" "disabled patch stays off"
unload klpc-target
unload klpc-sample-mod
unload klpc
