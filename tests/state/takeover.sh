#!/bin/sh
# was t-66-state-takeover
# System state taken over, as upstream's test-state.sh "taking over
# system state modification": a replace patch with the same state finds
# the older patch's with klpc_get_prev_state() and takes its data; the
# replaced patch's callbacks do not run.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-test-proc-a cmdline=state-a state=1
wait_transition klpc_test_proc_a

dmesg_mark
load klpc-test-proc-b cmdline=state-b state=1 replace=1
wait_transition klpc_test_proc_b
assert_module_log klpc_test_proc_b "pre_patch" \
	"state: taking over v1 from klpc_test_proc_a" "post_patch"
assert_module_log klpc_test_proc_a
assert_eq state-b "$(cat /proc/cmdline)" "/proc/cmdline"
assert_file_eq "$(patch_dir klpc_test_proc_a)/enabled" 0
unload klpc-test-proc-a

dmesg_mark
disable_patch klpc_test_proc_b
assert_module_log klpc_test_proc_b "pre_unpatch" "post_unpatch" \
	"state: released v1"
unload klpc-test-proc-b
