#!/bin/sh
# was t-44-lp-ftrace
# Upstream test-ftrace.sh: with kernel.ftrace_enabled 0 a patch fails to
# load, with EBUSY, one log line naming patch and function and nothing
# left behind; with ftrace on again it loads; while it is enabled
# ftrace_enabled cannot be cleared (klpc's ftrace_ops is PERMANENT) and the
# patch stays live; once it is disabled, ftrace_enabled can be cleared.
# klpc differs: the disabled patch stays registered, and enabling it again
# through sysfs fails the same way while ftrace is off.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_lp_livepatch
d=$(patch_dir $p)
orig=$(cat /proc/cmdline)

# whatever happens, the guest's next tests get ftrace back
trap 'write_sysfs 1 "$LP_FTRACE_ENABLED" 2>/dev/null || true' EXIT

klpc_core_load
assert_file_eq "$LP_FTRACE_ENABLED" 1
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users before"
dmesg_mark
lp_set_ftrace 0
lp_load_error EBUSY klpc-test-lp-livepatch
assert_not_exists "$d"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after the refused load"
[ "$(lp_kernel_log | grep -c "$p.*cmdline_proc_show")" -eq 1 ] ||
	die "not one log line naming $p and cmdline_proc_show: $(lp_kernel_log)"

lp_set_ftrace 1
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users after the refused load"
lp_load klpc-test-lp-livepatch
wait_transition $p
assert_eq "$(lp_text $p)" "$(cat /proc/cmdline)" "/proc/cmdline patched"
assert_eq 1 "$(ftrace_users cmdline_proc_show)" "ftrace users while patched"

lp_write_error "$LP_FTRACE_ENABLED" 0 EBUSY
assert_file_eq "$LP_FTRACE_ENABLED" 1
assert_eq "$(lp_text $p)" "$(cat /proc/cmdline)" "/proc/cmdline after the refused sysctl"
assert_file_eq "$d/enabled" 1

lp_disable $p
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users after disable"
# nothing PERMANENT is left registered by the disabled patch
lp_set_ftrace 0
lp_write_error "$d/enabled" 1 EBUSY
assert_file_eq "$d/enabled" 0
assert_file_eq "$d/transition" 0
assert_file_eq "$d/vmlinux/patched" 0
lp_set_ftrace 1
assert_eq 0 "$(ftrace_users cmdline_proc_show)" "ftrace users after the refused enable"
lp_enable $p
assert_eq "$(lp_text $p)" "$(cat /proc/cmdline)" "/proc/cmdline patched again"
lp_disable $p
lp_unload klpc-test-lp-livepatch

assert_kernel_log "% echo 0 > $LP_FTRACE_ENABLED
% insmod klpc-test-lp-livepatch
klpc: enabling patch '$p'
klpc: patch '$p': ftrace cannot redirect function 'cmdline_proc_show' (-16): kernel.ftrace_enabled is 0
klpc: failed to enable patch '$p'
% echo 1 > $LP_FTRACE_ENABLED
% insmod klpc-test-lp-livepatch
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% echo 0 > $LP_FTRACE_ENABLED
% echo 0 > $d/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% echo 0 > $LP_FTRACE_ENABLED
% echo 1 > $d/enabled
klpc: enabling patch '$p'
klpc: patch '$p': ftrace cannot redirect function 'cmdline_proc_show' (-16): kernel.ftrace_enabled is 0
klpc: failed to enable patch '$p'
% echo 1 > $LP_FTRACE_ENABLED
% echo 1 > $d/enabled
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% echo 0 > $d/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% rmmod $p"
unload klpc
