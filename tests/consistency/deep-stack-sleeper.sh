#!/bin/sh
# was t-28-deep-stack
# A task sleeping with a deep stack (80 frames of recursion, nothing
# patched on it) has a reliable stack like any other: it must not block a
# transition (upstream reads up to 100 frames).
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

FRAMES=/sys/module/klpc_test_deep/parameters/frames

release_deep() {
	[ ! -e /proc/klpc_deep ] || write_sysfs 1 /proc/klpc_deep || true
}

deep_asleep() {
	[ "$(cat "$FRAMES")" != 0 ] &&
		grep -q klpc_deep_wait "/proc/$1/stack" 2>/dev/null
}

klpc_core_load
load klpc-test-deep
trap release_deep EXIT
trap 'exit 1' INT TERM
cat /proc/klpc_deep >"$KLPC_TMP/deep.out" &
deep=$!
wait_until 10 deep_asleep "$deep" || die "the deep reader $deep did not fall asleep"
frames=$(cat "$FRAMES")
lines=$(wc -l <"/proc/$deep/stack")
levels=$(grep -c klpc_deep_recurse "/proc/$deep/stack")
info "deep sleeper $deep: $frames frames; /proc/$deep/stack: $lines lines, $levels of klpc_deep_recurse"
[ "$frames" -ge 80 ] || die "the deep sleeper has $frames frames, expected at least 80"
# /proc/PID/stack shows 64 entries at most
[ "$lines" -ge 64 ] || die "/proc/$deep/stack shows $lines lines, expected 64"

orig=$(cat /proc/cmdline)
load klpc-sample
wait_transition_within klpc_sample 10
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline patched"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after completion"

write_sysfs 1 /proc/klpc_deep
wait "$deep"
assert_eq "woke at depth 80" "$(cat "$KLPC_TMP/deep.out")" "the deep reader"
expect_write_ok "$(patch_dir klpc_sample)/enabled" 0
wait_transition_within klpc_sample 10
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
unload klpc-sample
unload klpc-test-deep
unload klpc
