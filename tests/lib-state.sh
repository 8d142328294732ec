# shellcheck shell=sh
# shellcheck disable=SC2034 # variables for the tests that source this file
# Helpers for the system state tests (tests/state/upstream-*, state/disabled-patch-holds-none), sourced after lib.sh and
# lib-cb.sh: upstream's test-state.sh sequences, replayed with the
# klpc-test-state{,2,3} patches (tests/modules/state-patch.h).  Their
# state is a change of console_loglevel: raised to 15
# (CONSOLE_LOGLEVEL_MOTORMOUTH) by post_patch, restored by pre_unpatch.
# The story since st_start (steps, the patches' lines, klpc's placing
# lines) is compared with cb_expect, as the callback tests do.

CB_MODULES='klpc_test_state[23]?'
ST_MOTORMOUTH=15

# st_loglevel: the current console_loglevel, the first of four numbers.
# Not with the shell's read: it reads a byte at a time, and a sysctl file
# read at an offset past 0 is empty.
st_loglevel() {
	_printk=$(cat /proc/sys/kernel/printk) ||
		die "cannot read /proc/sys/kernel/printk"
	echo "${_printk%%[!0-9]*}"
}

# st_restore: put console_loglevel back as st_start found it, so that a
# failed test does not leave the console printing everything.
st_restore() {
	[ -z "${ST_LOGLEVEL:-}" ] ||
		write_sysfs "$ST_LOGLEVEL" /proc/sys/kernel/printk || true
}

# st_start: cb_start, none of the state patches loaded, the original
# console_loglevel in ST_LOGLEVEL (restored when the test exits).
st_start() {
	cb_start
	for _m in klpc-test-state klpc-test-state2 klpc-test-state3; do
		! is_loaded "$_m" || die "$_m is loaded already"
	done
	ST_LOGLEVEL=$(st_loglevel)
	assert_ne "$ST_MOTORMOUTH" "$ST_LOGLEVEL" "console_loglevel at the start"
	trap st_restore EXIT
	trap 'exit 1' INT TERM
}

# st_assert_loglevel LEVEL: console_loglevel is LEVEL; on failure the
# story so far is shown too.
st_assert_loglevel() {
	_level=$(st_loglevel)
	[ "$1" != "$_level" ] || return 0
	echo "kernel log lines so far:"
	cb_lines | sed 's/^/    /'
	die "console_loglevel: expected $1, got $_level"
}
