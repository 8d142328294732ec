#!/bin/sh
# was t-59-b-cb-replace-module
# Atomic replace of a patch that has callbacks on a loaded module (klpc
# extra): replacing runs none of the replaced patch's callbacks and takes
# its change to the module away (the replace patch does not carry it);
# afterwards the module goes and comes back without any callback, since
# a replaced patch no longer follows its modules.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load klpc-test-cb-mod
cb_load_patch klpc-test-cb-demo
cb_assert_mod "$CB_DEMO"
cb_load_patch klpc-test-cb-demo2 replace=1
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0
cb_assert_state "$CB_DEMO2" 1 vmlinux 1
assert_not_exists "$(patch_dir "$CB_DEMO2")/klpc_test_cb_mod"
cb_assert_mod
cb_assert_cmdline "$CB_DEMO2"

cb_unload klpc-test-cb-mod
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0
cb_assert_mod
cb_unload klpc-test-cb-mod
cb_unload klpc-test-cb-demo
cb_disable "$CB_DEMO2"
cb_unload klpc-test-cb-demo2

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
% insmod klpc-test-cb-demo2 replace=1
klpc: enabling patch 'klpc_test_cb_demo2'
klpc_test_cb_demo2: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo2': starting patching transition
klpc: patch 'klpc_test_cb_demo' replaced by 'klpc_test_cb_demo2'
klpc_test_cb_demo2: post_patch: vmlinux
klpc: 'klpc_test_cb_demo2': patching complete
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
% insmod klpc-test-cb-mod
klpc_test_cb_mod: init
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
% rmmod klpc-test-cb-demo
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo2/enabled
klpc_test_cb_demo2: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': starting unpatching transition
klpc_test_cb_demo2: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': unpatching complete
% rmmod klpc-test-cb-demo2
EOF
unload klpc
