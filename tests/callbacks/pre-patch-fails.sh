#!/bin/sh
# was t-55-a-cb-pre-patch-fail
# A failing vmlinux pre_patch (upstream "pre-patch callback -ENODEV"): the
# patch module's insmod fails with that errno, no other callback runs (no
# post_unpatch for the object whose pre_patch failed), and nothing is
# patched or registered.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load klpc-test-cb-mod
cb_load_error ENODEV klpc-test-cb-demo pre_patch_ret=-19
cb_assert_gone "$CB_DEMO"
assert_eq "" "$(ls "$KLPC_SYSFS")" "patches registered"
cb_assert_cmdline
cb_assert_mod
cb_unload klpc-test-cb-mod

cb_expect <<'EOF'
% insmod klpc-test-cb-mod
klpc_test_cb_mod: init
% insmod klpc-test-cb-demo pre_patch_ret=-19
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc: patch 'klpc_test_cb_demo': pre-patch callback failed for object 'vmlinux' (-19)
klpc: failed to enable patch 'klpc_test_cb_demo'
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
EOF
unload klpc
