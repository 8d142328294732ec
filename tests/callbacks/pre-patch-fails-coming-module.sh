#!/bin/sh
# was t-55-b-cb-coming-pre-patch-fail
# A failing pre_patch for a module that loads later (upstream "module_coming
# + pre-patch callback -ENODEV"): klpc refuses the module's load with that
# errno and says so; no other callback runs for that object.  klpc extra:
# nothing of the refused load is left behind, so the module loads and is
# patched once pre_patch succeeds again; disabling then runs only
# vmlinux's unpatch callbacks, as upstream.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo
cb_param klpc-test-cb-demo pre_patch_ret -19
cb_load_error ENODEV klpc-test-cb-mod
assert_dmesg_has "klpc: patch '$CB_DEMO' failed for module 'klpc_test_cb_mod', refusing to load module 'klpc_test_cb_mod'"
assert_not_exists /proc/klpc_cb_mod
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 0

cb_param klpc-test-cb-demo pre_patch_ret 0
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1
cb_assert_mod "$CB_DEMO"
cb_unload klpc-test-cb-mod
cb_disable "$CB_DEMO"
cb_unload klpc-test-cb-demo

cb_expect <<'EOF'
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc: 'klpc_test_cb_demo': patching complete
% echo -19 > /sys/module/klpc_test_cb_demo/parameters/pre_patch_ret
% insmod klpc-test-cb-mod
klpc: applying patch 'klpc_test_cb_demo' to loading module 'klpc_test_cb_mod'
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> coming
klpc: patch 'klpc_test_cb_demo': pre-patch callback failed for object 'klpc_test_cb_mod' (-19)
klpc: patch 'klpc_test_cb_demo' failed for module 'klpc_test_cb_mod', refusing to load module 'klpc_test_cb_mod'
% echo 0 > /sys/module/klpc_test_cb_demo/parameters/pre_patch_ret
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
