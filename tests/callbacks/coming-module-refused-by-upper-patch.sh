#!/bin/sh
# was t-55-d-cb-coming-fail-stacked
# A module refused by the upper of two patches (klpc extra; upstream
# reverts the same way): the lower patch, applied to the coming module
# first, is reverted from it, with its pre_unpatch and post_unpatch;
# once the upper's pre_patch succeeds, both apply and the upper's function
# is the one that runs; removing the module reverts both, in stack order.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo2 with_mod=1
cb_load_patch klpc-test-cb-demo pre_patch_ret=-19 fail_obj=klpc_test_cb_mod
cb_load_error ENODEV klpc-test-cb-mod
cb_assert_state "$CB_DEMO2" 1 vmlinux 1 klpc_test_cb_mod 0
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 0

cb_param klpc-test-cb-demo pre_patch_ret 0
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO2" 1 vmlinux 1 klpc_test_cb_mod 1
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1
cb_assert_mod "$CB_DEMO"
cb_unload klpc-test-cb-mod
cb_disable "$CB_DEMO"
cb_disable "$CB_DEMO2"
cb_unload klpc-test-cb-demo
cb_unload klpc-test-cb-demo2

cb_expect <<'EOF'
% insmod klpc-test-cb-demo2 with_mod=1
klpc: enabling patch 'klpc_test_cb_demo2'
klpc_test_cb_demo2: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo2': starting patching transition
klpc_test_cb_demo2: post_patch: vmlinux
klpc: 'klpc_test_cb_demo2': patching complete
% insmod klpc-test-cb-demo pre_patch_ret=-19 fail_obj=klpc_test_cb_mod
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc: 'klpc_test_cb_demo': patching complete
% insmod klpc-test-cb-mod
klpc: applying patch 'klpc_test_cb_demo2' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo2: pre_patch: klpc_test_cb_mod -> coming
klpc_test_cb_demo2: post_patch: klpc_test_cb_mod -> coming
klpc: applying patch 'klpc_test_cb_demo' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> coming
klpc: patch 'klpc_test_cb_demo': pre-patch callback failed for object 'klpc_test_cb_mod' (-19)
klpc: patch 'klpc_test_cb_demo' failed for module 'klpc_test_cb_mod', refusing to load module 'klpc_test_cb_mod'
klpc_test_cb_demo2: pre_unpatch: klpc_test_cb_mod -> coming
klpc: reverting patch 'klpc_test_cb_demo2' on unloading module 'klpc_test_cb_mod'
klpc_test_cb_demo2: post_unpatch: klpc_test_cb_mod -> coming
% echo 0 > /sys/module/klpc_test_cb_demo/parameters/pre_patch_ret
% insmod klpc-test-cb-mod
klpc: applying patch 'klpc_test_cb_demo2' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo2: pre_patch: klpc_test_cb_mod -> coming
klpc_test_cb_demo2: post_patch: klpc_test_cb_mod -> coming
klpc: applying patch 'klpc_test_cb_demo' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> coming
klpc_test_cb_demo: post_patch: klpc_test_cb_mod -> coming
klpc_test_cb_mod: init
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
klpc_test_cb_demo2: pre_unpatch: klpc_test_cb_mod -> going
klpc: reverting patch 'klpc_test_cb_demo2' on unloading module 'klpc_test_cb_mod'
klpc_test_cb_demo2: post_unpatch: klpc_test_cb_mod -> going
klpc_test_cb_demo: pre_unpatch: klpc_test_cb_mod -> going
klpc: reverting patch 'klpc_test_cb_demo' on unloading module 'klpc_test_cb_mod'
klpc_test_cb_demo: post_unpatch: klpc_test_cb_mod -> going
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc_test_cb_demo: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo': unpatching complete
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo2/enabled
klpc_test_cb_demo2: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': starting unpatching transition
klpc_test_cb_demo2: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': unpatching complete
% rmmod klpc-test-cb-demo
% rmmod klpc-test-cb-demo2
EOF
unload klpc
