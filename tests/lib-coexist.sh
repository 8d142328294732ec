# shellcheck shell=sh
# Helpers of the coexistence tests (tests/coexist/), after lib.sh: kprobes
# and kretprobes through tracefs's kprobe_events, and the function and
# function_graph tracers, on the functions klpc patches. coexist_setup
# makes the test leave tracefs as it found it, however it exits.

T=/sys/kernel/tracing

coexist_setup() {
	[ -w $T/kprobe_events ] || skip "no tracefs on $T"
	trap 'release_sleeper; coexist_cleanup' EXIT
	trap 'exit 1' INT TERM
	echo 1 >$T/tracing_on
	echo >$T/trace
}

coexist_cleanup() {
	tracer_off 2>/dev/null || true
	probes_clear 2>/dev/null || true
	echo 1 >$T/tracing_on 2>/dev/null || true
}

# probe_add DEFINITION...: kprobe_events lines ('p:NAME FUNC', 'r:...'),
# then every probe enabled.
probe_add() {
	for _def in "$@"; do
		echo "$_def" >>$T/kprobe_events || die "kprobe_events refused '$_def'"
	done
	echo 1 >$T/events/kprobes/enable
}

probes_clear() {
	[ ! -e $T/events/kprobes/enable ] || echo 0 >$T/events/kprobes/enable
	echo >$T/kprobe_events
}

# probe_hits NAME: how often probe NAME fired (kprobe_profile).
probe_hits() {
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print "none" }' \
		$T/kprobe_profile
}

# assert_probes_fire MIN CMD NAME...: each probe NAME fires at least MIN
# more times while CMD runs.
assert_probes_fire() {
	_min=$1
	_cmd=$2
	shift 2
	_before=$(for _n in "$@"; do echo "$_n $(probe_hits "$_n")"; done)
	sh -c "$_cmd" >/dev/null || die "'$_cmd' failed"
	echo "$_before" | while read -r _n _b; do
		_a=$(probe_hits "$_n")
		if [ "$_a" = none ] || [ "$_a" -lt $((_b + _min)) ]; then
			echo "FAIL: probe $_n: $_b hits, then $_a after '$_cmd' (expected $_min more)" >&2
			exit 1
		fi
	done || exit 1
}

# tracer_set TRACER [FUNCTION...]: trace only FUNCTIONs (none: all).
tracer_set() {
	_tr=$1
	shift
	echo >$T/set_ftrace_filter
	for _f in "$@"; do
		echo "$_f" >>$T/set_ftrace_filter || die "set_ftrace_filter refused $_f"
	done
	echo "$_tr" >$T/current_tracer || die "cannot set the $_tr tracer"
	echo >$T/trace
	echo 1 >$T/tracing_on
}

tracer_off() {
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_filter
	echo >$T/trace
}

# assert_traced FUNCTION CMD: CMD's run shows FUNCTION in the trace
# (the function tracer's "FUNCTION <-caller", the graph's "FUNCTION();").
assert_traced() {
	echo >$T/trace
	sh -c "$2" >/dev/null || die "'$2' failed"
	grep -v '^#' $T/trace | grep -Eq "(^|[ |])$1( \[[a-z0-9_]+\])?(\(\)|;| <-)" ||
		die "$1 not in the trace after '$2': $(grep -v '^#' $T/trace | tail -n 5)"
}

# assert_not_traced FUNCTION CMD: CMD's run does not show FUNCTION.
assert_not_traced() {
	echo >$T/trace
	sh -c "$2" >/dev/null || die "'$2' failed"
	! grep -v '^#' $T/trace | grep -Eq "(^|[ |])$1( \[[a-z0-9_]+\])?(\(\)|;| <-)" ||
		die "$1 in the trace after '$2': $(grep -v '^#' $T/trace | tail -n 5)"
}

# --- the kernel's built-in livepatch --------------------------------------

KLPC_LP_SYSFS=/sys/kernel/livepatch

builtin_done() {
	[ "$(cat "$KLPC_LP_SYSFS/$1/transition")" = 0 ]
}

builtin_gone() {
	[ ! -e "$KLPC_LP_SYSFS/$1" ]
}

# builtin_load MOD: load a built-in livepatch module, wait for its
# transition.
builtin_load() {
	load "$1"
	wait_until 60 builtin_done "$(modname "$1")" ||
		die "the built-in patch $1's transition did not end: $(cat /proc/*/patch_state 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
	assert_file_eq "$KLPC_LP_SYSFS/$(modname "$1")/enabled" 1
}

# builtin_remove MOD: disable it (6.1 then frees the patch) and rmmod.
builtin_remove() {
	write_sysfs 0 "$KLPC_LP_SYSFS/$(modname "$1")/enabled" ||
		die "cannot disable the built-in patch $1"
	wait_until 60 builtin_gone "$(modname "$1")" ||
		die "the built-in patch $1 was not freed"
	unload "$1"
}
