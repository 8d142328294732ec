#!/bin/sh
# was t-43-lp-sysfs-object
# Upstream test-sysfs.sh "sysfs test object/patched": an object's patched
# file follows its module: 0 while the module is not loaded, 1 once it
# loads, 0 again when it goes; the function directory carries its sympos.
# klpc differs: re-enabling the disabled patch through sysfs patches the
# loaded module again.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_patch
o=$(patch_dir $p)/klpc_target

klpc_core_load
! is_loaded klpc-target || die "klpc_target is loaded already"
dmesg_mark
lp_load klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=2
wait_transition $p
assert_mode "$o" drwxr-xr-x
assert_mode "$o/patched" -r--r--r--
assert_file_eq "$o/patched" 0
assert_mode "$o/klpc_target_dup,2" drwxr-xr-x

lp_load klpc-target
assert_file_eq "$o/patched" 1
assert_eq 1,42 "$(target_field dup)" "klpc_target patched on load"
lp_unload klpc-target
assert_file_eq "$o/patched" 0
lp_load klpc-target
assert_file_eq "$o/patched" 1
assert_eq 1,42 "$(target_field dup)" "klpc_target patched on its second load"

lp_disable $p
assert_file_eq "$o/patched" 0
assert_eq 1,2 "$(target_field dup)" "klpc_target after disable"
lp_enable $p
assert_file_eq "$o/patched" 1
assert_eq 1,42 "$(target_field dup)" "klpc_target after enable"
lp_disable $p
lp_unload klpc-target
assert_file_eq "$o/patched" 0
lp_unload klpc-test-patch
assert_not_exists "$o"

assert_kernel_log "% insmod klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=2
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% insmod klpc-target
klpc: applying patch '$p' to loading module 'klpc_target'
% rmmod klpc_target
klpc: reverting patch '$p' on unloading module 'klpc_target'
% insmod klpc-target
klpc: applying patch '$p' to loading module 'klpc_target'
% echo 0 > $(patch_dir $p)/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% echo 1 > $(patch_dir $p)/enabled
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% echo 0 > $(patch_dir $p)/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% rmmod klpc_target
% rmmod $p"
unload klpc
