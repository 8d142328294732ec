#!/bin/sh
# klpc's torture driver, in the guest: a seeded random sequence of
# operations on a pool of patch modules that together use every feature
# (model.sh lists them), while other tasks fork, exec from threads, use
# io_uring, stop, freeze, and CPUs and memory come and go.  After every
# step it checks the invariants (check.sh) against a model of what the
# operations so far must have done, and stops at the first broken one,
# printing the seed, the step and the last operations.
#
# Usage: torture.sh [-s SEED] [-d SECONDS] [-F] [-N]
#   -s SEED     replay this sequence (default: a random seed, printed)
#   -d SECONDS  run this long, then undo everything and check (default 180)
#   -F          no fault injection even where the kernel has failslab
#   -N          never force a transition (a forced patch's module stays
#               for good: the test suite's run leaves none behind)
# (also KLPC_TORTURE_SEED and KLPC_TORTURE_DURATION).  On a kernel with
# fault injection (the debug kernel), FAULT_PCT in a hundred loads and
# 'enabled' writes run with one allocation failing at a random point.
# Output ends with "KLPC-TORTURE: OK" or "KLPC-TORTURE: FAILED".
set -eu
TORTURE_DIR=$(cd "${0%/*}" && pwd)
KLPC_TEST=${KLPC_TEST:-torture}
# shellcheck source=tests/lib.sh
. "$TORTURE_DIR/../lib.sh"
# shellcheck source=tests/torture/rand.sh
. "$TORTURE_DIR/rand.sh"
# shellcheck source=tests/torture/model.sh
. "$TORTURE_DIR/model.sh"
# shellcheck source=tests/torture/ops.sh
. "$TORTURE_DIR/ops.sh"
# shellcheck source=tests/torture/load.sh
. "$TORTURE_DIR/load.sh"
# shellcheck source=tests/torture/check.sh
. "$TORTURE_DIR/check.sh"

# the operations and their weights; while a transition is held open
# (by the sleeper), reverse and force come more often
OPS='load:14 unload:9 enable:9 disable:9 reverse:5 force:2 target:8
sleeper:6 hold:5 kworker:3 shadow:6 jobs:8 stop:3 freeze:3 cpu:3 memory:2 cli:4'
OPS_HELD='load:6 unload:6 enable:6 disable:6 reverse:12 force:4 target:6
sleeper:6 hold:0 kworker:3 shadow:0 jobs:6 stop:3 freeze:3 cpu:3 memory:2 cli:4'
FAULT_PCT=20
# seconds a transition nothing holds may take (times the timeout scale)
SETTLE_SECS=60
FAILSLAB=/sys/kernel/debug/failslab

# die: lib.sh's, with the seed, the step and the last operations; in a
# first pass of the checks (SOFT, check_all) only the exit.
die() {
	# shellcheck disable=SC2031 # set in check_all's subshell, read there
	[ "${SOFT:-0}" = 0 ] || exit 1
	echo "FAIL: $*" >&2
	{
		echo "torture: FAILED at step $STEP of seed $SEED (replay: SEED=$SEED)"
		echo "torture: the last operations:"
		tail -n 15 "$KLPC_TMP/history" | sed 's/^/    /'
	} >&2
	echo "KLPC-TORTURE: FAILED"
	exit 1
}

# note TEXT: one line of the history (what the failure report shows),
# also on the output: if the kernel dies, the console shows the last.
note() {
	echo "step $STEP: $*" >>"$KLPC_TMP/history"
	echo "torture: step $STEP: $*"
}

# count_op KIND: one more operation of KIND.
count_op() {
	eval "OPS_DONE_$1=\$((\${OPS_DONE_$1:-0} + 1))"
}

op_run() {
	case $1 in
	load) op_load ;;
	unload) op_unload ;;
	enable) op_enable 1 ;;
	disable) op_enable 0 ;;
	reverse) op_reverse ;;
	force) op_force ;;
	target) op_target ;;
	sleeper) op_sleeper ;;
	hold) op_hold ;;
	kworker) op_kworker ;;
	shadow) op_shadow ;;
	jobs) op_jobs ;;
	stop) op_stop ;;
	freeze) op_freeze ;;
	cpu) op_cpu ;;
	memory) op_memory ;;
	cli) op_cli ;;
	*) die "unknown operation $1" ;;
	esac
}

parse_args() {
	SEED=${KLPC_TORTURE_SEED:-}
	DURATION=${KLPC_TORTURE_DURATION:-180}
	FAULTS=auto
	NOFORCE=0
	while [ $# -gt 0 ]; do
		case $1 in
		-s) SEED=$2 && shift ;;
		-d) DURATION=$2 && shift ;;
		-F) FAULTS=0 ;;
		-N) NOFORCE=1 ;;
		*) die "usage: torture.sh [-s SEED] [-d SECONDS] [-F] [-N]" ;;
		esac
		shift
	done
	[ -n "$SEED" ] || SEED=$(random_seed)
	case $SEED$DURATION in *[!0-9]*) die "SEED and DURATION are numbers" ;; esac
}

# faults_setup: failslab and fail_page_alloc fail the Nth allocation of
# a task that asks (fail-nth), nothing at random (lib-fault.sh says why
# the knobs are these); their values are put back at the end.
faults_setup() {
	if [ "$FAULTS" = 0 ] || [ ! -e /proc/self/fail-nth ] || [ ! -d "$FAILSLAB" ]; then
		FAULTS=0
		return 0
	fi
	FAULTS=1
	: >"$KLPC_TMP/fault-knobs"
	for _k in failslab/probability:0 failslab/ignore-gfp-wait:N failslab/verbose:0 \
		fail_page_alloc/probability:0 fail_page_alloc/ignore-gfp-wait:N \
		fail_page_alloc/verbose:0 fail_page_alloc/min-order:0 \
		fail_page_alloc/ignore-gfp-highmem:N; do
		_f=/sys/kernel/debug/${_k%%:*}
		echo "$_f $(cat "$_f")" >>"$KLPC_TMP/fault-knobs"
		echo "${_k#*:}" >"$_f"
	done
}

faults_restore() {
	[ -f "$KLPC_TMP/fault-knobs" ] || return 0
	while read -r _f _v; do echo "$_v" >"$_f" || true; done <"$KLPC_TMP/fault-knobs"
}

setup() {
	KLPC_TMP=$(mktemp -d /tmp/klpc-torture.XXXXXX)
	: >"$KLPC_TMP/history"
	STEP=0 CHECKS=0 REPORTS=0 FAULTS_HIT=0 COUNT_DONE=0 COUNT_REVERSED=0
	COUNT_FORCED=0 COUNT_HELD=0 CM_BASE=0 CM_RESYNC=0 JOBS='' STOPPED='' SLEEPER='' SLEEPER_V=0 BUSY_BLOCK=0
	BAD_RE=$KLPC_TMP/kernel-bad.re
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$KLPC_DIR/vm/kernel-bad.txt" >"$BAD_RE"
	[ -s "$BAD_RE" ] || die "no patterns in vm/kernel-bad.txt"
	LOG_SEEN=$(dmesg | wc -l)
	klpc_core_load
	for _s in $PATCH_SLOTS $TARGET_SLOTS; do
		! is_loaded "$(slot_file "$_s")" || die "$(slot_file "$_s") is loaded before the run"
	done
	ORIG_CMDLINE=$(cat /proc/cmdline)
	ORIG_VERSION=$(cat /proc/version)
	m_init
	freezer_setup
	faults_setup
	rand_seed "$SEED"
}

# finish: undo everything the run did, in an order klpc must accept,
# then check that nothing is left.
finish() {
	note "finish: release, thaw, CPUs online, disable and remove all"
	sleeper_release
	busy_release
	jobs_wait
	[ ! -w "$CPU_FILE" ] || [ "$(cat "$CPU_FILE")" = 1 ] || echo 1 >"$CPU_FILE"
	FAULTS=0
	settle
	for _s in $(echo "$M_LIST" | tr ' ' '\n' | sed -n '1!G;h;$p'); do
		if m_is "$_s" enabled; then
			write_enabled "$_s" 0
			settle
		fi
	done
	for _s in $PATCH_SLOTS; do
		if m_is "$_s" loaded && ! m_is "$_s" forced; then
			unload_slot "$_s"
		fi
	done
	for _s in $TARGET_SLOTS; do
		m_is "$_s" loaded || continue
		[ "$_s" != cmt ] || ! m_is cm loaded || continue
		unload_slot "$_s"
	done
	check_all
	inv "task table entries after the run" 0 "$(klpc_stat entries)"
	faults_restore
	kmemleak_check
}

# kmemleak_check: on a kernel with kmemleak, no unreferenced object that
# klpc allocated (its backtrace names klpc's functions).
kmemleak_check() {
	_km=/sys/kernel/debug/kmemleak
	[ -w "$_km" ] || return 0
	echo scan >"$_km" && sleep 5 && echo scan >"$_km"
	awk '/^unreferenced object/ { if (ours) n++; ours = 0 }
		/\[klpc\]|klpc_/ { ours = 1 }
		END { if (ours) n++; print n + 0 }' "$_km" >"$KLPC_TMP/leaks"
	CHECKS=$((CHECKS + 1))
	if [ "$(cat "$KLPC_TMP/leaks")" != 0 ]; then
		REPORTS=$((REPORTS + 1))
		die "kmemleak: $(cat "$KLPC_TMP/leaks") unreferenced object(s) of klpc: $(head -n 20 "$_km")"
	fi
	echo "torture: kmemleak: no object of klpc unreferenced"
}

summary() {
	_ops=
	for _nw in $OPS; do
		_k=${_nw%%:*}
		_ops="$_ops $_k $(eval "echo \${OPS_DONE_$_k:-0}"),"
	done
	echo "torture: seed $SEED: $STEP steps in $(($(ms_now) / 1000 - START)) s"
	echo "torture: operations:${_ops%,}"
	echo "torture: transitions: completed $COUNT_DONE, reversed $COUNT_REVERSED, forced $COUNT_FORCED, held open by the sleeper $COUNT_HELD"
	echo "torture: faults injected in $FAULTS_INJECTED operations, $FAULTS_HIT of them failed by it"
	echo "torture: invariants checked: $CHECKS"
	echo "torture: kernel reports: $REPORTS"
}

main() {
	parse_args "$@"
	setup
	echo "torture: seed $SEED, duration ${DURATION} s, fault injection $([ "$FAULTS" = 1 ] && echo on || echo off)"
	START=$(($(ms_now) / 1000))
	_end=$((START + DURATION))
	FAULTS_INJECTED=0
	# shellcheck disable=SC2086 # the weights are words
	while [ "$(($(ms_now) / 1000))" -lt "$_end" ]; do
		STEP=$((STEP + 1))
		if [ -z "$M_TRANS" ]; then rand_weighted $OPS; else rand_weighted $OPS_HELD; fi
		count_op "$R"
		op_run "$R"
		[ "$FAULTED" = 0 ] || FAULTS_INJECTED=$((FAULTS_INJECTED + 1))
		FAULTED=0
		settle
		check_all
		jobs_reap
	done
	finish
	summary
	echo "KLPC-TORTURE: OK"
}

FAULTED=0
main "$@"
