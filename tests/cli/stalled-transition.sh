#!/bin/sh
# was t-88-d-cli-stall
# A transition a sleeper blocks: klpc load --wait shows the blocking task
# with its stack and reverses (exit 2; status 2, 'reversed'); with --keep
# it stays (exit 1; status 1, then 2 once stalled); blocking -v/--json;
# other actions are refused while it runs; disable reverses it.
# klpc-timeout: 300
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

cli 0 load "$(ko klpc-sample)"
# no fake signals: one would wake the sleeper (after 15 s) and end the
# transition this test keeps stalled
signal_secs=/sys/module/klpc/parameters/signal_secs
expect_write_ok "$signal_secs" 0
load klpc-cm-target
start_sleeper

dmesg_mark
cli 2 load "$(ko klpc-cm-patch)" --wait 2
out_has 'klpc_cm_patch: the transition did not finish in 2 s'
out_has "^  $SLEEPER +cat +unpatched +klpc_cm_sleeper\$"
out_has '^          \[<0>\] klpc_cm_wait\+'
out_has 'klpc_cm_patch: reversing the transition'
out_has 'klpc_cm_patch: removed'
klog_has 'action=load patch=klpc_cm_patch result=reversed detail="stalled after 2 s"'
! is_loaded klpc_cm_patch || die "klpc_cm_patch is still loaded after the reversal"
cli 2 status
out_has '^last: +klpc_cm_patch reversed'
out_has '^state: +reversed'
cli 2 status --json
assert_json state reversed
assert_json last_transition.end reversed
assert_json exit 2

# status_running [--json]: 'klpc status' of the transition left running:
# exit 1 and state "transition" until it has run as long as the first
# stall report takes (10 s), exit 2 and "stalled" from then on. Under the
# debug kernel a klpc command takes seconds, so the second call can be
# past that point; either answer must match /proc/klpc/transition, read
# before and after the command.
proc_stalled() {
	awk '$1 == "stalled" { print $2 }' /proc/klpc/transition
}

status_running() {
	_before=$(proc_stalled)
	cli any status "$@"
	_after=$(proc_stalled)
	case $_rc/$_before$_after in
	1/0?) _state=transition ;;
	2/?1) _state=stalled ;;
	*) die "klpc status $*: exit status $_rc, stalled before/after '$_before$_after'; output:
$(cat "$OUT")" ;;
	esac
	if [ "${1:-}" = --json ]; then
		assert_json state "$_state"
		assert_json transition.stalled "$([ "$_state" = stalled ] && echo true || echo false)"
	else
		out_has "^state: +$_state"
	fi
}

# --keep: left in transition
cli 1 load "$(ko klpc-cm-patch)" --wait 1 --keep
out_has 'left in transition \(--keep\)'
status_running
out_has '^transition: +klpc_cm_patch to patched, 1 task\(s\) left'
status_running --json
assert_json transition.patch klpc_cm_patch
assert_json transition.target patched
assert_json transition.pending 1
assert_json patches.name=klpc_cm_patch.state patching
cli 0 blocking
out_has "^$SLEEPER +cat +unpatched +klpc_cm_sleeper\$"
cli 0 blocking -v --json
assert_json tasks.# 1
assert_json tasks.0.pid "$SLEEPER"
assert_json tasks.0.comm cat
assert_json tasks.0.blocker klpc_cm_sleeper
json tasks.0.stack.0 | grep -q 'klpc_cm_wait+' || die "stack: $(cat "$OUT.stdout")"
cli 1 enable klpc_cm_patch --wait 1 --keep
out_has 'klpc_cm_patch: already enabled, in transition'
out_has 'left in transition \(--keep\)'
cli 3 disable klpc_sample
out_has "patch 'klpc_cm_patch' is in transition"
cli 3 load "$(ko klpc-sample-stack)"
out_has "patch 'klpc_cm_patch' is in transition"
cli 3 unload klpc_sample

# past the first stall report (10 s): status 2
stalled_now() {
	[ "$(proc_stalled)" = 1 ]
}
wait_until 30 stalled_now || die "/proc/klpc/transition: $(cat /proc/klpc/transition)"
cli 2 status
out_has 'stalled \(klpc blocking shows why\)'
out_has '^state: +stalled'
cli 2 status --json
assert_json transition.stalled true
assert_json state stalled

# disable during the patching transition reverses it
cli 0 disable klpc_cm_patch --wait 20
out_has '^klpc: klpc_cm_patch: disabled$'
cli 2 status --json
assert_json last_transition.end reversed
cli 0 unload klpc_cm_patch
release_sleeper
wait "$SLEEPER"
expect_write_ok "$signal_secs" 15
