#!/bin/sh
# was t-59-a-cb-replace
# Callbacks with atomic replace (upstream "atomic replace"): the replace
# patch's callbacks run, the replaced patch's unpatch callbacks never do;
# the replaced patch leaves the stacks before the replace patch's
# post_patch runs, as upstream.
# klpc: once the replace patch's transition is complete, the replaced
# patch reads enabled 0, cannot be enabled again and can be removed while
# the replace patch stays; disabling the replace patch then leaves the
# original function, not the replaced patch's.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load_patch klpc-test-cb-demo
cb_load_patch klpc-test-cb-demo2 replace=1
assert_file_eq "$(patch_dir "$CB_DEMO2")/replace" 1
cb_assert_state "$CB_DEMO2" 1 vmlinux 1
cb_assert_state "$CB_DEMO" 0 vmlinux 0
cb_assert_cmdline "$CB_DEMO2"

cb_write_error "$(patch_dir "$CB_DEMO")/enabled" 1 EINVAL
cb_unload klpc-test-cb-demo
cb_assert_gone "$CB_DEMO"
cb_assert_cmdline "$CB_DEMO2"
cb_disable "$CB_DEMO2"
cb_assert_cmdline
cb_unload klpc-test-cb-demo2

cb_expect <<'EOF'
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc: 'klpc_test_cb_demo': patching complete
% insmod klpc-test-cb-demo2 replace=1
klpc: enabling patch 'klpc_test_cb_demo2'
klpc_test_cb_demo2: pre_patch: vmlinux
klpc: 'klpc_test_cb_demo2': starting patching transition
klpc: patch 'klpc_test_cb_demo' replaced by 'klpc_test_cb_demo2'
klpc_test_cb_demo2: post_patch: vmlinux
klpc: 'klpc_test_cb_demo2': patching complete
% echo 1 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
% rmmod klpc-test-cb-demo
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo2/enabled
klpc_test_cb_demo2: pre_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': starting unpatching transition
klpc_test_cb_demo2: post_unpatch: vmlinux
klpc: 'klpc_test_cb_demo2': unpatching complete
% rmmod klpc-test-cb-demo2
EOF
unload klpc
