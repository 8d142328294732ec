#!/bin/sh
# was t-27-filter-batches
# A patch of 1000 functions enters and leaves ftrace's filter in batches
# of 64 (KLPC_FTRACE_BATCH in patch.c), all or nothing: a function that
# another ftrace user owns in a late batch fails the load with EBUSY and
# one line naming it, and none of the batches before it stays redirected
# or traced.  Disabling takes every address out again.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

bdir=/sys/kernel/livepatch/klpc_bench_builtin

# redirected: how many of the target's 1000 functions return the patched value
redirected() {
	sed -n 's/^redirected //p' /proc/klpc_bench_target
}

# traced: how many of the target's functions some ftrace_ops traces
traced() {
	grep -c '^klpc_bench_fn_' "$LP_ENABLED_FUNCS" || true
}

assert_state() {
	assert_eq "$1" "$(redirected)" "$3: functions redirected"
	assert_eq "$2" "$(traced)" "$3: functions traced"
}

builtin_settled() {
	[ "$(cat "$bdir/transition")" = 0 ]
}

builtin_gone() {
	[ ! -e "$bdir" ]
}

klpc_core_load
load klpc-bench-target
assert_state 0 0 "target alone"

# the built-in livepatch owns function 900, in klpc's 15th batch
load klpc-bench-builtin funcs=1 first=900
wait_until 60 builtin_settled || die "built-in transition stuck"
assert_state 1 1 "built-in patch of klpc_bench_fn_900"
dmesg_mark
expect_load_error EBUSY klpc-bench-klpc
assert_dmesg_has "klpc: patch 'klpc_bench_klpc': object 'klpc_bench_target': function 'klpc_bench_fn_900' is already redirected"
assert_not_exists "$(patch_dir klpc_bench_klpc)"
assert_state 1 1 "after the refused klpc patch"

write_sysfs 0 "$bdir/enabled" || die "cannot disable the built-in patch"
wait_until 60 builtin_gone || die "built-in patch not released"
unload klpc-bench-builtin
assert_state 0 0 "built-in patch removed"

load klpc-bench-klpc
wait_transition klpc_bench_klpc 60
assert_state 1000 1000 "klpc patch of 1000 functions"
disable_patch klpc_bench_klpc 60
assert_state 0 0 "klpc patch disabled"
enable_patch klpc_bench_klpc 60
assert_state 1000 1000 "klpc patch enabled again"
disable_patch klpc_bench_klpc 60
unload klpc-bench-klpc
assert_state 0 0 "klpc patch removed"
unload klpc-bench-target
unload klpc
