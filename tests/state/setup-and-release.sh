#!/bin/sh
# was t-65-state-basic
# System state, as upstream's test-state.sh "system state modification":
# a patch declaring a state sets it up in pre_patch and releases it in
# post_unpatch, with every callback in upstream's order.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
dmesg_mark
load klpc-test-proc-a cmdline=state-a state=1
wait_transition klpc_test_proc_a
assert_module_log klpc_test_proc_a "pre_patch" "state: set up v1" "post_patch"
assert_eq state-a "$(cat /proc/cmdline)" "/proc/cmdline"

dmesg_mark
disable_patch klpc_test_proc_a
assert_module_log klpc_test_proc_a "pre_unpatch" "post_unpatch" \
	"state: released v1"
unload klpc-test-proc-a
