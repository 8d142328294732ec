#!/bin/sh
# was t-89-rmmod-force-transition
# "rmmod -f" of a patch module during its own blocked transition (Debian's
# kernel has MODULE_FORCE_UNLOAD): whatever klpc does about it, it must not
# corrupt itself.  Afterwards the transition is gone, the patched functions
# behave, another patch enables and completes, and everything unloads.
# Runs late: "rmmod -f" taints the kernel, which turns lockdep off (under
# the debug kernel) for the tests after it.
# klpc-taints: rmmod -f (TAINT_FORCED_RMMOD)
# klpc-group: tail
# klpc-order: 90 (the tail that leaves state for good, in this order)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

no_transition() {
	[ "$(klpc_stat entries)" = 0 ] && [ -z "$(tasks_blocking)" ]
}

klpc_core_load
load_cm_patch_blocked
sleeper=$SLEEPER
dmesg_mark
if out=$(rmmod -f klpc_cm_patch 2>&1); then
	info "rmmod -f klpc_cm_patch: removed"
else
	info "rmmod -f klpc_cm_patch: refused: $out"
fi
info "kernel log of the forced removal:"
dmesg_since_mark | grep -E 'klpc|rmmod|[Ff]orc' || true
sleep 1
# readers run some version, never a mix
assert_eq 0 "$(cm_mismatches)" "mismatches after the removal"

# the sleeper leaves; then no transition may be left
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
info "the sleeper read: $(cat "$KLPC_TMP/sleeper.out")"
if is_loaded klpc-cm-patch; then
	# klpc refused the removal: the patch is still there, finish it
	wait_transition_within klpc_cm_patch 10
	expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 0
	wait_transition_within klpc_cm_patch 10
	unload klpc-cm-patch
else
	assert_not_exists "$(patch_dir klpc_cm_patch)"
fi
wait_until 10 no_transition ||
	die "a transition is left after the forced removal: stats: $(tr '\n' ' ' </proc/klpc/stats); /proc/klpc/tasks: $(blocking_summary)"
assert_eq "slept v1" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_sleeper after the removal"
assert_eq 0 "$(cm_mismatches)" "mismatches at the end"

# klpc is still usable
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
