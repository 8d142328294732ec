#!/bin/sh
# was t-54-a-cb-no-target
# Callbacks, target modules never loaded (upstream "target module not
# present"): only vmlinux's callbacks run.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 0 klpc_test_cb_busy 0
cb_assert_cmdline "$CB_DEMO"
cb_disable "$CB_DEMO"
cb_assert_cmdline
cb_unload klpc-test-cb-demo

cb_expect <<'EOF'
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc: 'klpc_test_cb_demo': patching complete
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc_test_cb_demo: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo
EOF
unload klpc
