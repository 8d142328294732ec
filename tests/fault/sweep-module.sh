#!/bin/sh
# was t-85-3-fault-module
# Fault sweep (lib-fault.sh), module events: the load of a module an
# enabled patch waits for, and the removal of a (disabled) patch module.
# Every allocation each makes fails in turn: the module's load fails with
# ENOMEM and the patch stays enabled and waiting, or it succeeds patched;
# the removal always succeeds.
# klpc-timeout: 600
# klpc-weight: 270
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

klpc_core_load

# --- klpc_target loads under the enabled klpc-sample-mod ---
load klpc-sample-mod
wait_transition klpc_sample_mod
D=$(patch_dir klpc_sample_mod)

fault_op() {
	klpc_insmod "$KLPC_MODDIR/klpc-target.ko"
}

fault_check_done() {
	assert_file_eq "$D/klpc_target/patched" 1
	assert_eq "patched by klpc" "$(target_field message)" "klpc_target's message once loaded"
	unload klpc-target
	fault_check_before
}

fault_check_before() {
	! is_loaded klpc-target || die "klpc-target is loaded"
	assert_file_eq "$D/enabled" 1
	assert_file_eq "$D/klpc_target/patched" 0
}

fault_sweep "load-target-module" klpc_module_coming_notify
disable_patch klpc_sample_mod
unload klpc-sample-mod

# --- removal of a disabled patch module ---
CMDLINE=$(cat /proc/cmdline)
load klpc-test-proc-a cmdline=fault-a
disable_patch klpc_test_proc_a

fault_op() {
	rmmod klpc_test_proc_a
}

fault_check_done() {
	! is_loaded klpc-test-proc-a || die "klpc-test-proc-a is still loaded"
	assert_not_exists "$(patch_dir klpc_test_proc_a)"
	assert_eq "$CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
	load klpc-test-proc-a cmdline=fault-a
	disable_patch klpc_test_proc_a
	fault_check_before
}

fault_check_before() {
	assert_file_eq "$(patch_dir klpc_test_proc_a)/enabled" 0
	assert_eq "$CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
}

fault_sweep "remove-patch-module" klpc_module_going_notify
unload klpc-test-proc-a
