#!/bin/sh
# was t-72-replace-reverse
# A replace transition held by a sleeping task is reversed: the patch
# it would replace stays enabled and in force, the nops go; enabled again
# once the sleeper is gone, the replace completes.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-cm-target
load klpc-cm-patch
wait_transition klpc_cm_patch
# the sleeper sleeps in klpc_cm_patch's version of klpc_cm_sleeper()
start_sleeper

load klpc-test-proc-a cmdline=replace-a replace=1
a=$(patch_dir klpc_test_proc_a)
sleep 1
assert_file_eq "$a/transition" 1
assert_exists "$a/klpc_cm_target/klpc_cm_sleeper,1"
assert_file_eq "$a/klpc_cm_target/patched" 1

expect_write_ok "$a/enabled" 0
release_sleeper
wait "$SLEEPER" || true
wait_transition klpc_test_proc_a
assert_file_eq "$a/enabled" 0
assert_not_exists "$a/klpc_cm_target"
assert_file_eq "$(patch_dir klpc_cm_patch)/enabled" 1
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_sleeper() still patched"

enable_patch klpc_test_proc_a
assert_file_eq "$(patch_dir klpc_cm_patch)/enabled" 0
assert_eq "slept v1" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_sleeper() reverted"
assert_eq replace-a "$(cat /proc/cmdline)" "/proc/cmdline"
case $(cat /proc/klpc_cm) in
*" mismatches=0") ;;
*) die "/proc/klpc_cm: $(cat /proc/klpc_cm)" ;;
esac
unload klpc-cm-patch
disable_patch klpc_test_proc_a
unload klpc-test-proc-a
unload klpc-cm-target
