#!/bin/sh
# Guest test runner: runs the tests tests/AREA/NAME.sh in their order
# (tests/select.sh), each in its own
# process under a timeout, checks the kernel log each test produced, cleans
# up modules and patches a test left behind, and ends with exactly
# "N passed, N failed" (", N skipped" is added when some were skipped).
#
# Usage: run-tests.sh [GLOB[,GLOB...]]   (default: $KLPC_FILTER, else all)
# A test is named AREA/NAME (core/basic-patch); a glob ending in / selects
# a folder (consistency/), one with a / the whole name (build/*), one
# without also the name within its folder (*reverse*). A test may set its
# own timeout with a line '# klpc-timeout: SECONDS' (default 120, or
# $KLPC_TEST_TIMEOUT), multiplied by $KLPC_TIMEOUT_SCALE (default 1; the
# debug kernel's runs set it, see vm/run.sh). '# klpc-group:' and
# '# klpc-weight:' lines are for the host (make vm-test SHARDS=N,
# vm/shard.sh): tests of one group share a guest. A test with a line
# '# klpc-boot: KIND' runs in a guest booted for it (vm/secure.sh): there
# $KLPC_BOOT is KIND and only such tests run; a usual guest leaves it to
# that boot when $KLPC_BOOTS names KIND, else runs it (it then skips).
#
# Before the tests it prints one line naming the running kernel and which
# checkers it has live: "kernel: <release> lockdep=on|off kasan=on|off
# kmemleak=on|off failslab=on|off". A test fails on any line of its kernel
# log that matches vm/kernel-bad.txt, and, where kmemleak runs, on any
# unreferenced object that kmemleak finds after it (its modules removed)
# and that was allocated by klpc or a test module.
set -eu

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/select.sh
. "$TESTS_DIR/select.sh"
FILTER=${1:-${KLPC_FILTER:-}}
DEFAULT_TIMEOUT=${KLPC_TEST_TIMEOUT:-120}
SCALE=${KLPC_TIMEOUT_SCALE:-1}
WORK=$(mktemp -d /tmp/klpc-tests.XXXXXX)
# the shared list of bad kernel log lines (EREs), without its comments
BAD_LIST=$TESTS_DIR/../vm/kernel-bad.txt
KERNEL_BAD=$WORK/kernel-bad.re
KMEMLEAK=/sys/kernel/debug/kmemleak
PASSED=0
FAILED=0
SKIPPED=0

# kmsg LEVEL TEXT: a line in the kernel log. Level 4 reaches the console
# (loglevel=5), so a host that times out sees which test was running.
kmsg() {
	echo "<$1>klpc-runner: $2" >/dev/kmsg 2>/dev/null || true
}

# boot_runs FILE: whether this guest's boot is the one for test FILE.
boot_runs() {
	_kind=$(sed -n 's/^# *klpc-boot: *\([a-z0-9-]*\).*/\1/p' "$1" | head -n 1)
	if [ -n "${KLPC_BOOT:-}" ]; then
		[ "$_kind" = "$KLPC_BOOT" ]
		return
	fi
	[ -n "$_kind" ] || return 0
	case ",${KLPC_BOOTS:-}," in
	*",$_kind,"*) return 1 ;;
	esac
	return 0
}

test_timeout() {
	_t=$(sed -n 's/^# *klpc-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
	echo $((${_t:-$DEFAULT_TIMEOUT} * SCALE))
}

# load_bad_list: the patterns of vm/kernel-bad.txt into $KERNEL_BAD (a few
# built-in ones when the runner runs without vm/).
load_bad_list() {
	if [ -r "$BAD_LIST" ]; then
		sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$BAD_LIST" >"$KERNEL_BAD"
	else
		printf '%s\n' 'WARNING:' 'BUG:' 'Oops' 'general protection' \
			'Kernel panic' 'kernel BUG at' >"$KERNEL_BAD"
	fi
}

onoff() {
	if "$@"; then echo on; else echo off; fi
}

lockdep_on() {
	[ -r /proc/lockdep ] && grep -Eq '^ *debug_locks: +1$' /proc/lockdep_stats
}

kasan_on() {
	dmesg | grep -q 'KernelAddressSanitizer initialized'
}

# kmemleak is live if it takes a command ("stack=on" is its default).
kmemleak_on() {
	[ -e "$KMEMLEAK" ] && { echo stack=on >"$KMEMLEAK"; } 2>/dev/null
}

failslab_on() {
	[ -d /sys/kernel/debug/failslab ]
}

# kernel_line: which kernel runs and which of its checkers are live, read
# from the running kernel (vm/run.sh requires all four with KERNEL=debug).
kernel_line() {
	echo "kernel: $(uname -r) lockdep=$(onoff lockdep_on)" \
		"kasan=$(onoff kasan_on) kmemleak=$(onoff kmemleak_on)" \
		"failslab=$(onoff failslab_on)"
}

# our_modules_re: an ERE matching "[name]" for klpc and every module in
# $KLPC_DIR/modules (how a kmemleak backtrace names a loaded module).
our_modules_re() {
	for _ko in "${KLPC_DIR:-/klpc}"/modules/*.ko; do
		[ -f "$_ko" ] || continue
		_m=$(basename "$_ko" .ko | tr - _)
		printf '%s|' "$_m"
	done | sed -e 's/|$//' -e 's/^/\\[(klpc|/' -e 's/$/)\\]$/'
}

# kmemleak_check NAME: after a test and its cleanup, the unreferenced
# objects kmemleak finds that klpc or a test module allocated, into
# $WORK/NAME.kmemleak. kmemleak reports an object only when it is at least
# 5 s old and its contents did not change since the scan before, which
# records a checksum of every unreferenced object: an object that lost its
# last reference in the cleanup (a module's exit forgetting to free it) is
# reported by the second scan after that. Hence two scans (each takes
# longer than 5 s here). 'clear' forgets the reports read, so each test
# sees new ones only. A frame without a symbol ("0xffffffffc0..." after
# the address) is in a module already removed, which here is one of ours.
kmemleak_check() {
	[ -n "$KMEMLEAK_OURS" ] || return 0
	{ echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK"; } 2>/dev/null || return 0
	cat "$KMEMLEAK" >"$WORK/$1.kmemleak-all" 2>/dev/null || true
	{ echo clear >"$KMEMLEAK"; } 2>/dev/null || true
	OURS=$KMEMLEAK_OURS awk -v other="$WORK/kmemleak-other" '
		BEGIN { ours = ENVIRON["OURS"] }
		function flush() {
			if (blk == "") return
			if (hit) printf "%s", blk; else nother++
			blk = ""; hit = 0
		}
		/^unreferenced object / { flush() }
		{ blk = blk $0 "\n" }
		$0 ~ ours || /\] 0x[0-9a-f]+$/ { hit = 1 }
		END { flush(); if (nother) printf "%d\n", nother >> other }
	' "$WORK/$1.kmemleak-all" >"$WORK/$1.kmemleak"
}

interpreter() {
	case $(head -n 1 "$1") in
	'#!'*bash*) echo bash ;;
	*) echo sh ;;
	esac
}

# run_test FILE NAME TIMEOUT: run one test, output in $WORK/NAME.out; sets
# RC to its exit status, or to "hung" if even SIGKILL did not end it.
run_test() {
	_tmp=$WORK/$2.tmp
	mkdir -p "$_tmp"
	(cd "$_tmp" && KLPC_TEST=$2 KLPC_TMP=$_tmp exec timeout -k 10 "$3" \
		"$(interpreter "$1")" "$1") >"$WORK/$2.out" 2>&1 </dev/null &
	_pid=$!
	_limit=$((($3 + 20) * 5))
	_i=0
	while kill -0 "$_pid" 2>/dev/null && [ $_i -lt $_limit ]; do
		_i=$((_i + 1))
		sleep 0.2
	done
	if kill -0 "$_pid" 2>/dev/null; then
		RC=hung
		return 0
	fi
	RC=0
	wait "$_pid" || RC=$?
}

loaded_modules() {
	awk '{ print $1 }' /proc/modules | sort
}

# disable_patches: turn off klpc (and built-in livepatch) patches left on.
# A few passes: klpc disables only the topmost enabled patch, and the
# directories come in name order, not in the stack's.
disable_patches() {
	for _pass in 1 2 3 4; do
		disable_pass $_pass
	done
}

# disable_pass N: one pass; pass 4 reports what it could not disable.
disable_pass() {
	for _f in /sys/kernel/klpc/*/enabled /sys/kernel/livepatch/*/enabled; do
		[ -f "$_f" ] || continue
		[ "$(cat "$_f" 2>/dev/null)" = 1 ] || continue
		_d=${_f%/enabled}
		if echo 0 >"$_f" 2>/dev/null; then
			echo "cleanup: disabled patch $_d"
		elif [ "$1" = 4 ]; then
			echo "cleanup: could not disable patch $_d"
		fi
		_i=0
		while [ "$(cat "$_d/transition" 2>/dev/null)" = 1 ] && [ $_i -lt 300 ]; do
			_i=$((_i + 1))
			sleep 0.1
		done
	done
}

# remove_modules BASELINE_FILE: rmmod what was loaded since the baseline;
# a few passes, so modules that others depend on go last.
remove_modules() {
	_pass=0
	while [ $_pass -lt 5 ]; do
		_pass=$((_pass + 1))
		_left=$(loaded_modules | comm -13 "$1" -)
		[ -n "$_left" ] || return 0
		for _m in $_left; do
			if rmmod "$_m" 2>/dev/null; then
				echo "cleanup: rmmod $_m"
			fi
		done
	done
	_left=$(loaded_modules | comm -13 "$1" - | tr '\n' ' ')
	[ -z "$_left" ] || echo "cleanup: could not remove: $_left"
}

cleanup_state() {
	disable_patches
	remove_modules "$1"
}

# kernel_log_since MARK: kernel log lines after MARK (all if it is gone).
kernel_log_since() {
	dmesg | awk -v m="$1" '{ l[NR] = $0 } index($0, m) { s = NR }
		END { for (i = s + 1; i <= NR; i++) print l[i] }'
}

indent() {
	sed 's/^/    | /'
}

# report NAME VERDICT REASON TIME: print the verdict line and details.
report() {
	case $2 in
	PASS) PASSED=$((PASSED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	*) FAILED=$((FAILED + 1)) ;;
	esac
	echo "$2 $1${3:+ ($3)} [$4]"
	# measured figures are shown whatever the verdict
	grep '^FIGURE ' "$WORK/$1.out" 2>/dev/null | indent || true
	if [ "$2" = FAIL ] && [ -s "$WORK/$1.out" ]; then
		echo "    output (last 100 lines):"
		tail -n 100 "$WORK/$1.out" | indent
	fi
	if [ -s "$WORK/$1.kernel" ]; then
		echo "    kernel log:"
		head -n 60 "$WORK/$1.kernel" | indent
	fi
	if [ -s "$WORK/$1.kmemleak" ]; then
		echo "    kmemleak:"
		head -n 80 "$WORK/$1.kmemleak" | indent
	fi
	if [ -s "$WORK/$1.clean" ]; then
		indent <"$WORK/$1.clean"
	fi
}

# verdict RC: PASS, SKIP or FAIL with a reason, from the exit status.
verdict() {
	case $1 in
	0) echo PASS ;;
	77) echo "SKIP $(sed -n 's/^SKIP: //p' "$WORK/$2.out" | head -n 1)" ;;
	124 | 137) echo "FAIL timed out after $3 s" ;;
	hung) echo "FAIL hung: still running after SIGKILL" ;;
	*) echo "FAIL exit status $1" ;;
	esac
}

# one_test NAME: run test NAME (AREA/NAME), clean up after, check the
# kernel log, report. Its files in $WORK are under AREA/ too.
one_test() {
	_name=$1
	set -- "$TESTS_DIR/$_name.sh"
	mkdir -p "$WORK/${_name%/*}"
	_timeout=$(test_timeout "$1")
	_mark="start $_name ($$.$(date +%s%N))"
	kmsg 4 "$_mark"
	_start=$(date +%s)
	run_test "$1" "$_name" "$_timeout"
	cleanup_state "$WORK/baseline" >"$WORK/$_name.clean" 2>&1
	kernel_log_since "$_mark" >"$WORK/$_name.dmesg"
	grep -E -f "$KERNEL_BAD" "$WORK/$_name.dmesg" >"$WORK/$_name.kernel" || true
	_t0=$(date +%s)
	kmemleak_check "$_name"
	_kl=$(($(date +%s) - _t0))
	_v=$(verdict "$RC" "$_name" "$_timeout")
	_result=${_v%% *}
	_reason=${_v#"$_result"}
	_reason=${_reason# }
	if [ -s "$WORK/$_name.kernel" ]; then
		_result=FAIL
		_reason="${_reason:+$_reason; }kernel warning/bug in dmesg"
	fi
	if [ -s "$WORK/$_name.kmemleak" ]; then
		_result=FAIL
		_n=$(grep -c '^unreferenced object' "$WORK/$_name.kmemleak")
		_reason="${_reason:+$_reason; }kmemleak: $_n leak(s) from klpc modules"
	fi
	# lockdep switches itself off for good after its first report, or when
	# a report taints the kernel (KASAN): the tests after it run unchecked
	# ... or when a test taints the kernel on purpose ("rmmod -f"): such a
	# test says so with a '# klpc-taints:' line and runs late
	if [ "$LOCKDEP" = on ] && ! lockdep_on; then
		LOCKDEP="off since $_name"
		if ! grep -q '^# *klpc-taints:' "$1" ||
			! grep -q 'Disabling lock debugging due to kernel taint' \
				"$WORK/$_name.dmesg"; then
			_result=FAIL
			_reason="${_reason:+$_reason; }lockdep turned itself off: later tests run without it"
		fi
	fi
	kmsg 6 "klpc-test-end $_name $_result"
	_took="$(($(date +%s) - _start)) s"
	# the time of the kmemleak scan after the test is included
	[ -z "$KMEMLEAK_OURS" ] || _took="$_took, kmemleak $_kl s"
	report "$_name" "$_result" "$_reason" "$_took"
}

main() {
	loaded_modules >"$WORK/baseline"
	load_bad_list
	kernel_line
	LOCKDEP=$(onoff lockdep_on)
	KMEMLEAK_OURS=
	if kmemleak_on; then
		KMEMLEAK_OURS=$(our_modules_re)
		# forget what the boot leaked: the first test sees its own only
		{ echo scan >"$KMEMLEAK" && echo clear >"$KMEMLEAK"; } 2>/dev/null ||
			true
	fi
	_x=
	[ "$SCALE" -eq 1 ] || _x=", timeouts x$SCALE"
	[ -z "${KLPC_BOOT:-}" ] || _x="$_x, boot '$KLPC_BOOT'"
	echo "klpc tests: kernel $(uname -r), filter '${FILTER:-*}'$_x"
	_ran=0
	for _test in $(klpc_tests "$TESTS_DIR"); do
		klpc_selected "$_test" "$FILTER" || continue
		boot_runs "$TESTS_DIR/$_test.sh" || continue
		_ran=$((_ran + 1))
		one_test "$_test"
	done
	if [ $_ran -eq 0 ]; then
		echo "FAIL (no test matches '${FILTER:-*}')"
		FAILED=$((FAILED + 1))
	fi
	case $LOCKDEP in "off since"*) echo "lockdep: $LOCKDEP" ;; esac
	if [ -s "$WORK/kmemleak-other" ]; then
		echo "kmemleak: $(awk '{ n += $1 } END { print n }' "$WORK/kmemleak-other")" \
			"unreferenced object(s) not from klpc modules (not counted)"
	fi
	# the skips on a line of their own: the last line is exactly
	# "N passed, N failed"
	[ $SKIPPED -eq 0 ] || echo "$SKIPPED skipped"
	echo "$PASSED passed, $FAILED failed"
	[ $FAILED -eq 0 ]
}

main "$@"
