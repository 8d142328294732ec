#!/bin/sh
# was t-50-cb-target-first
# Callbacks, target module loaded before the patch (upstream "target module
# before livepatch"): enabling runs pre_patch for vmlinux and the module
# before the transition starts and post_patch after it; disabling runs
# pre_unpatch before and post_unpatch after.  klpc: the disabled patch
# stays registered until its module is removed.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load klpc-test-cb-mod
cb_load_patch klpc-test-cb-demo
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1 klpc_test_cb_busy 0
cb_assert_cmdline "$CB_DEMO"
cb_assert_mod "$CB_DEMO"

cb_disable "$CB_DEMO"
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0
cb_assert_cmdline
cb_assert_mod
cb_unload klpc-test-cb-demo
cb_assert_gone "$CB_DEMO"
cb_unload klpc-test-cb-mod

cb_expect <<'EOF'
% insmod klpc-test-cb-mod
klpc_test_cb_mod: init
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> live
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc_test_cb_demo: post_patch: klpc_test_cb_mod -> live
klpc: 'klpc_test_cb_demo': patching complete
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc_test_cb_demo: pre_unpatch: vmlinux
klpc_test_cb_demo: pre_unpatch: klpc_test_cb_mod -> live
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc_test_cb_demo: post_unpatch: klpc_test_cb_mod -> live
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
EOF
unload klpc
