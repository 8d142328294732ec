#!/bin/sh
# was t-13-module-loaded-first
# A patch on a module that is already loaded applies at once, reverts when
# the module unloads and applies again when it comes back.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-target
assert_eq original "$(target_field message)" "unpatched module"

load klpc-sample-mod
wait_transition klpc_sample_mod
d=$(patch_dir klpc_sample_mod)
assert_eq "patched by klpc" "$(target_field message)" "patched module"
assert_file_eq "$d/klpc_target/patched" 1
assert_exists "$d/klpc_target/klpc_target_message,1"

dmesg_mark
unload klpc-target
assert_dmesg_has "klpc: reverting patch 'klpc_sample_mod' on unloading module 'klpc_target'"
assert_file_eq "$d/klpc_target/patched" 0
assert_file_eq "$d/enabled" 1

load klpc-target
assert_dmesg_has "klpc: applying patch 'klpc_sample_mod' to loading module 'klpc_target'"
assert_eq "patched by klpc" "$(target_field message)" "reloaded module"

disable_patch klpc_sample_mod
assert_eq original "$(target_field message)" "after disable"
unload klpc-sample-mod
unload klpc-target
unload klpc
