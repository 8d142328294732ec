#!/bin/sh
# A task that is not running moves after a scan of its stack's words when
# none of them falls in a function it must leave (moved_by_scan in
# /proc/klpc/stats); only an unwind decides when one does, or when the
# return addresses are not all on the stack. The function graph tracer
# puts return_to_handler in place of the return address into the old
# function: a sleeper in klpc_cm_sleeper() under it must still block the
# transition, and move only once it has left.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"

T=/sys/kernel/tracing

graph_off() {
	echo nop >"$T/current_tracer" 2>/dev/null || true
	echo >"$T/set_ftrace_filter" 2>/dev/null || true
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

# a sleeper whose return address into the old function is hidden
[ -d "$T" ] || mount -t tracefs nodev "$T"
load klpc-cm-target
echo klpc_cm_wait >"$T/set_ftrace_filter"
echo function_graph >"$T/current_tracer"
trap graph_off EXIT
start_sleeper
sleeper=$SLEEPER
trap 'release_sleeper; graph_off' EXIT
grep -q '^ *[0-9]*) .*klpc_cm_wait' "$T/trace" ||
	die "the graph tracer did not see klpc_cm_wait: $(head -n 20 "$T/trace" | tr '\n' '|')"
load klpc-cm-patch
d=$(patch_dir klpc_cm_patch)
sleep 1
assert_file_eq "$d/transition" 1
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "sleeper $sleeper not blocking in klpc_cm_sleeper: $(blocking_summary); stats: $(tr '\n' ' ' </proc/klpc/stats)"

write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
assert_eq "slept v1" "$(cat "$KLPC_TMP/sleeper.out")" "the sleeper ran the old version"
wait_transition klpc_cm_patch 10
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "a new read runs the new version"
graph_off
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
