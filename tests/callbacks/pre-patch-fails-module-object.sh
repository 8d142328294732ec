#!/bin/sh
# was t-55-c-cb-pre-patch-fail-module
# A pre_patch that fails for a module object after vmlinux's succeeded, on
# enable (klpc extra, callbacks.rst: "only the post-unpatch callback will
# be called" for an object whose pre_patch succeeded when the transition
# never started): insmod fails with the callback's errno (ERANGE here, to
# see it is passed through), vmlinux gets post_unpatch, the module object
# nothing more; nothing is patched or registered.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
cb_load klpc-test-cb-mod
cb_load_error ERANGE klpc-test-cb-demo pre_patch_ret=-34 fail_obj=klpc_test_cb_mod
cb_assert_gone "$CB_DEMO"
assert_eq "" "$(ls "$KLPC_SYSFS")" "patches registered"
cb_assert_cmdline
cb_assert_mod
cb_unload klpc-test-cb-mod

cb_expect <<'EOF'
% insmod klpc-test-cb-mod
klpc_test_cb_mod: init
% insmod klpc-test-cb-demo pre_patch_ret=-34 fail_obj=klpc_test_cb_mod
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_mod -> live
klpc: patch 'klpc_test_cb_demo': pre-patch callback failed for object 'klpc_test_cb_mod' (-34)
klpc: failed to enable patch 'klpc_test_cb_demo'
klpc_test_cb_demo: post_unpatch: vmlinux
% rmmod klpc-test-cb-mod
klpc_test_cb_mod: exit
EOF
unload klpc
