#!/bin/sh
# Fault sweep (lib-fault.sh), loads of patch modules: a replace patch that
# gets a nop for a function of the enabled patch below it, and a patch with
# a klpc_sym table and a system state. Every allocation each load makes
# fails in turn: the load fails with ENOMEM and leaves the patch below as
# it was, or succeeds with the patch working.
# klpc-timeout: 600
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/lib-fault.sh"

klpc_core_load
CMDLINE=$(cat /proc/cmdline)
VERSION=$(cat /proc/version)

# --- a replace patch over klpc-test-proc-b, which patches /proc/version ---
load klpc-test-proc-b version=fault-b
wait_transition klpc_test_proc_b

fault_op() {
	klpc_insmod "$KLPC_MODDIR/klpc-test-proc-a.ko" cmdline=fault-r replace=1
}

fault_check_done() {
	a=$(patch_dir klpc_test_proc_a)
	assert_file_eq "$a/enabled" 1
	# the nop for version_proc_show() went when the transition completed
	assert_not_exists "$a/vmlinux/version_proc_show,1"
	assert_eq fault-r "$(cat /proc/cmdline)" "/proc/cmdline once replaced"
	assert_eq "$VERSION" "$(cat /proc/version)" "/proc/version once replaced"
	assert_file_eq "$(patch_dir klpc_test_proc_b)/enabled" 0
	disable_patch klpc_test_proc_a
	unload klpc-test-proc-a
	# a replaced patch cannot be enabled again: reload it
	unload klpc-test-proc-b
	load klpc-test-proc-b version=fault-b
	wait_transition klpc_test_proc_b
	fault_check_before
}

fault_check_before() {
	! is_loaded klpc-test-proc-a || die "klpc-test-proc-a is loaded"
	assert_not_exists "$(patch_dir klpc_test_proc_a)"
	assert_file_eq "$(patch_dir klpc_test_proc_b)/enabled" 1
	assert_eq "$CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
	assert_eq fault-b "$(cat /proc/version)" "/proc/version patched by klpc_test_proc_b"
}

fault_sweep "load-replace-nops" klpc_enable_patch
disable_patch klpc_test_proc_b
unload klpc-test-proc-b

# --- a klpc_sym table and a system state ---
load klpc-target

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
