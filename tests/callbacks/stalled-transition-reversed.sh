#!/bin/sh
# was t-57-c-cb-stall-reverse
# Callbacks when klpc reverses a stalled transition by itself (klpc only:
# klpc.stall_reverse_secs): as for a reversal through sysfs, no
# pre_unpatch runs and, at the end, post_unpatch runs for the objects whose
# pre_patch ran; the patch reads enabled 0 and can be enabled again once
# nothing blocks it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
stall=/sys/module/klpc/parameters/stall_reverse_secs
trap 'write_sysfs 0 "$stall" 2>/dev/null || true' EXIT
expect_write_ok "$stall" 3
d=$(patch_dir "$CB_DEMO")
cb_load klpc-test-cb-busy block_transition=1
cb_load klpc-test-cb-demo
assert_file_eq "$d/transition" 1
wait_transition "$CB_DEMO" 30
assert_dmesg_has "'$CB_DEMO': patching transition stalled for 3 s, reversing it"
cb_assert_state "$CB_DEMO" 0 vmlinux 0 klpc_test_cb_busy 0

cb_param klpc-test-cb-busy block_transition 0
cb_enable "$CB_DEMO"
cb_assert_state "$CB_DEMO" 1 vmlinux 1 klpc_test_cb_busy 1
cb_disable "$CB_DEMO"
cb_unload klpc-test-cb-demo
cb_unload klpc-test-cb-busy

cb_expect <<'EOF'
% insmod klpc-test-cb-busy block_transition=1
klpc_test_cb_busy: init
klpc_test_cb_busy: work function enter
% insmod klpc-test-cb-demo
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': starting patching transition
klpc: 'klpc_test_cb_demo': reversing transition from patching
klpc_test_cb_demo: post_unpatch: vmlinux
klpc_test_cb_demo: post_unpatch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': unpatching complete
% echo 0 > /sys/module/klpc_test_cb_busy/parameters/block_transition
klpc_test_cb_busy: work function exit
% echo 1 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc: enabling patch 'klpc_test_cb_demo'
klpc_test_cb_demo: pre_patch: vmlinux
klpc_test_cb_demo: pre_patch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': starting patching transition
klpc_test_cb_demo: post_patch: vmlinux
klpc_test_cb_demo: post_patch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': patching complete
% echo 0 > /sys/kernel/klpc/klpc_test_cb_demo/enabled
klpc_test_cb_demo: pre_unpatch: vmlinux
klpc_test_cb_demo: pre_unpatch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': starting unpatching transition
klpc_test_cb_demo: post_unpatch: vmlinux
klpc_test_cb_demo: post_unpatch: klpc_test_cb_busy -> live
klpc: 'klpc_test_cb_demo': unpatching complete
% rmmod klpc-test-cb-demo
% rmmod klpc-test-cb-busy
klpc_test_cb_busy: exit
EOF
unload klpc
