#!/bin/sh
# was t-85-2-fault-sysfs
# Fault sweep (lib-fault.sh), writes to a patch's 'enabled': enabling a
# disabled patch again, and disabling it. Every allocation each write makes
# fails in turn: the write fails with ENOMEM and the patch stays as it
# was, or it succeeds and the patch is in the new state.
# klpc-timeout: 600
# klpc-weight: 510
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

fault_proc_a_load
wait_transition klpc_test_proc_a

# --- disable ---
fault_op() {
	write_sysfs 0 "$FAULT_PATCH/enabled"
}

fault_check_done() {
	fault_proc_a_is 0
	enable_patch klpc_test_proc_a
}

fault_check_before() {
	fault_proc_a_is 1
}

fault_sweep "disable" klpc_set_enabled

# --- enable again ---
disable_patch klpc_test_proc_a

fault_op() {
	write_sysfs 1 "$FAULT_PATCH/enabled"
}

fault_check_done() {
	fault_proc_a_is 1
	disable_patch klpc_test_proc_a
}

fault_check_before() {
	fault_proc_a_is 0
}

fault_sweep "re-enable" klpc_set_enabled
unload klpc-test-proc-a
