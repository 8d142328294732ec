#!/bin/sh
# was t-38-uring-mismatch
# io_uring workers calling a patched caller/callee pair while the patch
# goes back and forth: in each cycle a process whose io workers are all
# created during a blocked patching transition reads /proc/klpc_cm through
# them; the transition is reversed (and completes) while they read.  Each
# worker runs one version of the pair at a time, never a mix.
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

CYCLES=8

klpc_core_load
load_cm_patch_blocked
sleeper=$SLEEPER
d=$(patch_dir klpc_cm_patch)

cycle=1
while [ $cycle -le $CYCLES ]; do
	out=$KLPC_TMP/loop.$cycle
	"$KLPC_TASKS" uring-loop /proc/klpc_cm 3 >"$out" 2>&1 &
	loop=$!
	sleep 1
	# reverse while the workers read; it completes, as the sleeper is in
	# the unpatched state
	expect_write_ok "$d/enabled" 0
	wait_transition_within klpc_cm_patch 10
	rc=0
	wait "$loop" || rc=$?
	[ "$rc" = 0 ] ||
		die "cycle $cycle: klpc-tasks uring-loop exited $rc: $(cat "$out"); /proc/klpc_cm: $(cat /proc/klpc_cm)"
	info "cycle $cycle: $(cat "$out")"
	# enable again: blocked by the sleeper
	expect_write_ok "$d/enabled" 1
	assert_file_eq "$d/transition" 1
	cycle=$((cycle + 1))
done
assert_eq 0 "$(cm_mismatches)" "mismatches after $CYCLES cycles"

write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition_within klpc_cm_patch 10
expect_write_ok "$d/enabled" 0
wait_transition_within klpc_cm_patch 10
assert_eq 0 "$(cm_mismatches)" "mismatches at the end"
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
