#!/bin/sh
# was t-53-cb-coming-going
# Callbacks, target module loaded after the patch and removed before it is
# disabled (upstream "module_coming and module_going notifiers"): the
# module gets its patch callbacks on load and its unpatch callbacks on
# removal; disabling runs only vmlinux's.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1
cb_assert_mod "$CB_DEMO"
cb_unload klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 0
cb_disable "$CB_DEMO"
cb_unload klpc-test-cb-demo

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
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
klpc_test_cb_demo: pre_unpatch: klpc_test_cb_mod -> going
klpc: reverting patch 'klpc_test_cb_demo' on unloading module 'klpc_test_cb_mod'
klpc_test_cb_demo: post_unpatch: klpc_test_cb_mod -> going
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc_test_cb_demo: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo
EOF
unload klpc
