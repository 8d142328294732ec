#!/bin/sh
# was t-69-e-state-disabled-below
# A disabled patch holds no state (klpc extra: upstream frees a disabled
# patch, klpc keeps it registered).  klpc-test-state2 is disabled, its
# post_unpatch frees the space of the saved console_loglevel; the replace
# patch klpc-test-state3 then loads above it, and klp_get_prev_state()
# must not offer it that state, neither in pre_patch nor in post_patch,
# although the transition retires klpc-test-state2 too.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"
# shellcheck source=tests/lib-state.sh
. "${0%/*}/../lib-state.sh"

st_start
cb_load_patch klpc-test-state2
cb_disable klpc_test_state2
st_assert_loglevel "$ST_LOGLEVEL"
cb_assert_state klpc_test_state2 0
cb_load_patch klpc-test-state3
st_assert_loglevel "$ST_MOTORMOUTH"
cb_assert_state klpc_test_state2 0
cb_assert_state klpc_test_state3 1
cb_write_error "$(patch_dir klpc_test_state2)/enabled" 1 EINVAL
cb_unload klpc-test-state2
cb_disable klpc_test_state3
st_assert_loglevel "$ST_LOGLEVEL"
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
% echo 0 > /sys/kernel/klpc/klpc_test_state2/enabled
klpc_test_state2: pre_unpatch_callback: vmlinux
klpc_test_state2: restore_console_loglevel: restoring console_loglevel
klpc: 'klpc_test_state2': starting unpatching transition
klpc_test_state2: post_unpatch_callback: vmlinux
klpc_test_state2: free_loglevel_state: freeing space for the stored console_loglevel
klpc: 'klpc_test_state2': unpatching complete
% insmod klpc-test-state3
klpc: enabling patch 'klpc_test_state3'
klpc_test_state3: pre_patch_callback: vmlinux
klpc_test_state3: allocate_loglevel_state: allocating space to store console_loglevel
klpc: 'klpc_test_state3': starting patching transition
klpc: patch 'klpc_test_state2' replaced by 'klpc_test_state3'
klpc_test_state3: post_patch_callback: vmlinux
klpc_test_state3: fix_console_loglevel: fixing console_loglevel
klpc: 'klpc_test_state3': patching complete
% echo 1 > /sys/kernel/klpc/klpc_test_state2/enabled
% rmmod klpc-test-state2
% echo 0 > /sys/kernel/klpc/klpc_test_state3/enabled
klpc_test_state3: pre_unpatch_callback: vmlinux
klpc_test_state3: restore_console_loglevel: restoring console_loglevel
klpc: 'klpc_test_state3': starting unpatching transition
klpc_test_state3: post_unpatch_callback: vmlinux
klpc_test_state3: free_loglevel_state: freeing space for the stored console_loglevel
klpc: 'klpc_test_state3': unpatching complete
% rmmod klpc-test-state3
EOF
