#!/bin/sh
# was t-57-a-cb-busy
# Callbacks while a transition is held open (upstream "busy target
# module"): a kworker sleeps in the busy module's patched work function.
# A module loading meanwhile gets pre_patch but no post_patch; removing it
# runs post_unpatch but no pre_unpatch; disabling reverses the transition,
# which runs no pre_unpatch and, at its end, post_unpatch for the objects
# whose pre_patch ran.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
d=$(patch_dir "$CB_DEMO")
cb_load klpc-test-cb-busy block_transition=1
cb_load klpc-test-cb-demo
sleep 1
assert_file_eq "$d/transition" 1
tasks_blocking | grep -q ' klpc_cb_busy_work_func$' ||
	die "no task blocked in klpc_cb_busy_work_func: $(tasks_blocking)"

cb_load klpc-test-cb-mod
assert_file_eq "$d/klpc_test_cb_mod/patched" 1
cb_unload klpc-test-cb-mod
assert_file_eq "$d/transition" 1

cb_write "$d/enabled" 0
wait_transition "$CB_DEMO" 30
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0 klpc_test_cb_busy 0
cb_unload klpc-test-cb-demo
cb_unload klpc-test-cb-busy

cb_expect <<'EOF'
% insmod klpc-test-cb-busy block_transition=1
klpc_test_cb_busy: init
klpc_test_cb_busy: work function enter
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': starting patching transition
% insmod klpc-test-cb-mod
klpc: applying patch 'klpc_test_cb_demo' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> coming
klpc_test_cb_mod: init
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
klpc: reverting patch 'klpc_test_cb_demo' on unloading module 'klpc_test_cb_mod'
klpc_test_cb_demo: post_unpatch: klpc_test_cb_mod -> going
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc: 'klpc_test_cb_demo': reversing transition from patching
klpc_test_cb_demo: post_unpatch: vmlinux
klpc_test_cb_demo: post_unpatch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo
% rmmod klpc-test-cb-busy
klpc_test_cb_busy: work function exit
klpc_test_cb_busy: exit
EOF
unload klpc
