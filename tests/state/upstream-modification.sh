#!/bin/sh
# was t-69-a-state-modification
# System state modification (upstream test-state.sh "system state
# modification"): klpc-test-state sets aside space in pre_patch, raises
# console_loglevel in post_patch, restores it in pre_unpatch and frees the
# space in post_unpatch.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"
# shellcheck source=tests/lib-state.sh
. "${0%/*}/../lib-state.sh"

st_start
cb_load_patch klpc-test-state
st_assert_loglevel "$ST_MOTORMOUTH"
cb_disable klpc_test_state
st_assert_loglevel "$ST_LOGLEVEL"
cb_unload klpc-test-state

cb_expect <<'EOF'
% insmod klpc-test-state
klpc: enabling patch 'klpc_test_state'
klpc_test_state: pre_patch_callback: vmlinux
klpc_test_state: allocate_loglevel_state: allocating space to store console_loglevel
klpc: 'klpc_test_state': starting patching transition
klpc_test_state: post_patch_callback: vmlinux
klpc_test_state: fix_console_loglevel: fixing console_loglevel
klpc: 'klpc_test_state': patching complete
% echo 0 > /sys/kernel/klpc/klpc_test_state/enabled
klpc_test_state: pre_unpatch_callback: vmlinux
klpc_test_state: restore_console_loglevel: restoring console_loglevel
klpc: 'klpc_test_state': starting unpatching transition
klpc_test_state: post_unpatch_callback: vmlinux
klpc_test_state: free_loglevel_state: freeing space for the stored console_loglevel
klpc: 'klpc_test_state': unpatching complete
% rmmod klpc-test-state
EOF
