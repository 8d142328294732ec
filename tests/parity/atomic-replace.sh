#!/bin/sh
# was t-4d-lp-atomic-replace
# Upstream 6.12's test-livepatch.sh "atomic replace livepatch": three
# stacked patches (test_klp_livepatch, test_klp_syscall,
# test_klp_callbacks_demo; here klpc's ports) and an atomic-replace patch
# of /proc/meminfo on top: it alone stays enabled, /proc/cmdline goes
# back to the original in the same transition, the three can be removed
# while it stays, and disabling it leaves the original functions.
# klpc: a replaced patch stays listed (enabled 0) until its rmmod, so the
# count is of the enabled patches (upstream counts the directories, as it
# frees a replaced patch at once); klpc_test_cb_demo patches
# /proc/cmdline too (upstream's demo patches no vmlinux function); klpc
# logs one "replaced by" line per patch the transition retires, bottom of
# the stack first, before "patching complete"; the replaced demo's unpatch
# callbacks do not run, as upstream's do not.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

a=klpc_test_lp_livepatch
b=klpc_test_lp_syscall
c=klpc_test_cb_demo
r=klpc_test_lp_replace
cmdline=$(cat /proc/cmdline)

# enabled_patches: how many of klpc's patches read enabled 1
enabled_patches() {
	cat "$KLPC_SYSFS"/*/enabled 2>/dev/null | grep -c '^1$' || true
}

klpc_core_load
dmesg_mark
lp_load klpc-test-lp-livepatch
wait_transition $a
assert_live "$(lp_text $a)" ""
for m in klpc-test-lp-syscall klpc-test-cb-demo; do
	lp_load $m
	wait_transition "$(modname $m)"
done
assert_live "patched by $c" ""
assert_eq 3 "$(enabled_patches)" "enabled patches before the replace"

lp_load klpc-test-lp-replace replace=1
wait_transition $r
assert_live "$cmdline" $r
assert_eq 1 "$(enabled_patches)" "enabled patches after the replace"
assert_file_eq "$(patch_dir $r)/enabled" 1

# these were disabled by the atomic replace
for m in klpc-test-cb-demo klpc-test-lp-syscall klpc-test-lp-livepatch; do
	lp_unload $m
done
assert_live "$cmdline" $r

lp_disable $r
lp_unload klpc-test-lp-replace
assert_live "$cmdline" ""

assert_kernel_log "% insmod klpc-test-lp-livepatch
klpc: enabling patch '$a'
klpc: '$a': starting patching transition
klpc: '$a': patching complete
% insmod klpc-test-lp-syscall
klpc: enabling patch '$b'
klpc: '$b': starting patching transition
klpc: '$b': patching complete
% insmod klpc-test-cb-demo
klpc: enabling patch '$c'
$c: pre_patch: vmlinux
klpc: '$c': starting patching transition
$c: post_patch: vmlinux
klpc: '$c': patching complete
% insmod klpc-test-lp-replace replace=1
klpc: enabling patch '$r'
klpc: '$r': starting patching transition
klpc: patch '$a' replaced by '$r'
klpc: patch '$b' replaced by '$r'
klpc: patch '$c' replaced by '$r'
klpc: '$r': patching complete
% rmmod $c
% rmmod $b
% rmmod $a
% echo 0 > $(patch_dir $r)/enabled
klpc: '$r': starting unpatching transition
klpc: '$r': unpatching complete
% rmmod $r"
