#!/bin/sh
# was t-46-lp-kprobe-nopost
# Upstream test-kprobe.sh (after 6.1), without a post handler: such a
# kprobe uses a plain ftrace_ops and coexists with a patch of its function
# in either order; the patch stays live and the kprobe keeps counting
# calls, whichever version of the function runs.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_lp_livepatch
k=klpc_test_lp_kprobe
orig=$(cat /proc/cmdline)
patched=$(lp_text $p)

klpc_core_load
dmesg_mark
# kprobe first
lp_load klpc-test-lp-kprobe post_handler=0
assert_kprobe_counts
lp_load klpc-test-lp-livepatch
wait_transition $p
assert_eq "$patched" "$(cat /proc/cmdline)" "patched under the kprobe"
assert_eq 2 "$(ftrace_users cmdline_proc_show)" "ftrace users: kprobe and patch"
assert_kprobe_counts
lp_unload klpc-test-lp-kprobe
assert_eq "$patched" "$(cat /proc/cmdline)" "patched after the kprobe went"
assert_eq 1 "$(ftrace_users cmdline_proc_show)" "ftrace users: the patch"

# patch first
lp_load klpc-test-lp-kprobe post_handler=0
assert_kprobe_counts
assert_eq "$patched" "$(cat /proc/cmdline)" "patched with a new kprobe"
lp_disable $p
assert_eq "$orig" "$(cat /proc/cmdline)" "unpatched under the kprobe"
assert_kprobe_counts
lp_unload klpc-test-lp-livepatch
lp_unload klpc-test-lp-kprobe
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users at the end"

assert_kernel_log "% insmod klpc-test-lp-kprobe post_handler=0
$k: kprobe without a post handler on 'cmdline_proc_show' (ftrace-based)
% insmod klpc-test-lp-livepatch
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% rmmod $k
% insmod klpc-test-lp-kprobe post_handler=0
$k: kprobe without a post handler on 'cmdline_proc_show' (ftrace-based)
% echo 0 > $(patch_dir $p)/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% rmmod $p
% rmmod $k"
unload klpc
