#!/bin/sh
# was t-58-cb-multi-patches
# Callbacks of two stacked patches (upstream "multiple livepatches"): each
# patch's callbacks run with its own transitions, and /proc/cmdline shows
# the top enabled patch.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo
cb_assert_cmdline "$CB_DEMO"
cb_load_patch klpc-test-cb-demo2
cb_assert_state "$CB_DEMO" 1 vmlinux 1
cb_assert_state "$CB_DEMO2" 1 vmlinux 1
cb_assert_cmdline "$CB_DEMO2"
cb_disable "$CB_DEMO2"
cb_assert_cmdline "$CB_DEMO"
cb_disable "$CB_DEMO"
cb_assert_cmdline
cb_unload klpc-test-cb-demo2
cb_unload klpc-test-cb-demo

cb_expect <<'EOF'
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc: 'klpc_test_cb_demo': patching complete
% insmod klpc-test-cb-demo2
klpc: enabling patch 'klpc_test_cb_demo2'
klpc_test_cb_demo2: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo2': starting patching transition
klpc_test_cb_demo2: post_patch: vmlinux
klpc: 'klpc_test_cb_demo2': patching complete
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo2/enabled
klpc_test_cb_demo2: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': starting unpatching transition
klpc_test_cb_demo2: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': unpatching complete
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc_test_cb_demo: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo2
% rmmod klpc-test-cb-demo
EOF
unload klpc
