#!/bin/sh
# was t-67-state-compatible
# Compatible cumulative patches, as upstream's test-state.sh: replace
# patches may take a state over at the same or a newer version, and the
# newest one hands it on.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-test-proc-a cmdline=state-a state=1 replace=1
wait_transition klpc_test_proc_a

dmesg_mark
load klpc-test-proc-b cmdline=state-b state=2 replace=1
wait_transition klpc_test_proc_b
assert_module_log klpc_test_proc_b "pre_patch" \
	"state: taking over v1 from klpc_test_proc_a" "post_patch"
unload klpc-test-proc-a

dmesg_mark
load klpc-test-proc-c cmdline=state-c state=2 replace=1
wait_transition klpc_test_proc_c
assert_module_log klpc_test_proc_c "pre_patch" \
	"state: taking over v2 from klpc_test_proc_b" "post_patch"
assert_module_log klpc_test_proc_b
unload klpc-test-proc-b

dmesg_mark
disable_patch klpc_test_proc_c
assert_module_log klpc_test_proc_c "pre_unpatch" "post_unpatch" \
	"state: released v2"
unload klpc-test-proc-c
