#!/bin/sh
# was t-54-b-cb-reenable
# Callbacks when a disabled patch is enabled again through sysfs (klpc
# only: upstream 6.1 unregisters a patch when it is disabled).  A module
# loading while the patch is disabled gets no callback.  A pre_patch that
# fails for that module makes the write fail with its errno, runs
# post_unpatch for vmlinux only (whose pre_patch succeeded) and leaves the
# patch disabled, its module unpinned; once pre_patch succeeds, every
# loaded object gets its callbacks as on a first enable.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
d=$(patch_dir "$CB_DEMO")
refcnt=/sys/module/$CB_DEMO/refcnt
cb_load_patch klpc-test-cb-demo
cb_disable "$CB_DEMO"
cb_load klpc-test-cb-mod
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0
cb_assert_mod
assert_file_eq "$refcnt" 0

cb_param klpc-test-cb-demo fail_obj klpc_test_cb_mod
cb_param klpc-test-cb-demo pre_patch_ret -19
cb_write_error "$d/enabled" 1 ENODEV
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_mod 0
assert_file_eq "$refcnt" 0
cb_assert_cmdline
cb_assert_mod

cb_param klpc-test-cb-demo pre_patch_ret 0
cb_enable "$CB_DEMO"
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_mod 1
assert_file_eq "$refcnt" 1
cb_assert_cmdline "$CB_DEMO"
cb_assert_mod "$CB_DEMO"
cb_disable "$CB_DEMO"
cb_unload klpc-test-cb-mod
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
% insmod klpc-test-cb-mod
klpc_test_cb_mod: init
% echo klpc_test_cb_mod > /sys/module/klpc_test_cb_demo/parameters/fail_obj
% echo -19 > /sys/module/klpc_test_cb_demo/parameters/pre_patch_ret
% echo 1 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> live
klpc: patch 'klpc_test_cb_demo': pre-patch callback failed for object 'klpc_test_cb_mod' (-19)
klpc: failed to enable patch 'klpc_test_cb_demo'
klpc_test_cb_demo: post_unpatch: vmlinux
% echo 0 > /sys/module/klpc_test_cb_demo/parameters/pre_patch_ret
% echo 1 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
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
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
% rmmod klpc-test-cb-demo
EOF
unload klpc
