#!/bin/sh
# was t-41-lp-multiple
# Upstream test-livepatch.sh "multiple livepatches": two non-replace
# patches stack; the newer one's cmdline_proc_show wins and its
# meminfo_proc_show is live too; disabling it reveals the older one.
# klpc's stacking rules (upstream 6.1 has none of them): only the most
# recently enabled patch may be disabled, a new patch cannot load above a
# disabled one, and a disabled patch is enabled again through sysfs.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

a=klpc_test_lp_livepatch
b=klpc_test_lp_stack
orig=$(cat /proc/cmdline)

klpc_core_load
dmesg_mark
lp_load klpc-test-lp-livepatch
wait_transition $a
assert_live "$(lp_text $a)" ""
lp_load klpc-test-lp-stack
wait_transition $b
assert_live "$(lp_text $b)" $b

lp_write_error "$(patch_dir $a)/enabled" 0 EBUSY
assert_file_eq "$(patch_dir $a)/enabled" 1
assert_live "$(lp_text $b)" $b

lp_disable $b
assert_live "$(lp_text $a)" ""
lp_unload klpc-test-lp-stack
assert_live "$(lp_text $a)" ""

lp_disable $a
assert_live "$orig" ""
lp_load_error EBUSY klpc-test-lp-stack
assert_not_exists "$(patch_dir $b)"
assert_live "$orig" ""

lp_enable $a
assert_live "$(lp_text $a)" ""
lp_disable $a
lp_unload klpc-test-lp-livepatch
assert_live "$orig" ""

assert_kernel_log "% insmod klpc-test-lp-livepatch
klpc: enabling patch '$a'
klpc: '$a': starting patching transition
klpc: '$a': patching complete
% insmod klpc-test-lp-stack
klpc: enabling patch '$b'
klpc: '$b': starting patching transition
klpc: '$b': patching complete
% echo 0 > $(patch_dir $a)/enabled
klpc: patch '$a': cannot disable, patch '$b' above it is enabled (-EBUSY)
% echo 0 > $(patch_dir $b)/enabled
klpc: '$b': starting unpatching transition
klpc: '$b': unpatching complete
% rmmod $b
% echo 0 > $(patch_dir $a)/enabled
klpc: '$a': starting unpatching transition
klpc: '$a': unpatching complete
% insmod klpc-test-lp-stack
klpc: patch '$b': cannot enable, patch '$a' below it is disabled; enable or remove it first (-EBUSY)
% echo 1 > $(patch_dir $a)/enabled
klpc: enabling patch '$a'
klpc: '$a': starting patching transition
klpc: '$a': patching complete
% echo 0 > $(patch_dir $a)/enabled
klpc: '$a': starting unpatching transition
klpc: '$a': unpatching complete
% rmmod $a"
unload klpc
