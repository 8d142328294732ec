# shellcheck shell=sh
# Helpers of the fault-injection sweep (tests/fault/sweep-*.sh), sourced after
# lib.sh. A test describes one operation with three functions:
#
#   fault_op		do it once (an insmod, a sysfs write...): its exit
#			status is the operation's, its stderr the errno text
#   fault_check_done	the state after it succeeded: check it, then undo
#			the operation (back to the state before)
#   fault_check_before	the state before it, which a failure must leave
#
# and calls 'fault_sweep NAME ENTRY': N = 1, 2, ... the Nth allocation the
# operation makes fails, until it succeeds with nothing injected; after
# each try the operation succeeded or failed with ENOMEM and a klpc log
# line giving the errno, no transition is left running, /proc/klpc shows
# no table, and the state checks above hold. Two mechanisms:
#
#   klpc-test-fail	kprobes on the allocators klpc calls (FAULT_ALLOCS
#			below), counting only calls made
#			from klpc's own code: any kernel. Every N up to
#			FAULT_EVERY; beyond, N covers the first and last call
#			of each run of calls from one site (the record run
#			lists them), not every repetition of a loop.
#   failslab		the kernel's failslab and fail_page_alloc, through
#			the task's fail_nth, armed by klpc-test-fail
#			(task_nth=1) at the entry of klpc's function ENTRY
#			and cleared when the task (the insmod, rmmod or
#			write) exits: every allocation of the task from
#			there, klpc's or the kernel's (kobjects, sysfs,
#			ftrace). Every N up to FAULT_SLAB_EVERY, then N grows
#			by a half. Only on a kernel with fault injection
#			(the debug kernel); elsewhere skipped, and said so.
#
# Why fail_nth: in 6.1 (lib/fault-inject.c) failslab has no "nth" knob;
# 'space' is a budget of bytes (object sizes, pages for fail_page_alloc),
# not of calls, and 'interval' counts calls in a counter that nothing
# resets and that no file shows. should_fail_ex() reads the task's
# fail_nth before any knob (probability, task-filter, times): set to N, it
# fails exactly the Nth allocation reaching it, in that task only. The knobs are set only so
# that every allocation reaches it (ignore-gfp-wait=N, min-order=0),
# nothing fails at random (probability=0), and the stack of the failed
# allocation is logged (verbose=2): when it shows no klpc code, the
# failure is the kernel's to report, and no klpc line is required.
#
# Each sweep appends "NAME MECHANISM POINTS SITES" to $FAULT_TALLY, which
# tests/fault/sweep-summary.sh sums up.

FAULT_FAIL_P=/sys/module/klpc_test_fail/parameters
# the allocators klpc.ko calls (nm -u klpc.ko): kzalloc() of a struct,
# kmalloc() of a computed size, kvmalloc(). 6.10 renamed them when it
# added memory allocation profiling (the _noprof functions, which the
# inline wrappers call): 6.1's names would be probed in vain, or refused.
if grep -q ' __kmalloc_noprof$' /proc/kallsyms; then
	FAULT_ALLOCS=__kmalloc_cache_noprof,__kmalloc_noprof,__kvmalloc_node_noprof
else
	FAULT_ALLOCS=kmalloc_trace,__kmalloc,kvmalloc_node
fi
FAULT_DEBUGFS=/sys/kernel/debug
FAULT_TALLY=/tmp/klpc-fault.tally
# every N up to FAULT_EVERY (klpc-test-fail) or FAULT_SLAB_EVERY
# (failslab); fewer under the debug kernel, where a try costs ~8 times more
if [ "${KLPC_TIMEOUT_SCALE:-1}" -gt 1 ]; then
	FAULT_EVERY=${KLPC_FAULT_EVERY:-8}
	FAULT_SLAB_EVERY=${KLPC_FAULT_SLAB_EVERY:-6}
else
	FAULT_EVERY=${KLPC_FAULT_EVERY:-40}
	FAULT_SLAB_EVERY=${KLPC_FAULT_SLAB_EVERY:-16}
fi
# a bound on N past the recorded count (klpc-test-fail), or on N itself
# (failslab): more, and the operation never succeeds, which fails the test
FAULT_EXTRA=${KLPC_FAULT_EXTRA:-64}
FAULT_MAX_N=${KLPC_FAULT_MAX_N:-3000}
FAULT_WAIT=$((30 * ${KLPC_TIMEOUT_SCALE:-1}))

# fault_proc_a_load: klpc and klpc-test-proc-a (cmdline=fault-a) loaded;
# FAULT_CMDLINE is /proc/cmdline unpatched, FAULT_PATCH the patch's sysfs
# directory (the operations of fault/sweep-sysfs and fault/sweep-tasks
# write to it).
fault_proc_a_load() {
	klpc_core_load
	FAULT_CMDLINE=$(cat /proc/cmdline)
	load klpc-test-proc-a cmdline=fault-a
	FAULT_PATCH=$(patch_dir klpc_test_proc_a)
}

# fault_proc_a_is STATE: klpc-test-proc-a's 'enabled' reads STATE, and
# /proc/cmdline agrees.
fault_proc_a_is() {
	assert_file_eq "$FAULT_PATCH/enabled" "$1"
	if [ "$1" = 1 ]; then
		assert_eq fault-a "$(cat /proc/cmdline)" "/proc/cmdline patched"
	else
		assert_eq "$FAULT_CMDLINE" "$(cat /proc/cmdline)" "/proc/cmdline unpatched"
	fi
}

# fault_klpc_range: "from=ADDR len=SIZE", klpc's code as /proc/modules shows.
fault_klpc_range() {
	awk '$1 == "klpc" { printf "from=%s len=%s\n", $6, $2 }' /proc/modules
}

# fault_arm N: klpc-test-fail (loaded) fails the Nth call from now on,
# counted anew; 0: none.
fault_arm() {
	echo "$1" >"$FAULT_FAIL_P/nth"
}

# fault_try N: fault_op once, with the Nth call failing. Sets FAULT_RC (0
# or 1), FAULT_ERR, FAULT_INJ, FAULT_HITS, FAULT_SITE; the recorded call
# sites go to $KLPC_TMP/sites. What follows it (checks, undo) is not
# counted.
fault_try() {
	dmesg_mark
	fault_arm "$1"
	FAULT_RC=0
	FAULT_ERR=$(fault_op 2>&1 >/dev/null) || FAULT_RC=1
	FAULT_INJ=$(cat "$FAULT_FAIL_P/injected")
	FAULT_HITS=$(cat "$FAULT_FAIL_P/hits")
	FAULT_SITE=$(sed 's/ .*//' "$FAULT_FAIL_P/site")
	cat "$FAULT_FAIL_P/sites" >"$KLPC_TMP/sites"
	fault_arm 0
}

# fault_idle: no patch in transition, and the table is gone.
fault_idle() {
	! grep -qx 1 "$KLPC_SYSFS"/*/transition 2>/dev/null &&
		[ "$(klpc_stat entries)" = 0 ] && [ "$(klpc_stat pending)" = 0 ] &&
		[ -z "$(tasks_blocking)" ]
}

# fault_not_klpc: failslab failed an allocation whose stack (verbose=2)
# shows no klpc code: the kernel's own (the module loader's, another
# module notifier's), which klpc does not log.
fault_not_klpc() {
	[ "${FAULT_MECH:-}" = failslab ] || return 1
	dmesg_since_mark | awk '
		/FAULT_INJECTION: forcing a failure/ { dump = 1; seen = 1 }
		dump && /\[klpc\]$/ { klpc = 1 }
		/<\/TASK>/ { dump = 0 }
		END { exit !(seen && !klpc) }'
}

# fault_cause_logged WHAT: a klpc line since the mark gives the errno.
fault_cause_logged() {
	if fault_not_klpc; then
		info "$1: the kernel's allocation failed, not klpc's"
		return 0
	fi
	_lines=$(dmesg_since_mark | sed 's/^\[[^]]*\] *//' | grep '^klpc: ') || true
	printf '%s\n' "$_lines" | grep -Eq '\(-12\)|-ENOMEM' ||
		die "$1: failed, but no klpc log line gives the cause (-12); klpc logged: $(printf '%s' "$_lines" | tr '\n' '|')"
}

# fault_verify WHAT: the checks after one try (see the top).
fault_verify() {
	wait_until "$FAULT_WAIT" fault_idle ||
		die "$1: still busy after $FAULT_WAIT s: $(tr '\n' ' ' </proc/klpc/stats); $(blocking_summary)"
	if [ "$FAULT_RC" = 0 ]; then
		fault_check_done
		return 0
	fi
	[ "$FAULT_INJ" -gt 0 ] || die "$1: failed with nothing injected: $FAULT_ERR"
	case $FAULT_ERR in
	*"$(errno_text ENOMEM)"*) ;;
	*) die "$1: failed with '$FAULT_ERR', expected ENOMEM" ;;
	esac
	fault_cause_logged "$1"
	fault_check_before
}

# fault_plan TOTAL: the values of N for klpc-test-fail, from $KLPC_TMP/sites
# (lines "CALLS SITE", in order): all up to FAULT_EVERY, else the first and
# the last call of each run, and every 8th call past a list cut short.
fault_plan() {
	if [ "$1" -le "$FAULT_EVERY" ]; then
		seq 1 "$1"
		return 0
	fi
	awk -v total="$1" '
		$1 == "..." { for (n = s + 1; n <= total; n += 8) print n; next }
		{ print s + 1; if ($1 > 1) print s + $1; s += $1 }
		END { print total }
	' "$KLPC_TMP/sites" | awk -v t="$1" '$1 <= t && !seen[$1]++'
}

# fault_tally NAME MECHANISM POINTS SITES: one line for the summary.
fault_tally() {
	echo "$1 $2 $3 ${4:--}" >>"$FAULT_TALLY"
	figure "fault $1: $2: $3 injection points, all clean; sites: ${4:--}"
}

# fault_one NAME N: one try failing the Nth call, and its checks; counts
# an injection point in FAULT_POINTS, its site in $KLPC_TMP/hit-sites.
fault_one() {
	fault_try "$2"
	fault_verify "$1 (nth=$2, injected $FAULT_INJ at $FAULT_SITE, rc $FAULT_RC)"
	[ "$FAULT_INJ" -gt 0 ] || return 0
	FAULT_POINTS=$((FAULT_POINTS + 1))
	echo "${FAULT_SITE%%+*}" >>"$KLPC_TMP/hit-sites"
}

# fault_sweep_allocs NAME: the klpc-test-fail sweep.
fault_sweep_allocs() {
	# shellcheck disable=SC2046 # from= and len=
	load klpc-test-fail func=$FAULT_ALLOCS $(fault_klpc_range) err=0 nth=1
	fault_arm 0
	: >"$KLPC_TMP/hit-sites"
	FAULT_POINTS=0
	fault_one "$1 record" 2000000000
	[ "$FAULT_RC" = 0 ] || die "$1: fails with nothing injected: $FAULT_ERR"
	_total=$FAULT_HITS
	info "$1: klpc made $_total allocations; sites: $(tr '\n' ';' <"$KLPC_TMP/sites")"
	for _n in $(fault_plan "$_total"); do
		fault_one "$1" "$_n"
	done
	# the end: until the operation succeeds with nothing injected
	_n=$((_total + 1))
	while :; do
		fault_one "$1" "$_n"
		[ "$FAULT_INJ" -gt 0 ] || [ "$FAULT_RC" != 0 ] || break
		_n=$((_n + 1))
		[ "$_n" -le $((_total + FAULT_EXTRA)) ] ||
			die "$1: still injected at allocation $_n of $_total recorded"
	done
	unload klpc-test-fail
	fault_tally "$1" klpc-test-fail "$FAULT_POINTS" \
		"$(sort -u "$KLPC_TMP/hit-sites" | paste -sd, -)"
}

# fault_attr NAME FILE VALUE: set a failslab or fail_page_alloc knob,
# remembering its value for fault_attrs_restore.
fault_attr() {
	_f=$FAULT_DEBUGFS/$1/$2
	echo "$_f $(cat "$_f")" >>"$KLPC_TMP/fault-attrs"
	echo "$3" >"$_f"
}

fault_attrs_restore() {
	[ -f "$KLPC_TMP/fault-attrs" ] || return 0
	tac "$KLPC_TMP/fault-attrs" | while read -r _f _v; do
		echo "$_v" >"$_f" || true
	done
	rm -f "$KLPC_TMP/fault-attrs"
}

# fault_cleanup: on the test's exit, however it exits: the fault knobs
# restored, and the tasks of FAULT_PIDS killed.
fault_cleanup() {
	fault_attrs_restore
	[ -z "${FAULT_PIDS:-}" ] || kill "$FAULT_PIDS" 2>/dev/null || true
}

# fault_attrs_setup: fail_nth fails the nth call reaching should_fail(),
# whatever the probability: let every allocation of the task get there
# (GFP_KERNEL ones too, and order-0 pages), and nothing fail at random.
fault_attrs_setup() {
	for _a in failslab fail_page_alloc; do
		fault_attr $_a probability 0
		fault_attr $_a ignore-gfp-wait N
		fault_attr $_a verbose 2
	done
	fault_attr fail_page_alloc min-order 0
	fault_attr fail_page_alloc ignore-gfp-highmem N
}

# fault_next N: the next N of the failslab sweep: every one up to
# FAULT_SLAB_EVERY, then growing by a half (the task's allocations are
# the kernel's too, and kmemleak adds one to each: hundreds, and a try
# takes ~30 s under the debug kernel).
fault_next() {
	if [ "$1" -lt "$FAULT_SLAB_EVERY" ]; then
		echo $(($1 + 1))
	else
		echo $(($1 + $1 / 2))
	fi
}

# fault_sweep_slab NAME ENTRY: the failslab sweep, or why it cannot run.
fault_sweep_slab() {
	if [ ! -d "$FAULT_DEBUGFS/failslab" ]; then
		info "$1: failslab: skipped, kernel $(uname -r) has no fault injection ($FAULT_DEBUGFS/failslab)"
		echo "$1 failslab skipped -" >>"$FAULT_TALLY"
		return 0
	fi
	fault_attrs_setup
	load klpc-test-fail func="$2" task_nth=1 nth=1
	fault_arm 0
	FAULT_MECH=failslab
	: >"$KLPC_TMP/hit-sites"
	FAULT_POINTS=0
	_n=1
	while :; do
		fault_one "$1 failslab" "$_n"
		[ "$FAULT_INJ" -gt 0 ] || [ "$FAULT_RC" != 0 ] || break
		_n=$(fault_next "$_n")
		[ "$_n" -le "$FAULT_MAX_N" ] ||
			die "$1: failslab: allocation $_n in $2 still fails"
	done
	unload klpc-test-fail
	FAULT_MECH=
	fault_attrs_restore
	info "$1: failslab: the task made fewer than $_n allocations in $2"
	fault_tally "$1" failslab "$FAULT_POINTS" "$2"
}

# fault_sweep NAME ENTRY: both sweeps of one operation.
fault_sweep() {
	fault_sweep_allocs "$1"
	fault_sweep_slab "$1" "$2"
}

trap fault_cleanup EXIT
trap 'exit 1' INT TERM
