#!/bin/sh
# was t-26-init-fails-after-enable
# A patch module whose init function fails after klpc_enable_patch()
# succeeded, while its transition is still blocked: the load fails, no
# transition, patch or redirection is left behind, and klpc stays usable.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

no_transition() {
	[ "$(klpc_stat entries)" = 0 ] && [ -z "$(tasks_blocking)" ]
}

klpc_core_load
load klpc-cm-target
# the sleeper waits inside klpc_cm_wait(), which the patch replaces: its
# transition cannot complete while the patch module's init runs
start_sleeper
sleeper=$SLEEPER
dmesg_mark
expect_load_error EINVAL klpc-test-patch obj=klpc_cm_target func=klpc_cm_wait broken=fail_init
assert_dmesg_has "klpc: enabling patch 'klpc_test_patch'"
info "kernel log of the failed load:"
dmesg_since_mark | grep klpc || true
assert_not_exists "$(patch_dir klpc_test_patch)"
wait_until 5 no_transition ||
	die "a transition is left after the failed init: stats: $(tr '\n' ' ' </proc/klpc/stats); /proc/klpc/tasks: $(blocking_summary)"

# klpc_cm_wait() is the original again, for the sleeper and new readers
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "the sleeper"
assert_eq "slept v1" "$(cat /proc/klpc_cm_sleep)" "a new reader"

# another patch enables, completes and goes
orig=$(cat /proc/cmdline)
load klpc-sample
wait_transition_within klpc_sample 10
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline patched"
expect_write_ok "$(patch_dir klpc_sample)/enabled" 0
wait_transition_within klpc_sample 10
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
unload klpc-sample
unload klpc-cm-target
unload klpc
