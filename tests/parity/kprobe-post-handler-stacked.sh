#!/bin/sh
# was t-48-lp-kprobe-post-stacked
# test-kprobe.sh's post-handler case on top of another patch: klpc has one
# ftrace_ops for all patches, so once a patch is enabled a new patch only
# adds addresses to that ops' filter.  A kprobe with a post handler must
# block that filter update too (EBUSY, the function named) while the patch
# below keeps working, and the patch must load once the kprobe is gone.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_lp_livepatch
below=klpc_test_patch
k=klpc_test_lp_kprobe
orig=$(cat /proc/cmdline)

klpc_core_load
load klpc-target
load klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=2
wait_transition $below
assert_eq 1,42 "$(target_field dup)" "the patch below"
assert_eq 1 "$(ftrace_users klpc_target_dup)" "ftrace users of the patch below"

dmesg_mark
lp_load klpc-test-lp-kprobe post_handler=1
lp_load_error EBUSY klpc-test-lp-livepatch
assert_not_exists "$(patch_dir $p)"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after the refused load"
assert_eq 1 "$(ftrace_users cmdline_proc_show)" "ftrace users: the kprobe alone"
assert_kprobe_counts
assert_eq 1,42 "$(target_field dup)" "the patch below after the refused load"
assert_file_eq "$(patch_dir $below)/enabled" 1
lp_unload klpc-test-lp-kprobe
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users after the kprobe"

lp_load klpc-test-lp-livepatch
wait_transition $p
assert_eq "$(lp_text $p)" "$(cat /proc/cmdline)" "/proc/cmdline patched"
assert_eq 1,42 "$(target_field dup)" "the patch below, with one above"
lp_disable $p
lp_unload klpc-test-lp-livepatch
lp_disable $below
lp_unload klpc-test-patch
lp_unload klpc-target
assert_eq 0 "$(ftrace_users klpc_target_dup)" "ftrace users at the end"

assert_kernel_log "% insmod klpc-test-lp-kprobe post_handler=1
$k: kprobe with a post handler on 'cmdline_proc_show' (ftrace-based)
% insmod klpc-test-lp-livepatch
klpc: enabling patch '$p'
klpc: patch '$p': object 'vmlinux': function 'cmdline_proc_show' is already redirected by a kprobe with a post handler (klpc_lp_post [$k]) (-16)
klpc: failed to enable patch '$p'
% rmmod $k
% insmod klpc-test-lp-livepatch
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% echo 0 > $(patch_dir $p)/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% rmmod $p
% echo 0 > $(patch_dir $below)/enabled
klpc: '$below': starting unpatching transition
klpc: '$below': unpatching complete
% rmmod $below
% rmmod klpc_target"
unload klpc
