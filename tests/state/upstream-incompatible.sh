#!/bin/sh
# was t-69-d-state-incompatible
# Incompatible cumulative patches (upstream test-state.sh "incompatible
# cumulative livepatches"): klpc-test-state, with version 1 of the state,
# cannot replace klpc-test-state2, which set up version 2; the refused
# load runs no callback and leaves the change in place.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"
# shellcheck source=tests/lib-state.sh
. "${0%/*}/../lib-state.sh"

st_start
cb_load_patch klpc-test-state2
st_assert_loglevel "$ST_MOTORMOUTH"
cb_load_error EINVAL klpc-test-state
cb_assert_gone klpc_test_state
cb_assert_state klpc_test_state2 1
st_assert_loglevel "$ST_MOTORMOUTH"
cb_disable klpc_test_state2
st_assert_loglevel "$ST_LOGLEVEL"
cb_unload klpc-test-state2

cb_expect <<'EOF'
% insmod klpc-test-state2
klpc: enabling patch 'klpc_test_state2'
klpc_test_state2: pre_patch_callback: vmlinux
klpc_test_state2: allocate_loglevel_state: allocating space to store console_loglevel
klpc: 'klpc_test_state2': starting patching transition
klpc_test_state2: post_patch_callback: vmlinux
klpc_test_state2: fix_console_loglevel: fixing console_loglevel
klpc: 'klpc_test_state2': patching complete
% insmod klpc-test-state
klpc: patch 'klpc_test_state': not compatible with patch 'klpc_test_state2': system state 1 version 2 is newer than this patch's (-EINVAL)
% echo 0 > /sys/kernel/klpc/klpc_test_state2/enabled
klpc_test_state2: pre_unpatch_callback: vmlinux
klpc_test_state2: restore_console_loglevel: restoring console_loglevel
klpc: 'klpc_test_state2': starting unpatching transition
klpc_test_state2: post_unpatch_callback: vmlinux
klpc_test_state2: free_loglevel_state: freeing space for the stored console_loglevel
klpc: 'klpc_test_state2': unpatching complete
% rmmod klpc-test-state2
EOF
