#!/bin/sh
# was t-45-lp-kprobe-post
# Upstream test-kprobe.sh (after 6.1), with a post handler: an ftrace-based
# kprobe with a post handler owns its function through an IPMODIFY
# ftrace_ops, so a patch of that function fails to load with EBUSY and a
# log line naming it, leaving nothing behind; the other way round, with the
# patch loaded, registering such a kprobe fails and the patch stays live.
# klpc differs: the disabled patch stays registered; enabling it again
# through sysfs under such a kprobe fails the same way.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_lp_livepatch
k=klpc_test_lp_kprobe
orig=$(cat /proc/cmdline)

klpc_core_load
dmesg_mark
lp_load klpc-test-lp-kprobe post_handler=1
assert_kprobe_counts
lp_load_error EBUSY klpc-test-lp-livepatch
assert_not_exists "$(patch_dir $p)"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after the refused load"
assert_eq 1 "$(ftrace_users cmdline_proc_show)" "ftrace users: the kprobe alone"
assert_kprobe_counts
lp_unload klpc-test-lp-kprobe
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users after the kprobe"

lp_load klpc-test-lp-livepatch
wait_transition $p
lp_load_error EBUSY klpc-test-lp-kprobe post_handler=1
assert_eq "$(lp_text $p)" "$(cat /proc/cmdline)" "/proc/cmdline after the refused kprobe"
assert_eq 1 "$(ftrace_users cmdline_proc_show)" "ftrace users: the patch alone"
lp_disable $p
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
lp_load klpc-test-lp-kprobe post_handler=1
lp_write_error "$(patch_dir $p)/enabled" 1 EBUSY
assert_file_eq "$(patch_dir $p)/enabled" 0
assert_file_eq "$(patch_dir $p)/transition" 0
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after the refused enable"
assert_kprobe_counts
lp_unload klpc-test-lp-kprobe
lp_unload klpc-test-lp-livepatch
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users at the end"

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
% insmod klpc-test-lp-kprobe post_handler=1
$k: cannot register a kprobe with a post handler on 'cmdline_proc_show' (-16)
% echo 0 > $(patch_dir $p)/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% insmod klpc-test-lp-kprobe post_handler=1
$k: kprobe with a post handler on 'cmdline_proc_show' (ftrace-based)
% echo 1 > $(patch_dir $p)/enabled
klpc: enabling patch '$p'
klpc: patch '$p': object 'vmlinux': function 'cmdline_proc_show' is already redirected by a kprobe with a post handler (klpc_lp_post [$k]) (-16)
klpc: failed to enable patch '$p'
% rmmod $k
% rmmod $p"
unload klpc
