#!/bin/sh
# was t-40-lp-basic
# Upstream test-livepatch.sh "basic function patching": a patch of
# cmdline_proc_show changes /proc/cmdline, disabling and removing it
# restores the original, and the kernel log shows each step in order.
# klpc differs: the disabled patch stays registered (enabled reads 0) until
# its module is removed.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_lp_livepatch
d=$(patch_dir $p)
orig=$(cat /proc/cmdline)
assert_ne "$(lp_text $p)" "$orig" "/proc/cmdline before patching"

klpc_core_load
dmesg_mark
lp_load klpc-test-lp-livepatch
wait_transition $p
assert_eq "$(lp_text $p)" "$(cat /proc/cmdline)" "/proc/cmdline patched"

lp_disable $p
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
assert_file_eq "$d/enabled" 0
lp_unload klpc-test-lp-livepatch
assert_not_exists "$d"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after rmmod"

assert_kernel_log "% insmod klpc-test-lp-livepatch
klpc: enabling patch '$p'
klpc: '$p': starting patching transition
klpc: '$p': patching complete
% echo 0 > $d/enabled
klpc: '$p': starting unpatching transition
klpc: '$p': unpatching complete
% rmmod $p"
unload klpc
