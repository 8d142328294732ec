# shellcheck shell=bash
# klpc's part of upstream's livepatch selftests' functions.sh
# (parity/upstream-selftests-replayed):
# sourced after upstream's own, it redefines what differs on klpc.  The
# scripts run with klpc's sysfs bound over /sys/kernel/livepatch, so their
# own paths reach klpc's patches.
#
# - disable_lp: klpc keeps a disabled patch's directory (enabled 0) until
#   its module is removed; upstream removes it with the transition.  Wait
#   for the transition to end instead.
# - check_result: the same comparison, without the lines of the built-in
#   livepatch core ("livepatch: ..."; klpc's own are "klpc: ..." and not
#   compared: klpc's ports in tests/parity/ compare them).  Kept: the
#   commands the scripts log, the test modules' lines, and the
#   "livepatch: ..." lines the scripts write themselves (the
#   ftrace_enabled sysctl's outcome).
# - die: in a case where klpc deliberately differs (KLPC_KNOWN: the case,
#   the message, why), the check that upstream's script makes is reported
#   on the case's line ("[klpc-known: ...]") and the case goes on; every other die is
#   upstream's.
# - modprobe, modinfo (6.1's scripts): from a module tree of the test's
#   own (KLPC_UP_ROOT, made by parity/upstream-selftests-replayed), not
#   the running kernel's.

# script_line LINE: whether LINE is one the scripts print themselves
script_line() {
	case $1 in
	"livepatch: kernel.ftrace_enabled = "* | "livepatch: sysctl: "*) return 0 ;;
	esac
	return 1
}

# klpc_expected: stdin without empty lines and the built-in livepatch
# core's lines
klpc_expected() {
	local line
	while IFS= read -r line; do
		if [[ $line == "livepatch: "* ]] && ! script_line "$line"; then
			continue
		fi
		[ -n "$line" ] && printf '%s\n' "$line"
	done
	return 0
}

function disable_lp() {
	local mod="$1"

	log "% echo 0 > /sys/kernel/livepatch/$mod/enabled"
	echo 0 > /sys/kernel/livepatch/"$mod"/enabled

	# shellcheck disable=SC2016 # loop_until evals it
	loop_until 'grep -q "^0$" /sys/kernel/livepatch/$mod/transition' ||
		die "failed to disable livepatch $mod"
}

# new_dmesg: the kernel log since start_test, as the series' own
# check_result finds it (6.1: a saved copy; 6.12: a canary line)
new_dmesg() {
	if [ -n "${SAVED_DMESG:-}" ]; then
		dmesg | comm --nocheck-order -13 "$SAVED_DMESG" -
	else
		dmesg | awk -v last_dmesg="$LAST_DMESG" 'p; $0 == last_dmesg { p=1 }'
	fi
}

function check_result {
	local expect result

	expect=$(printf '%s\n' "$*" | klpc_expected)
	result=$(new_dmesg | grep -e 'livepatch:' -e 'test_klp' |
		grep -v '\(tainting\|taints\) kernel' |
		sed 's/^\[[ 0-9.]*\] //' | grep -v '^klpc: ' | klpc_expected)

	if [[ "$expect" == "$result" ]]; then
		echo "ok"
	else
		# files, not <(...): the guest's /dev has no fd/
		echo "$expect" >"$KLPC_UP_WORK/expected"
		echo "$result" >"$KLPC_UP_WORK/result"
		echo -e "not ok\n\n$(cd "$KLPC_UP_WORK" && diff -u expected result)\n"
		die "livepatch kselftest(s) failed"
	fi
	if declare -F cleanup_dmesg_file >/dev/null; then
		cleanup_dmesg_file
	fi
}

if [ -n "${KLPC_UP_ROOT:-}" ]; then
	function modprobe() {
		command modprobe -d "$KLPC_UP_ROOT" "$@"
	}
	function modinfo() {
		command modinfo -b "$KLPC_UP_ROOT" "$@"
	}
fi

# case|message|why, one per line
KLPC_KNOWN="atomic replace livepatch|Expecting only one moduled listed, found 4|klpc keeps a replaced patch, enabled 0, until its module is removed; upstream frees it with the transition (docs/design.md)"

# the case start_test named last, for die
eval "upstream_$(declare -f start_test)"
function start_test() {
	KLPC_CASE=$1
	upstream_start_test "$1"
}

function die() {
	local c m why

	while IFS='|' read -r c m why; do
		if [[ "${KLPC_CASE:-}" == "$c" && "$1" == "$m" ]]; then
			# on the case's line, before its "ok"
			echo -n "[klpc-known: '$1': $why] "
			return 0
		fi
	done <<<"$KLPC_KNOWN"
	log "ERROR: $1"
	echo "ERROR: $1" >&2
	exit 1
}
