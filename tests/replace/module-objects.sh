#!/bin/sh
# was t-73-replace-module
# Replaced patches on module objects: a replaced patch no longer
# applies when its module loads, and a loaded module's patched function
# reverts when the replace patch does not carry it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
! is_loaded klpc-target || die "klpc_target is loaded already"
load klpc-sample-mod
wait_transition klpc_sample_mod
load klpc-test-proc-a cmdline=replace-a replace=1
wait_transition klpc_test_proc_a
assert_file_eq "$(patch_dir klpc_sample_mod)/enabled" 0
load klpc-target
assert_eq original "$(target_field message)" "replaced patch applied on load"
unload klpc-sample-mod
disable_patch klpc_test_proc_a
unload klpc-test-proc-a

load klpc-sample-mod
wait_transition klpc_sample_mod
assert_eq "patched by klpc" "$(target_field message)" "module patched"
load klpc-test-proc-b cmdline=replace-b replace=1
wait_transition klpc_test_proc_b
assert_eq original "$(target_field message)" "module function reverted"
unload klpc-sample-mod
unload klpc-target
disable_patch klpc_test_proc_b
unload klpc-test-proc-b
