#!/bin/sh
# was t-85-1-fault-load-replace
# Fault sweep (lib-fault.sh), loads of patch modules: a replace patch that
# gets nops for the functions of the enabled patches below it, one of them
# in an object it lacks (klpc_target), and a patch with
# a klpc_sym table and a system state. Every allocation each load makes
# fails in turn: the load fails with ENOMEM and leaves the patch below as
# it was, or succeeds with the patch working.
# klpc-timeout: 600
# klpc-weight: 810
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

klpc_core_load
CMDLINE=$(cat /proc/cmdline)
VERSION=$(cat /proc/version)

# --- a replace patch over klpc-test-proc-b (/proc/version) and
# klpc-sample-mod (module klpc_target): a nop for a vmlinux function and
# for one of a module object the replace patch does not have ---
load klpc-target
load klpc-test-proc-b version=fault-b
load klpc-sample-mod
wait_transition klpc_sample_mod

fault_op() {
	klpc_insmod "$KLPC_MODDIR/klpc-test-proc-a.ko" cmdline=fault-r replace=1
}

# reload_below: the patches below, as they were (a replaced patch cannot
# be enabled again)
reload_below() {
	unload klpc-sample-mod
	unload klpc-test-proc-b
	load klpc-test-proc-b version=fault-b
	load klpc-sample-mod
	wait_transition klpc_sample_mod
}

fault_check_done() {
	a=$(patch_dir klpc_test_proc_a)
	assert_file_eq "$a/enabled" 1
	# the nops went when the transition completed
	assert_not_exists "$a/vmlinux/version_proc_show,1"
	assert_not_exists "$a/klpc_target"
	assert_eq fault-r "$(cat /proc/cmdline)" "/proc/cmdline once replaced"
	assert_eq "$VERSION" "$(cat /proc/version)" "/proc/version once replaced"
	assert_eq original "$(target_field message)" "klpc_target's message once replaced"
	assert_file_eq "$(patch_dir klpc_test_proc_b)/enabled" 0
	assert_file_eq "$(patch_dir klpc_sample_mod)/enabled" 0
	disable_patch klpc_test_proc_a
	unload klpc-test-proc-a
	reload_below
	fault_check_before
}

fault_check_before() {
	! is_loaded klpc-test-proc-a || die "klpc-test-proc-a is loaded"
	assert_not_exists "$(patch_dir klpc_test_proc_a)"
	assert_file_eq "$(patch_dir klpc_test_proc_b)/enabled" 1
	assert_file_eq "$(patch_dir klpc_sample_mod)/enabled" 1
	assert_eq "$CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
	assert_eq fault-b "$(cat /proc/version)" "/proc/version patched by klpc_test_proc_b"
	assert_eq "patched by klpc" "$(target_field message)" "klpc_target's message patched by klpc_sample_mod"
}

fault_sweep "load-replace-nops" klpc_enable_patch
disable_patch klpc_sample_mod
disable_patch klpc_test_proc_b
unload klpc-sample-mod
unload klpc-test-proc-b

# --- a klpc_sym table and a system state (klpc_target stays loaded) ---

fault_op() {
	klpc_insmod "$KLPC_MODDIR/klpc-test-syms.ko" sym=klpc_target_dup sympos=2 state=1
}

fault_check_done() {
	assert_file_eq "$(patch_dir klpc_test_syms)/enabled" 1
	assert_eq sym=2 "$(target_field message)" "klpc_target's message once loaded"
	disable_patch klpc_test_syms
	unload klpc-test-syms
	fault_check_before
}

fault_check_before() {
	! is_loaded klpc-test-syms || die "klpc-test-syms is loaded"
	assert_not_exists "$(patch_dir klpc_test_syms)"
	assert_eq original "$(target_field message)" "klpc_target's message unpatched"
}

fault_sweep "load-syms-states" klpc_enable_patch
unload klpc-target
