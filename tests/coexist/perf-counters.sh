#!/bin/sh
# was t-4g-coexist-perf
# perf counters on the functions klpc patches, the way 'perf probe' and
# 'perf stat' (and bpftrace) attach (tests/tools/klpc-perf, the calls
# perf makes, as the guest has no perf tool): a kprobe_events probe
# counted through perf_event_open() (what 'perf probe' makes and 'perf
# stat -e probe:NAME' counts), and the kprobe PMU's kprobes and
# kretprobes, which perf_event_open() makes itself. The counter first,
# klpc first, and during a transition a sleeper holds: each counts every
# call whichever version runs, the patched code runs, a counter on the
# new function counts only while the patch is enabled, and on the pair
# the transition changes the perf count equals a tracefs probe's.
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-coexist.sh
. "${0%/*}/../lib-coexist.sh"

PERF=$KLPC_DIR/tests/bin/klpc-perf
[ -x "$PERF" ] || die "no $PERF (make builds it)"
[ -r /sys/bus/event_source/devices/kprobe/type ] || skip "no kprobe PMU"

# perf_start SPEC: klpc-perf counting SPEC in the background, once its
# counters are open
perf_start() {
	rm -f "$KLPC_TMP/perf.ready" "$KLPC_TMP/perf.stop"
	"$PERF" "$1" "$KLPC_TMP/perf.ready" "$KLPC_TMP/perf.stop" >"$KLPC_TMP/perf.out" 2>&1 &
	PERF_PID=$!
	wait_until 30 test -e "$KLPC_TMP/perf.ready" ||
		die "klpc-perf $1 did not start: $(cat "$KLPC_TMP/perf.out")"
}

# perf_stop: stop the counter perf_start started; its count in PERF_N
perf_stop() {
	touch "$KLPC_TMP/perf.stop"
	wait "$PERF_PID" || die "klpc-perf: $(cat "$KLPC_TMP/perf.out")"
	PERF_N=$(cat "$KLPC_TMP/perf.out")
}

# assert_counted PROBE BEFORE MIN WHAT: perf counted what the tracefs
# probe PROBE counted since it read BEFORE (kmod's insmod and rmmod read
# /proc/cmdline too), and at least the MIN calls the test made
assert_counted() {
	assert_eq "$(($(probe_hits "$1") - $2))" "$PERF_N" "$4: perf's count against kprobe_profile's"
	[ "$PERF_N" -ge "$3" ] || die "$4: perf counted $PERF_N calls, the test made $3"
}

# reads N: read /proc/cmdline N times, each showing EXPECTED
reads() {
	_i=0
	while [ $_i -lt "$1" ]; do
		assert_eq "$2" "$(cat /proc/cmdline)" "/proc/cmdline under the counter"
		_i=$((_i + 1))
	done
}

orig=$(cat /proc/cmdline)
klpc_core_load
coexist_setup

# the counters first (the kprobe PMU), klpc loaded and enabled under
# them; a tracefs probe of the same kind counts beside
for pair in p:kprobe r:kretprobe; do
	kind=${pair#*:}
	probe_add "${pair%%:*}:klpc_ref cmdline_proc_show"
	before=$(probe_hits klpc_ref)
	perf_start "$kind:cmdline_proc_show"
	reads 1 "$orig"
	load klpc-sample
	wait_transition klpc_sample
	reads 3 "$KLPC_SAMPLE_TEXT"
	disable_patch klpc_sample
	reads 1 "$orig"
	unload klpc-sample
	perf_stop
	assert_counted klpc_ref "$before" 5 "$kind while klpc came and went"
	probes_clear
done

# klpc first: 'perf probe' (a kprobe_events probe, counted by its id),
# and a kprobe PMU counter on the new function
load klpc-sample
wait_transition klpc_sample
probe_add 'p:klpc_pp cmdline_proc_show'
perf_start "tp:$(cat $T/events/kprobes/klpc_pp/id)"
reads 2 "$KLPC_SAMPLE_TEXT"
disable_patch klpc_sample
reads 1 "$orig"
perf_stop
assert_eq 3 "$PERF_N" "the perf-probe event's count"
probes_clear
perf_start kprobe:klpc_sample_cmdline_proc_show
reads 2 "$orig"
enable_patch klpc_sample
reads 3 "$KLPC_SAMPLE_TEXT"
perf_stop
assert_eq 3 "$PERF_N" "the new function's count (disabled, then enabled)"
disable_patch klpc_sample
unload klpc-sample

# during a transition: the pair it changes, counted by perf and by a
# tracefs probe at once, while a sleeper holds it and while it reverses
load_cm_patch_blocked
sleeper=$SLEEPER
probe_add 'p:klpc_kpc klpc_cm_target:klpc_cm_caller'
before=$(probe_hits klpc_kpc)
perf_start kprobe:klpc_cm_caller
cat /proc/klpc_cm >/dev/null
expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 0
cat /proc/klpc_cm >/dev/null
perf_stop
assert_counted klpc_kpc "$before" 2 "klpc_cm_caller in transition"
assert_eq 0 "$(cm_mismatches)" "mismatches under the counters, in transition"
probes_clear
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
