#!/bin/sh
# was t-35-resume-work
# User tasks move from a task work ("resume work") that check rounds queue
# on them: a task that slept in a patched function moves on its first
# return to user space and goes on living (exit did not move it); a work
# queued on a sleeper that never moves is taken back when the transition
# ends, so klpc can unload while the sleeper sleeps on, and the sleeper's
# return to user space later does not run into klpc's freed code.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

stat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/klpc/stats
}

SPINNER=
stop_spinner() {
	[ -z "$SPINNER" ] || kill "$SPINNER" 2>/dev/null || true
	release_sleeper
}

pending_is() {
	[ "$(stat_of pending)" = "$1" ]
}

# 1. a sleeper in klpc_cm_sleeper() that spins in user space once awake;
# asleep before the patch comes (a slow kernel may take seconds to get
# it there), and no fake signal to wake it (as start_sleeper)
klpc_core_load
load klpc-cm-target
write_sysfs 0 "$KLPC_SIGNAL_SECS"
write_sysfs 0 /proc/klpc_cm_sleep
trap stop_spinner EXIT
trap 'exit 1' INT TERM
"$KLPC_HAMMER" read-spin /proc/klpc_cm_sleep 600 \
	>"$KLPC_TMP/spinner.out" &
SPINNER=$!
wait_until 20 sleeping_in klpc_cm_wait "$SPINNER" ||
	die "the spinner did not go to sleep in klpc_cm_wait(): $(tr '\n' ' ' <"/proc/$SPINNER/stack" 2>&1)"
load klpc-cm-patch
d=$(patch_dir klpc_cm_patch)
wait_until 30 pending_is 1 ||
	die "pending: $(stat_of pending), expected only the sleeper: $(tr '\n' ' ' </proc/klpc/stats)"
assert_file_eq "$d/transition" 1
[ "$(stat_of resume_works)" -ge 1 ] ||
	die "no resume work queued on the sleeper: $(cat /proc/klpc/stats)"
write_sysfs 1 /proc/klpc_cm_sleep
wait_transition klpc_cm_patch 10
kill -0 "$SPINNER" 2>/dev/null || die "the spinner is gone: exit moved it"
assert_eq "slept v1" "$(cat "$KLPC_TMP/spinner.out")" \
	"the sleeper ran the old version"
[ "$(stat_of moved_by_resume)" -ge 1 ] ||
	die "no task moved from its resume work: $(cat /proc/klpc/stats)"
info "$(tr '\n' ' ' </proc/klpc/stats)"
kill "$SPINNER"
wait "$SPINNER" 2>/dev/null || true
SPINNER=
assert_eq 0 "$(stat_of resume_works)" "resume works left after the transition"
disable_patch klpc_cm_patch
unload klpc-cm-patch

# 2. the sleeper never moves: the reversed transition ends with its work
# still queued, and the teardown cancels it
start_sleeper
sleeper=$SLEEPER
load klpc-cm-patch
sleep 2
assert_file_eq "$d/transition" 1
[ "$(stat_of resume_works)" -ge 1 ] ||
	die "no resume work queued on the sleeper: $(cat /proc/klpc/stats)"
expect_write_ok "$d/enabled" 0
wait_transition klpc_cm_patch 10
sleep 1
assert_eq 0 "$(stat_of resume_works)" "resume works left after the reversal"
unload klpc-cm-patch
unload klpc
# klpc is gone; the sleeper returns to user space with no work of klpc's
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "the sleeper's read"
unload klpc-cm-target
