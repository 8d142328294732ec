#!/bin/sh
# was t-85-0-fault-load
# Fault sweep (lib-fault.sh), loads of patch modules: a patch of vmlinux
# functions, and a patch of a module object whose module is loaded. Every
# allocation each load makes fails in turn: the load fails with ENOMEM and
# leaves nothing behind, or succeeds with the patch working.
# klpc-timeout: 600
# klpc-weight: 590
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

klpc_core_load
CMDLINE=$(cat /proc/cmdline)

# --- a patch of vmlinux functions ---
fault_op() {
	klpc_insmod "$KLPC_MODDIR/klpc-test-proc-a.ko" cmdline=fault-a
}

fault_check_done() {
	assert_file_eq "$(patch_dir klpc_test_proc_a)/enabled" 1
	assert_eq fault-a "$(cat /proc/cmdline)" "/proc/cmdline once loaded"
	disable_patch klpc_test_proc_a
	unload klpc-test-proc-a
	fault_check_before
}

fault_check_before() {
	! is_loaded klpc-test-proc-a || die "klpc-test-proc-a is loaded"
	assert_not_exists "$(patch_dir klpc_test_proc_a)"
	assert_eq "$CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
}

fault_sweep "load-vmlinux" klpc_enable_patch

# --- a patch of a loaded module's functions ---
load klpc-cm-target
write_sysfs 1 /proc/klpc_cm_sleep

fault_op() {
	klpc_insmod "$KLPC_MODDIR/klpc-cm-patch.ko"
}

fault_check_done() {
	assert_file_eq "$(patch_dir klpc_cm_patch)/enabled" 1
	assert_file_eq "$(patch_dir klpc_cm_patch)/klpc_cm_target/patched" 1
	assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_sleeper() once loaded"
	disable_patch klpc_cm_patch
	unload klpc-cm-patch
	fault_check_before
}

fault_check_before() {
	! is_loaded klpc-cm-patch || die "klpc-cm-patch is loaded"
	assert_not_exists "$(patch_dir klpc_cm_patch)"
	assert_eq "slept v1" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_sleeper() unpatched"
}

fault_sweep "load-module-object" klpc_enable_patch
unload klpc-cm-target
