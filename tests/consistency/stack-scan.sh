#!/bin/sh
# was t-2a-stack-scan
# A task that is not running moves after a scan of its stack's words when
# none of them falls in a function it must leave (moved_by_scan in
# /proc/klpc/stats); only an unwind decides when one does, or when the
# return addresses are not all on the stack. The function graph tracer
# and a kretprobe (rethook) put their trampoline's address in place of
# the return address into the old function: a sleeper in
# klpc_cm_sleeper() under either must still block the transition, and
# move only once it has left.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

T=/sys/kernel/tracing

hide_on() {
	case $1 in
	graph)
		echo klpc_cm_wait >"$T/set_ftrace_filter"
		echo function_graph >"$T/current_tracer"
		;;
	kretprobe)
		echo 'r:klpc_scan_ret klpc_cm_wait' >>"$T/kprobe_events"
		echo 1 >"$T/events/kprobes/klpc_scan_ret/enable"
		;;
	esac
}

hide_off() {
	{
		echo nop >"$T/current_tracer"
		echo >"$T/set_ftrace_filter"
		echo 0 >"$T/events/kprobes/klpc_scan_ret/enable"
		echo '-:klpc_scan_ret' >>"$T/kprobe_events"
	} 2>/dev/null || true
}

# hidden_sleeper HOW: a sleeper in the old function, its return address
# into it hidden by HOW, blocks the patch's transition until it leaves
hidden_sleeper() {
	hide_on "$1"
	trap hide_off EXIT
	start_sleeper
	sleeper=$SLEEPER
	trap 'release_sleeper; hide_off' EXIT
	load klpc-cm-patch
	d=$(patch_dir klpc_cm_patch)
	sleep 1
	[ "$(cat "$d/transition")" = 1 ] ||
		die "$1: the sleeper moved: transition ended; stats: $(tr '\n' ' ' </proc/klpc/stats)"
	tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
		die "$1: sleeper $sleeper not blocking in klpc_cm_sleeper: $(blocking_summary)"
	write_sysfs 1 /proc/klpc_cm_sleep
	wait "$sleeper"
	assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "$1: the sleeper ran"
	wait_transition klpc_cm_patch 10
	assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "$1: a new read"
	hide_off
	trap - EXIT
	disable_patch klpc_cm_patch
	unload klpc-cm-patch
}

klpc_core_load

# an ordinary transition: the sleeping tasks move by the scan
load klpc-sample
wait_transition klpc_sample
scan=$(klpc_stat moved_by_scan)
info "klpc_sample: moved_by_scan $scan, moved_by_stack $(klpc_stat moved_by_stack), moved_by_resume $(klpc_stat moved_by_resume)"
[ "$scan" -gt 10 ] || die "only $scan tasks moved by a scan of their stacks: $(tr '\n' ' ' </proc/klpc/stats)"
disable_patch klpc_sample
unload klpc-sample

[ -d "$T/events" ] || mount -t tracefs nodev "$T"
load klpc-cm-target
hidden_sleeper graph
hidden_sleeper kretprobe
unload klpc-cm-target
unload klpc
