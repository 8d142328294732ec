#!/bin/sh
# was t-57-b-cb-busy-release
# post_patch waits for the end of the transition (klpc extra): while a
# kworker sleeps in the busy module's patched work function no post_patch
# runs; once it is released and leaves the function, the transition
# completes and post_patch runs for vmlinux and the busy module.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cb.sh
. "${0%/*}/../lib-cb.sh"

cb_start
d=$(patch_dir "$CB_DEMO")
cb_load klpc-test-cb-busy block_transition=1
cb_load klpc-test-cb-demo
sleep 2
assert_file_eq "$d/transition" 1
! cb_lines | grep -q post_patch || die "post_patch ran during the transition"

cb_param klpc-test-cb-busy block_transition 0
wait_transition "$CB_DEMO" 30
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
% echo 0 > /sys/module/klpc_test_cb_busy/parameters/block_transition
klpc_test_cb_busy: work function exit
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
