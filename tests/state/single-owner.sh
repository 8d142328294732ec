#!/bin/sh
# was t-6a-state-owner
# A system state's record has one owner, who frees it.  A stacked patch
# declaring the same state shares the record of the patch below and must
# leave it alone; a replace patch takes it over only once its transition
# has completed (in post_patch, as upstream's test_klp_state2 does), so a
# reversed replace leaves it with the patch below.  Found by the torture
# driver (seed 4): the record was freed twice, and the reused memory then
# held an RCU callback, which ran poison (a general protection fault).
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

# 1. a stacked patch with the state, disabled before the owner
klpc_core_load
load klpc-test-proc-a cmdline=state-a state=1
wait_transition klpc_test_proc_a
load klpc-test-proc-b cmdline=state-b state=1
wait_transition klpc_test_proc_b
dmesg_mark
disable_patch klpc_test_proc_b
assert_module_log klpc_test_proc_b "pre_unpatch" "post_unpatch"
unload klpc-test-proc-b
dmesg_mark
disable_patch klpc_test_proc_a
assert_module_log klpc_test_proc_a "pre_unpatch" "post_unpatch" \
	"state: released v1"
unload klpc-test-proc-a

# 2. a replace patch with the state, reversed: the sleeper, asleep in
# klpc-cm-patch's new code, holds the replace patch's transition open
load klpc-cm-target
load klpc-test-proc-a cmdline=state-a state=1
wait_transition klpc_test_proc_a
load klpc-cm-patch
wait_transition klpc_cm_patch
start_sleeper k
load klpc-test-proc-b cmdline=state-b state=1 replace=1
sleep 1
assert_file_eq "$(patch_dir klpc_test_proc_b)/transition" 1
dmesg_mark
expect_write_ok "$(patch_dir klpc_test_proc_b)/enabled" 0
wait_transition klpc_test_proc_b
assert_module_log klpc_test_proc_b "post_unpatch"
unload klpc-test-proc-b
release_sleeper
assert_eq state-a "$(cat /proc/cmdline)" "/proc/cmdline after the reverse"
disable_patch klpc_cm_patch
dmesg_mark
disable_patch klpc_test_proc_a
assert_module_log klpc_test_proc_a "pre_unpatch" "post_unpatch" \
	"state: released v1"
unload klpc-test-proc-a
unload klpc-cm-patch
unload klpc-cm-target
