#!/bin/sh
# Fault sweep (lib-fault.sh), writes to a patch's 'enabled': enabling a
# disabled patch again, and disabling it. Every allocation each write makes
# fails in turn: the write fails with ENOMEM and the patch stays as it
# was, or it succeeds and the patch is in the new state.
# klpc-timeout: 600
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/lib-fault.sh"

klpc_core_load
CMDLINE=$(cat /proc/cmdline)
load klpc-test-proc-a cmdline=fault-a
wait_transition klpc_test_proc_a
D=$(patch_dir klpc_test_proc_a)

# patched STATE: 'enabled' reads STATE, and /proc/cmdline agrees
patched() {
	assert_file_eq "$D/enabled" "$1"
	if [ "$1" = 1 ]; then
		assert_eq fault-a "$(cat /proc/cmdline)" "/proc/cmdline patched"
	else
		assert_eq "$CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
	fi
}

# --- disable ---
fault_op() {
	write_sysfs 0 "$D/enabled"
}

fault_check_done() {
	patched 0
	enable_patch klpc_test_proc_a
}

fault_check_before() {
	patched 1
}

fault_sweep "disable" klpc_set_enabled

# --- enable again ---
disable_patch klpc_test_proc_a

fault_op() {
	write_sysfs 1 "$D/enabled"
}

fault_check_done() {
	patched 1
	disable_patch klpc_test_proc_a
}

fault_check_before() {
	patched 0
}

fault_sweep "re-enable" klpc_set_enabled
unload klpc-test-proc-a
