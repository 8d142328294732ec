#!/bin/sh
# Guest test runner: runs tests/t-*.sh in sorted order, each in its own
# process under a timeout, checks the kernel log each test produced, cleans
# up modules and patches a test left behind, and ends with exactly
# "N passed, N failed" (", N skipped" is added when some were skipped).
#
# Usage: run-tests.sh [GLOB[,GLOB...]]   (default: $KLPC_FILTER, else all)
# A glob matches the test name without .sh (t-10-foo). A test may set its
# own timeout with a line '# klpc-timeout: SECONDS' (default 120, or
# $KLPC_TEST_TIMEOUT).
set -eu

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
FILTER=${1:-${KLPC_FILTER:-}}
DEFAULT_TIMEOUT=${KLPC_TEST_TIMEOUT:-120}
# slub_debug's reports start 'BUG <cache> (...): Poison overwritten' etc.
KERNEL_BAD='WARNING:|BUG:|BUG [^ ]+ \(|Oops|general protection|Kernel panic|kernel BUG at|refcount_t|Poison overwritten|Redzone overwritten|Object padding overwritten|Freepointer corrupt|list_(add|del) corruption|UBSAN:'
WORK=$(mktemp -d /tmp/klpc-tests.XXXXXX)
PASSED=0
FAILED=0
SKIPPED=0

# kmsg LEVEL TEXT: a line in the kernel log. Level 4 reaches the console
# (loglevel=5), so a host that times out sees which test was running.
kmsg() {
	echo "<$1>klpc-runner: $2" >/dev/kmsg 2>/dev/null || true
}

# selected NAME: whether NAME matches the filter (comma-separated globs).
selected() {
	[ -z "$FILTER" ] && return 0
	_old_ifs=$IFS
	IFS=,
	set -f
	for _glob in $FILTER; do
		# shellcheck disable=SC2254 # the glob is a pattern on purpose
		case $1 in $_glob)
			IFS=$_old_ifs
			set +f
			return 0
			;;
		esac
	done
	IFS=$_old_ifs
	set +f
	return 1
}

test_timeout() {
	_t=$(sed -n 's/^# *klpc-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
	echo "${_t:-$DEFAULT_TIMEOUT}"
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
disable_patches() {
	for _f in /sys/kernel/klpc/*/enabled /sys/kernel/livepatch/*/enabled; do
		[ -f "$_f" ] || continue
		[ "$(cat "$_f" 2>/dev/null)" = 1 ] || continue
		_d=${_f%/enabled}
		if echo 0 >"$_f" 2>/dev/null; then
			echo "cleanup: disabled patch $_d"
		else
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

# report NAME VERDICT REASON SECONDS: print the verdict line and details.
report() {
	case $2 in
	PASS) PASSED=$((PASSED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	*) FAILED=$((FAILED + 1)) ;;
	esac
	echo "$2 $1${3:+ ($3)} [$4 s]"
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

# one_test FILE: run, clean up after, check the kernel log, report.
one_test() {
	_name=$(basename "$1" .sh)
	_timeout=$(test_timeout "$1")
	_mark="start $_name ($$.$(date +%s%N))"
	kmsg 4 "$_mark"
	_start=$(date +%s)
	run_test "$1" "$_name" "$_timeout"
	cleanup_state "$WORK/baseline" >"$WORK/$_name.clean" 2>&1
	kernel_log_since "$_mark" >"$WORK/$_name.dmesg"
	grep -E "$KERNEL_BAD" "$WORK/$_name.dmesg" >"$WORK/$_name.kernel" || true
	_v=$(verdict "$RC" "$_name" "$_timeout")
	_result=${_v%% *}
	_reason=${_v#"$_result"}
	_reason=${_reason# }
	if [ -s "$WORK/$_name.kernel" ]; then
		_result=FAIL
		_reason="${_reason:+$_reason; }kernel warning/bug in dmesg"
	fi
	kmsg 6 "klpc-test-end $_name $_result"
	report "$_name" "$_result" "$_reason" $(($(date +%s) - _start))
}

main() {
	loaded_modules >"$WORK/baseline"
	echo "klpc tests: kernel $(uname -r), filter '${FILTER:-*}'"
	_ran=0
	for _t in "$TESTS_DIR"/t-*.sh; do
		[ -f "$_t" ] || continue
		selected "$(basename "$_t" .sh)" || continue
		_ran=$((_ran + 1))
		one_test "$_t"
	done
	if [ $_ran -eq 0 ]; then
		echo "FAIL (no test matches '${FILTER:-*}')"
		FAILED=$((FAILED + 1))
	fi
	_summary="$PASSED passed, $FAILED failed"
	[ $SKIPPED -eq 0 ] || _summary="$_summary, $SKIPPED skipped"
	echo "$_summary"
	[ $FAILED -eq 0 ]
}

main "$@"
