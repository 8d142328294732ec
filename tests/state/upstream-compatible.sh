#!/bin/sh
# was t-69-c-state-compatible
# Compatible cumulative patches (upstream test-state.sh "compatible
# cumulative livepatches"): klpc-test-state3 takes the state over from
# klpc-test-state2 (same version), then a reloaded klpc-test-state2 takes
# it back from klpc-test-state3, each in pre_patch and post_patch.
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
cb_load_patch klpc-test-state3
st_assert_loglevel "$ST_MOTORMOUTH"
cb_unload klpc-test-state2
cb_load_patch klpc-test-state2
st_assert_loglevel "$ST_MOTORMOUTH"
cb_assert_state klpc_test_state3 0
cb_assert_state klpc_test_state2 1
cb_disable klpc_test_state2
st_assert_loglevel "$ST_LOGLEVEL"
cb_unload klpc-test-state2
cb_unload klpc-test-state3

cb_expect <<'EOF'
% insmod klpc-test-state2
klpc: enabling patch 'klpc_test_state2'
klpc_test_state2: pre_patch_callback: vmlinux
klpc_test_state2: allocate_loglevel_state: allocating space to store console_loglevel
klpc: 'klpc_test_state2': starting patching transition
klpc_test_state2: post_patch_callback: vmlinux
klpc_test_state2: fix_console_loglevel: fixing console_loglevel
klpc: 'klpc_test_state2': patching complete
% insmod klpc-test-state3
klpc: enabling patch 'klpc_test_state3'
klpc_test_state3: pre_patch_callback: vmlinux
klpc_test_state3: allocate_loglevel_state: space to store console_loglevel already allocated
klpc: 'klpc_test_state3': starting patching transition
klpc: patch 'klpc_test_state2' replaced by 'klpc_test_state3'
klpc_test_state3: post_patch_callback: vmlinux
klpc_test_state3: fix_console_loglevel: taking over the console_loglevel change
klpc: 'klpc_test_state3': patching complete
% rmmod klpc-test-state2
% insmod klpc-test-state2
klpc: enabling patch 'klpc_test_state2'
klpc_test_state2: pre_patch_callback: vmlinux
klpc_test_state2: allocate_loglevel_state: space to store console_loglevel already allocated
klpc: 'klpc_test_state2': starting patching transition
klpc: patch 'klpc_test_state3' replaced by 'klpc_test_state2'
klpc_test_state2: post_patch_callback: vmlinux
klpc_test_state2: fix_console_loglevel: taking over the console_loglevel change
klpc: 'klpc_test_state2': patching complete
% echo 0 > /sys/kernel/klpc/klpc_test_state2/enabled
klpc_test_state2: pre_unpatch_callback: vmlinux
klpc_test_state2: restore_console_loglevel: restoring console_loglevel
klpc: 'klpc_test_state2': starting unpatching transition
klpc_test_state2: post_unpatch_callback: vmlinux
klpc_test_state2: free_loglevel_state: freeing space for the stored console_loglevel
klpc: 'klpc_test_state2': unpatching complete
% rmmod klpc-test-state2
% rmmod klpc-test-state3
EOF
