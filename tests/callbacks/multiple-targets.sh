#!/bin/sh
# was t-56-cb-multi-targets
# Callbacks with two target modules (upstream "multiple target modules"):
# the busy module, whose work function has run and returned, is loaded
# before the patch and gets its callbacks with vmlinux; the other module
# gets its own when it loads and goes.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load klpc-test-cb-busy block_transition=0
cb_load_patch klpc-test-cb-demo
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 0 klpc_test_cb_busy 1
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1 klpc_test_cb_busy 1
cb_unload klpc-test-cb-mod
cb_disable "$CB_DEMO"
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0 klpc_test_cb_busy 0
cb_unload klpc-test-cb-demo
cb_unload klpc-test-cb-busy

cb_expect <<'EOF'
% insmod klpc-test-cb-busy block_transition=0
klpc_test_cb_busy: init
klpc_test_cb_busy: work function enter
klpc_test_cb_busy: work function exit
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc_test_cb_demo: post_patch: klpc_test_cb_busy -> live
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
klpc_test_cb_demo: pre_unpatch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc_test_cb_demo: post_unpatch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo
% rmmod klpc-test-cb-busy
klpc_test_cb_busy: exit
EOF
unload klpc
