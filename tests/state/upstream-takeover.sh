#!/bin/sh
# was t-69-b-state-takeover
# Taking over a system state (upstream test-state.sh "taking over system
# state modification"): klpc-test-state2, a replace patch, finds
# klpc-test-state's state with klp_get_prev_state() in pre_patch and, as
# upstream, again in post_patch, where it takes the saved console_loglevel
# over.  The replaced patch's callbacks do not run; it stays registered
# (enabled 0) until its module goes.
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
cb_load_patch klpc-test-state2
st_assert_loglevel "$ST_MOTORMOUTH"
cb_assert_state klpc_test_state 0
cb_assert_state klpc_test_state2 1
cb_unload klpc-test-state
cb_disable klpc_test_state2
st_assert_loglevel "$ST_LOGLEVEL"
cb_unload klpc-test-state2

cb_expect <<'EOF'
% insmod klpc-test-state
klpc: enabling patch 'klpc_test_state'
klpc_test_state: pre_patch_callback: vmlinux
klpc_test_state: allocate_loglevel_state: allocating space to store console_loglevel
klpc: 'klpc_test_state': starting patching transition
klpc_test_state: post_patch_callback: vmlinux
klpc_test_state: fix_console_loglevel: fixing console_loglevel
klpc: 'klpc_test_state': patching complete
% insmod klpc-test-state2
klpc: enabling patch 'klpc_test_state2'
klpc_test_state2: pre_patch_callback: vmlinux
klpc_test_state2: allocate_loglevel_state: space to store console_loglevel already allocated
klpc: 'klpc_test_state2': starting patching transition
klpc: patch 'klpc_test_state' replaced by 'klpc_test_state2'
klpc_test_state2: post_patch_callback: vmlinux
klpc_test_state2: fix_console_loglevel: taking over the console_loglevel change
klpc: 'klpc_test_state2': patching complete
% rmmod klpc-test-state
% echo 0 > /sys/kernel/klpc/klpc_test_state2/enabled
klpc_test_state2: pre_unpatch_callback: vmlinux
klpc_test_state2: restore_console_loglevel: restoring console_loglevel
klpc: 'klpc_test_state2': starting unpatching transition
klpc_test_state2: post_unpatch_callback: vmlinux
klpc_test_state2: free_loglevel_state: freeing space for the stored console_loglevel
klpc: 'klpc_test_state2': unpatching complete
% rmmod klpc-test-state2
EOF
