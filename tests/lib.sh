# shellcheck shell=sh
# shellcheck disable=SC2034 # variables for the tests that source this file
# Helpers for the guest tests (tests/AREA/NAME.sh, docs/testing.md). Each
# test starts with:
#
#   #!/bin/sh
#   set -eu
#   # shellcheck source=tests/lib.sh
#   . "${0%/*}/../lib.sh"
#
# A test passes when it exits 0; 'die' (or any failing command under
# set -e) fails it; 'skip' exits 77, which the runner counts as skipped.
# Output goes to the runner, which shows it only when the test fails.

KLPC_DIR=${KLPC_DIR:-/klpc}
KLPC_MODDIR=$KLPC_DIR/modules
KLPC_SYSFS=/sys/kernel/klpc
KLPC_SIGNAL_SECS=/sys/module/klpc/parameters/signal_secs
KLPC_KVER=$(cat "$KLPC_DIR/kver" 2>/dev/null || echo unknown)
# the runner's name for the test, AREA/NAME (tests/select.sh); the same
# when it runs by hand
if [ -z "${KLPC_TEST:-}" ]; then
	KLPC_TEST=${0%/*}
	KLPC_TEST=${KLPC_TEST##*/}/${0##*/}
	KLPC_TEST=${KLPC_TEST%.sh}
fi
export KLPC_DIR KLPC_MODDIR KLPC_SYSFS KLPC_KVER KLPC_TEST
# bounded waits (wait_transition, wait_until) last this many times longer
# on a slower kernel (the debug kernel: vm/run.sh, klpc.timeout_scale=)
KLPC_TIMEOUT_SCALE=${KLPC_TIMEOUT_SCALE:-1}

die() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

info() {
	echo "$*"
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	[ "$1" = "$2" ] || die "${3:-value}: expected '$1', got '$2'"
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
	[ "$1" != "$2" ] || die "${3:-value}: unexpectedly '$2'"
}

# assert_file_eq FILE EXPECTED: FILE's content (less its final newline).
assert_file_eq() {
	[ -e "$1" ] || die "$1 does not exist"
	_actual=$(cat "$1") || die "cannot read $1"
	assert_eq "$2" "$_actual" "$1"
}

# assert_exists PATH / assert_not_exists PATH
assert_exists() {
	[ -e "$1" ] || die "$1 does not exist"
}

assert_not_exists() {
	[ ! -e "$1" ] || die "$1 exists"
}

# expect_fail CMD...: CMD must exit non-zero.
expect_fail() {
	if "$@" >/dev/null 2>&1; then
		die "'$*' succeeded, expected a failure"
	fi
}

# write_sysfs VALUE FILE: write VALUE plus a newline (like echo) with one
# write(2). Returns the write's status; on failure stderr has the errno
# text, e.g. "printf: write error: Invalid argument".
write_sysfs() {
	env printf '%s\n' "$1" >"$2"
}

# errno_text NAME: strerror text for an errno name (EINVAL...), else NAME.
errno_text() {
	case $1 in
	EPERM) echo "Operation not permitted" ;;
	ENOENT) echo "No such file or directory" ;;
	ESRCH) echo "No such process" ;;
	EINTR) echo "Interrupted system call" ;;
	EIO) echo "Input/output error" ;;
	E2BIG) echo "Argument list too long" ;;
	ENOEXEC) echo "Exec format error" ;;
	EAGAIN) echo "Resource temporarily unavailable" ;;
	ENOMEM) echo "Cannot allocate memory" ;;
	EACCES) echo "Permission denied" ;;
	EFAULT) echo "Bad address" ;;
	EBUSY) echo "Device or resource busy" ;;
	EEXIST) echo "File exists" ;;
	ENODEV) echo "No such device" ;;
	EINVAL) echo "Invalid argument" ;;
	ENOSPC) echo "No space left on device" ;;
	ERANGE) echo "Numerical result out of range" ;;
	ENOSYS) echo "Function not implemented" ;;
	ENOTSUPP | EOPNOTSUPP) echo "Operation not supported" ;;
	ETIMEDOUT) echo "Connection timed out" ;;
	EALREADY) echo "Operation already in progress" ;;
	EINPROGRESS) echo "Operation now in progress" ;;
	ECANCELED) echo "Operation canceled" ;;
	*) echo "$1" ;;
	esac
}

# expect_write_error FILE VALUE [ERRNO]: writing VALUE to FILE must fail,
# with ERRNO (a name like EINVAL, or the strerror text) if given.
expect_write_error() {
	if _err=$(write_sysfs "$2" "$1" 2>&1); then
		die "writing '$2' to $1 succeeded, expected ${3:-an error}"
	fi
	[ $# -lt 3 ] && return 0
	_want=$(errno_text "$3")
	case $_err in
	*"$_want"*) ;;
	*) die "writing '$2' to $1: expected '$_want', got '$_err'" ;;
	esac
}

# expect_write_ok FILE VALUE: writing VALUE to FILE must succeed.
expect_write_ok() {
	_err=$(write_sysfs "$2" "$1" 2>&1) || die "writing '$2' to $1 failed: $_err"
}

# modname MOD: kernel module name (dashes become underscores).
modname() {
	echo "$1" | tr - _
}

is_loaded() {
	grep -q "^$(modname "$1") " /proc/modules
}

# klpc_insmod FILE [PARAM=VALUE...]: one finit_module(2), like kmod's
# insmod, but a failure prints the kernel's own errno text ("insmod FILE:
# Invalid argument", so errno_text applies); kmod's insmod words EINVAL as
# "Invalid parameters" and ENOENT and ESRCH as "Unknown symbol in module".
# Uses perl-base (always there); KLPC_INSMOD_PL is its program, for a
# caller that execs it (the torture driver's fault injection).
# shellcheck disable=SC2016 # perl's variables
KLPC_INSMOD_PL='
	my $file = shift;
	open(my $fh, "<", $file) or die "insmod $file: $!\n";
	# 313: finit_module on x86_64
	syscall(313, fileno($fh), join(" ", @ARGV), 0) == 0 and exit 0;
	print STDERR "insmod $file: $!\n";
	exit 1;
'

klpc_insmod() {
	perl -e "$KLPC_INSMOD_PL" "$@"
}

# load MOD [PARAM=VALUE...]: insmod $KLPC_MODDIR/MOD.ko, fail the test if
# that fails. try_load is the same but returns kmod insmod's status (and
# its message on stderr).
try_load() {
	_mod=$1
	shift
	[ -f "$KLPC_MODDIR/$_mod.ko" ] || {
		echo "no module $KLPC_MODDIR/$_mod.ko" >&2
		return 2
	}
	insmod "$KLPC_MODDIR/$_mod.ko" "$@"
}

load() {
	_out=$(try_load "$@" 2>&1) || die "insmod $*: ${_out:-failed}"
}

# expect_load_fail MOD [PARAM=VALUE...]: insmod must fail.
expect_load_fail() {
	if try_load "$@" 2>/dev/null; then
		die "insmod $* succeeded, expected a failure"
	fi
	! is_loaded "$1" || die "$1 is loaded after a failed insmod"
}

# unload MOD: rmmod, fail the test if that fails.
unload() {
	_out=$(rmmod "$(modname "$1")" 2>&1) || die "rmmod $1: ${_out:-failed}"
}

klpc_core_load() {
	is_loaded klpc || load klpc "$@"
}

klpc_core_unload() {
	! is_loaded klpc || unload klpc
}

# patch_dir PATCH: the patch's sysfs directory.
patch_dir() {
	echo "$KLPC_SYSFS/$(modname "$1")"
}

# wait_transition PATCH [TIMEOUT_S]: poll PATCH's transition until it
# reads 0; fail the test after TIMEOUT_S seconds (default 30; times
# KLPC_TIMEOUT_SCALE).
wait_transition() {
	_f=$(patch_dir "$1")/transition
	_max=$((${2:-30} * 10 * KLPC_TIMEOUT_SCALE))
	_i=0
	while :; do
		_v=$(cat "$_f" 2>&1) || die "cannot read $_f: $_v"
		[ "$_v" = 0 ] && return 0
		_i=$((_i + 1))
		[ $_i -le $_max ] ||
			die "$_f still '$_v' after $((${2:-30} * KLPC_TIMEOUT_SCALE)) s; /proc/klpc/tasks: $(blocking_summary)"
		sleep 0.1
	done
}

# enable_patch PATCH / disable_patch PATCH: write enabled and wait for
# the transition to finish.
enable_patch() {
	expect_write_ok "$(patch_dir "$1")/enabled" 1
	wait_transition "$1" "${2:-30}"
}

disable_patch() {
	expect_write_ok "$(patch_dir "$1")/enabled" 0
	wait_transition "$1" "${2:-30}"
}

# dmesg_mark [NAME]: write a unique mark to the kernel log;
# dmesg_since_mark prints the kernel log lines after the last mark.
dmesg_mark() {
	KLPC_MARK="klpc-mark ${1:-$KLPC_TEST} $$.$(date +%s%N)"
	echo "<6>$KLPC_MARK" >/dev/kmsg
}

dmesg_since_mark() {
	[ -n "${KLPC_MARK:-}" ] || die "dmesg_since_mark without dmesg_mark"
	dmesg | awk -v m="$KLPC_MARK" 'found { print } index($0, m) { found = 1 }'
}

# assert_dmesg_has REGEX: a kernel log line after the mark matches REGEX.
assert_dmesg_has() {
	dmesg_since_mark | grep -Eq -- "$1" || die "no kernel log line matches '$1'"
}

# --- klpc specifics -------------------------------------------------------

# What the sample patches make /proc/cmdline read.
KLPC_SAMPLE_TEXT='this has been live patched by klpc'
KLPC_STACK_TEXT='this has been live patched twice by klpc'

# insmod_errno_text NAME: how kmod's insmod reports errno NAME; it words
# ENOENT, EINVAL and ENOEXEC its own way and uses strerror for the rest.
insmod_errno_text() {
	case $1 in
	ENOENT) echo "Unknown symbol in module" ;;
	EINVAL) echo "Invalid parameters" ;;
	ENOEXEC) echo "Invalid module format" ;;
	*) errno_text "$1" ;;
	esac
}

# expect_load_error ERRNO MOD [PARAM=VALUE...]: insmod must fail with ERRNO
# (a name like EINVAL) and leave the module unloaded.
expect_load_error() {
	_want=$(insmod_errno_text "$1")
	shift
	if _err=$(try_load "$@" 2>&1); then
		die "insmod $* succeeded, expected $_want"
	fi
	case $_err in
	*"$_want"*) ;;
	*) die "insmod $*: expected '$_want', got '$_err'" ;;
	esac
	! is_loaded "$1" || die "$1 is loaded after a failed insmod"
}

# target_field NAME: a field of /proc/klpc_target ("message=... dup=1,2").
target_field() {
	_line=$(cat /proc/klpc_target) || die "cannot read /proc/klpc_target"
	case $1 in
	message) _v=${_line#message=} && echo "${_v%% dup=*}" ;;
	*) _v=${_line##*" $1="} && echo "${_v%% *}" ;;
	esac
}

KLPC_HAMMER=$KLPC_DIR/tests/bin/klpc-hammer

# tasks_blocking: the lines of /proc/klpc/tasks (tasks yet to move).
tasks_blocking() {
	cat /proc/klpc/tasks
}

# blocking_summary: the first lines of /proc/klpc/tasks on one line, for
# failure messages.
blocking_summary() {
	_l=$(head -n 8 /proc/klpc/tasks 2>&1 | tr '\n' ';') || true
	echo "${_l:-(empty)}"
}

# ms_now: monotonic milliseconds (from /proc/uptime, 10 ms resolution).
ms_now() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# figure TEXT: a measured figure, shown by the runner even when the test
# passes (figures are reported, never asserted).
figure() {
	echo "FIGURE $*"
}

# start_sleeper [k]: a task sleeping in klpc_target_cm's klpc_cm_sleeper()
# (with k a killable sleep, which neither a freezer nor a fake signal
# breaks); its pid in SLEEPER, its output in $KLPC_TMP/sleeper.out.  The sleeper is
# released when the test exits, however it exits, so that klpc_cm_target
# can always be removed.  klpc's fake signals are turned off (klpc must be
# loaded), so that only the test wakes it.
# shellcheck disable=SC2120 # the freezer tests pass k
start_sleeper() {
	# the sleeper must stay in the old function however slow the kernel:
	# klpc's fake signals (after signal_secs, 15 s; the debug kernel's
	# tests can take longer) would wake it and legitimately move it
	[ ! -e "$KLPC_SIGNAL_SECS" ] || write_sysfs 0 "$KLPC_SIGNAL_SECS"
	write_sysfs "${1:-0}" /proc/klpc_cm_sleep
	trap release_sleeper EXIT
	trap 'exit 1' INT TERM
	cat /proc/klpc_cm_sleep >"$KLPC_TMP/sleeper.out" &
	SLEEPER=$!
	# a sleeper still on its way (exec, open) would move, then sleep in
	# whatever version its new state gives it: wait until it sleeps
	wait_until 20 sleeping_in klpc_cm_wait "$SLEEPER" ||
		die "the sleeper $SLEEPER did not go to sleep in klpc_cm_wait(): $(tr '\n' ' ' <"/proc/$SLEEPER/stack" 2>&1)"
}

# sleeping_in FUNCTION PID: PID's kernel stack shows FUNCTION.
sleeping_in() {
	grep -q "\b$1+" "/proc/$2/stack" 2>/dev/null
}

# load_cm_patch_blocked: klpc_cm_target loaded, a sleeper inside
# klpc_cm_sleeper() (pid in SLEEPER), then klpc-cm-patch loaded: its
# patching transition must stay open.
load_cm_patch_blocked() {
	load klpc-cm-target
	start_sleeper
	load klpc-cm-patch
	sleep 1
	assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
}

release_sleeper() {
	[ ! -e /proc/klpc_cm_sleep ] || write_sysfs 1 /proc/klpc_cm_sleep || true
}

# module_log MOD: what module MOD (its pr_fmt prefix "MOD: ") printed to
# the kernel log since the mark, one message per line, prefix removed.
module_log() {
	dmesg_since_mark | sed -n "s/^\[[^]]*\] $1: //p"
}

# assert_module_log MOD EXPECTED...: MOD printed exactly the EXPECTED
# lines since the mark, in that order.
assert_module_log() {
	_mod=$1
	shift
	_want=$(printf '%s\n' "$@")
	[ $# -gt 0 ] || _want=
	_got=$(module_log "$_mod")
	[ "$_want" = "$_got" ] ||
		die "$_mod logged:
$_got
expected:
$_want"
}

# proc_first_line FILE: the first line of a /proc file.
proc_first_line() {
	head -n 1 "$1"
}

# --- helpers of the reliability tests ---------------------------------------

KLPC_TASKS=$KLPC_DIR/tests/bin/klpc-tasks

# module_refcnt MOD: the reference count of loaded module MOD.
module_refcnt() {
	cat "/sys/module/$(modname "$1")/refcnt"
}

# klpc_stat NAME: a figure of /proc/klpc/stats (entries, pending...).
klpc_stat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/klpc/stats
}

# cm_mismatches: the mismatch count /proc/klpc_cm shows.
cm_mismatches() {
	sed -n 's/.* mismatches=\([0-9]*\)$/\1/p' /proc/klpc_cm
}

# wait_until SECONDS CMD...: poll CMD every 0.1 s until it succeeds;
# return 1 if it still fails after SECONDS (times KLPC_TIMEOUT_SCALE) by
# the clock (under TCG a poll takes longer than its 0.1 s sleep).
wait_until() {
	_wu_end=$(($(ms_now) + $1 * 1000 * KLPC_TIMEOUT_SCALE))
	shift
	until "$@"; do
		[ "$(ms_now)" -le "$_wu_end" ] || return 1
		sleep 0.1
	done
}

# transition_done PATCH: its transition reads 0.
transition_done() {
	[ "$(cat "$(patch_dir "$1")/transition")" = 0 ]
}

# wait_transition_within PATCH SECONDS: wait_transition, bounded by the
# clock rather than by a count of polls; a failure shows what blocks.
wait_transition_within() {
	wait_until "$2" transition_done "$1" ||
		die "$(patch_dir "$1")/transition still 1 after $(($2 * KLPC_TIMEOUT_SCALE)) s; /proc/klpc/tasks: $(blocking_summary)"
}
