#!/bin/sh
# was t-51-cb-coming
# Callbacks, target module loaded after the patch (upstream "module_coming
# notifier"): enabling runs only vmlinux's callbacks; the module's
# pre_patch and post_patch run when it loads, while it is COMING and
# before its init; disabling runs both objects' unpatch callbacks.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 0
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1
cb_assert_mod "$CB_DEMO"

cb_disable "$CB_DEMO"
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0
cb_assert_mod
cb_unload klpc-test-cb-demo
cb_unload klpc-test-cb-mod

cb_expect <<'EOF'
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc: 'klpc_test_cb_demo': patching complete
% insmod klpc-test-cb-mod
klpc: applying patch 'klpc_test_cb_demo' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> coming
klpc_test_cb_demo: post_patch: klpc_test_cb_mod -> coming
klpc_test_cb_mod: init
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
