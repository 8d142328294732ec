#!/bin/sh
# Guest benchmark runner (make vm-bench): measures klpc and the kernel's
# built-in livepatch side by side in this boot, with the same target
# functions and the same workload, and prints one line per repetition:
#
#	BENCH,<figure>,<impl>,<param>,<rep>,<value>,<unit>
#
# impl is klpc, builtin or none (no live patching at all).  The host
# (bench/report.sh) turns these lines into the table, the CSV and the
# charts.  KLPC_FILTER (klpc.filter=) may name a comma-separated subset of
# the groups: funcs, complete, percall, syscall, scale, latency, idlecost.
# docs/bench.md describes each figure.
set -eu

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
KLPC_DIR=${KLPC_DIR:-/klpc}
MOD=$KLPC_DIR/modules
TOOL=$BENCH_DIR/bin/klpc-bench-tool
HAMMER=$KLPC_DIR/tests/bin/klpc-hammer
KSYS=/sys/kernel/klpc/klpc_bench_klpc
BSYS=/sys/kernel/livepatch/klpc_bench_builtin
WORK=$(mktemp -d /tmp/klpc-bench.XXXXXX)
FILTER=${KLPC_FILTER:-}
# loop lengths: kernel calls per per-call read, getppid() calls per run
PERCALL_CALLS=200000
SYSCALL_CALLS=10000
# fork+exec+wait and thread create+join per timed loop (~30 and ~6 ms
# under TCG), and loops per figure (the best is taken)
FORK_CALLS=5
THREAD_CALLS=20
SPAWN_LOOPS=40
# the built-in's 1000-function enable and disable in the latency group
# (its disable takes minutes under TCG)
LAT_BUILTIN_1000_REPS=1
BG_PIDS=

# shellcheck source=bench/lib.sh
. "$BENCH_DIR/lib.sh"
# shellcheck source=bench/lat.sh
. "$BENCH_DIR/lat.sh"

# --- the figures ----------------------------------------------------------

# Figure 1: enable and disable time of a patch of N functions, and the
# kernel memory the enabled patch holds.
fig_funcs() {
	for n in 1 100 1000; do
		r=1
		while [ "$r" -le 5 ]; do
			for impl in klpc builtin; do
				[ "$r" -gt "$(funcs_reps "$impl" "$n")" ] ||
					one_funcs "$impl" "$n" "$r"
			done
			r=$((r + 1))
		done
	done
}

one_funcs() {
	m0=$(kmem_bytes)
	t=$(patch_on "$1" "funcs=$2")
	m1=$(kmem_bytes)
	check_redirected "$2"
	emit enable "$1" "$2" "$3" "$t" ms
	emit kmem "$1" "$2" "$3" $((m1 - m0)) bytes
	t=$(patch_off "$1")
	check_redirected 0
	emit disable "$1" "$2" "$3" "$t" ms
}

# the built-in's 1000-function disable takes minutes under TCG
funcs_reps() {
	if [ "$1" = builtin ] && [ "$2" = 1000 ]; then
		echo 2
	elif [ "$1" = builtin ] && [ "$2" = 100 ]; then
		echo 3
	else
		echo 5
	fi
}

# completion time of a one-function patch (insmod to transition 0),
# REPS times per implementation, as figure FIG with parameter PARAM
# (the implementations alternate, so that a change in the load the host
# puts on the guest hits both alike).  The built-in's runs are also
# emitted as FIG-split with PARAM-first or PARAM-retry: whether its first
# pass over the tasks moved them all (its kernel log tells).
completion_reps() {
	r=1
	while [ "$r" -le "$3" ]; do
		for impl in klpc builtin; do
			t=$(patch_on "$impl" funcs=1)
			emit "$1" "$impl" "$2" "$r" "$t" ms
			if [ "$impl" = builtin ]; then
				f=$(builtin_fails)
				emit "$1-split" builtin "$2-$(pass_class "$f")" \
					"$r" "$t" ms
				echo "BENCH-DIAG $1 $2 builtin rep $r: $t ms, tasks not moved by its passes: $f"
			fi
			patch_off "$impl" >/dev/null
		done
		r=$((r + 1))
	done
}

# Figure 2: transition completion, idle and under load.
fig_complete() {
	completion_reps complete idle 5
	spawn_sleepers procs 1000
	for _ in 1 2; do
		bg "$HAMMER" spin 3600
	done
	completion_reps complete sleepers1000 5
	diag
	stop_bg
}

# percall_ns EXPECT: the nanoseconds of a loop of PERCALL_CALLS calls, the
# best of 5 reads of /proc/klpc_bench_percall on CPU 0 (the guest shares
# the host: interference only ever adds time); checks that the calls were
# redirected as expected (EXPECT: 0 unpatched, 1 patched).
percall_ns() {
	for _ in 1 2 3 4 5; do
		_l=$(on_cpu0 cat /proc/klpc_bench_percall)
		case $_l in
		"ns "*" value 1000000 "*) [ "$1" = 1 ] || die "percall: redirected: $_l" ;;
		*) [ "$1" = 0 ] || die "percall: not redirected: $_l" ;;
		esac
		echo "$_l"
	done | awk '!m || $2 < m { m = $2 } END { print m }'
}

# per_call BASE_NS NS: nanoseconds per call added by the redirection
per_call() {
	awk -v b="$1" -v p="$2" -v n="$PERCALL_CALLS" \
		'BEGIN { printf "%.2f\n", (p - b) / n }'
}

# Figure 3: the cost of a call of a redirected function, outside a
# transition and during one (held open by a task in klpc_bench_hold()).
# Under TCG the cost of a call depends on where the patch module, the
# ftrace trampoline and the ops landed (each repetition loads them anew),
# for both implementations alike: 9 repetitions.
fig_percall() {
	load klpc-bench-percall "calls=$PERCALL_CALLS"
	r=1
	while [ "$r" -le 9 ]; do
		base=$(percall_ns 0)
		emit percall-base none idle "$r" "$(per_call 0 "$base")" ns
		for impl in klpc builtin; do
			patch_on "$impl" funcs=1 >/dev/null
			settle
			ns=$(percall_ns 1)
			emit percall "$impl" idle "$r" "$(per_call "$base" "$ns")" ns
			patch_off "$impl" >/dev/null
			hold_transition "$impl"
			ns=$(percall_ns 1)
			check_held "$impl"
			release_transition "$impl"
			emit percall "$impl" transition "$r" \
				"$(per_call "$base" "$ns")" ns
		done
		r=$((r + 1))
	done
	unload klpc-bench-percall
}

# the best of 40 short loops, for the same reason as percall_ns
getppid_ns() {
	"$TOOL" getppid "$SYSCALL_CALLS" 40
}

# syscall_none REP: getppid() with no live patching, klpc not even loaded
syscall_none() {
	unload klpc
	emit syscall none idle "$1" "$(getppid_ns)" ns
	load klpc
}

# syscall_patched REP: getppid() with the patch of each implementation on
syscall_patched() {
	for impl in klpc builtin; do
		patch_on "$impl" funcs=1 >/dev/null
		# steady state: the enabling transition's teardown is over
		settle
		emit syscall "$impl" idle "$1" "$(getppid_ns)" ns
		patch_off "$impl" >/dev/null
	done
}

# Figure 4: getppid() with no live patching, with klpc loaded and a patch
# enabled, with the built-in's patch enabled; then during a transition.
# The order alternates, so that a drift in the host's load favours neither.
fig_syscall() {
	r=1
	while [ "$r" -le 15 ]; do
		if [ $((r % 2)) = 1 ]; then
			syscall_none "$r"
			syscall_patched "$r"
		else
			syscall_patched "$r"
			syscall_none "$r"
		fi
		r=$((r + 1))
	done
	r=1
	while [ "$r" -le 3 ]; do
		for impl in klpc builtin; do
			hold_transition "$impl"
			ns=$(getppid_ns)
			check_held "$impl"
			release_transition "$impl"
			emit syscall "$impl" transition "$r" "$ns" ns
		done
		r=$((r + 1))
	done
}

# Figure 6 (and 5): completion time against the number of sleeping tasks;
# at 10,000 the memory of klpc's task table.  5 repetitions at 10,000, so
# that the built-in's runs with and without a retry both show up.
fig_scale() {
	for n in 100 1000 10000; do
		spawn_sleepers threads "$n"
		reps=3
		[ "$n" != 10000 ] || reps=5
		completion_reps scale "$n" "$reps"
		[ "$n" != 10000 ] || measure_table "$n"
		stop_bg
	done
}

# entry_alloc BYTES: the kmalloc size class an entry of BYTES lands in
entry_alloc() {
	for c in 8 16 32 64 96 128 192 256 512; do
		if [ "$1" -le "$c" ]; then
			echo "$c"
			return 0
		fi
	done
	echo "$1"
}

stat_field() {
	awk -v f="$1" '$1 == f { print $2 }' /proc/klpc/stats
}

# Figure 5: klpc's per-task table during a transition with N tasks, from
# its own figures and from the kernel's memory counters, and after.
measure_table() {
	hold_transition klpc
	m0=$HOLD_KMEM
	m1=$(kmem_bytes)
	entries=$(stat_field entries)
	buckets=$(stat_field buckets)
	eb=$(stat_field entry_bytes)
	eb=$(entry_alloc "$eb")
	end_hold klpc
	# the table is freed by a work item once every CPU has scheduled
	sleep 2
	m2=$(kmem_bytes)
	after=$(stat_field entries)
	patch_off klpc >/dev/null
	m3=$(kmem_bytes)
	emit memtable klpc computed 1 \
		"$(awk -v e="$entries" -v b="$buckets" -v s="$eb" \
			'BEGIN { printf "%.1f\n", s + 8 * b / e }')" bytes/task
	emit memtable klpc measured 1 \
		"$(awk -v d=$((m1 - m2)) -v e="$entries" \
			'BEGIN { printf "%.1f\n", d / e }')" bytes/task
	emit memtable klpc entries 1 "$entries" tasks
	emit memtable klpc entries-after 1 "$after" tasks
	emit memtable klpc kmem-left 1 $((m3 - m0)) bytes
	emit memtable klpc table-freed 1 $((m1 - m2)) bytes
}

# idle_cost IMPL PARAM REP: fork+exec+wait and thread create+join, in
# microseconds, the best of SPAWN_LOOPS loops on CPU 0, as getppid()
idle_cost() {
	emit forkexec "$1" "$2" "$3" \
		"$("$TOOL" forkexec "$FORK_CALLS" "$SPAWN_LOOPS")" us
	emit pthread "$1" "$2" "$3" \
		"$("$TOOL" pthread "$THREAD_CALLS" "$SPAWN_LOOPS")" us
}

idlecost_none() {
	unload klpc
	idle_cost none idle "$1"
	load klpc
}

idlecost_patched() {
	for impl in klpc builtin; do
		patch_on "$impl" funcs=1 >/dev/null
		settle
		idle_cost "$impl" idle "$1"
		patch_off "$impl" >/dev/null
	done
}

# Figure 8: the idle cost: fork+exec+wait of a static program and thread
# create+join with no live patching (klpc not loaded), with klpc loaded
# and a patch enabled, with the built-in's patch enabled, alternating as
# the syscall figure; then during a held transition of each.
fig_idlecost() {
	r=1
	while [ "$r" -le 11 ]; do
		if [ $((r % 2)) = 1 ]; then
			idlecost_none "$r"
			idlecost_patched "$r"
		else
			idlecost_patched "$r"
			idlecost_none "$r"
		fi
		r=$((r + 1))
	done
	r=1
	while [ "$r" -le 3 ]; do
		for impl in klpc builtin; do
			hold_transition "$impl"
			idle_cost "$impl" transition "$r"
			check_held "$impl"
			release_transition "$impl"
		done
		r=$((r + 1))
	done
}

# diag: the kernel log of the last enable and disable, with timestamps
diag() {
	dmesg | grep -a -E 'klpc|livepatch' | tail -n 30 | sed 's/^/BENCH-DIAG /'
}

# profile: not part of a normal run (klpc.filter=profile): the kernel's
# function_graph tracer times klpc's enable and disable paths, 3 deep, with
# 1000 sleeping processes and 2 CPU-bound loops
fig_profile() {
	t=/sys/kernel/tracing
	spawn_sleepers procs 1000
	for _ in 1 2; do
		bg "$HAMMER" spin 3600
	done
	echo function_graph >"$t/current_tracer"
	echo 4 >"$t/max_graph_depth"
	echo 1 >"$t/options/funcgraph-tail"
	echo klpc_enable_patch \
		>"$t/set_graph_function"
	echo 1 >"$t/tracing_on"
	patch_on klpc funcs=1
	patch_off klpc
	echo 0 >"$t/tracing_on"
	# '#' marks a duration over 1 ms, '*' 10 ms, '@' 100 ms, '$' 1 s
	grep -a -E '[#*@$] +[0-9]+\.[0-9]+ us' "$t/trace" | head -n 150 |
		sed 's/^/BENCH-PROF /'
	echo nop >"$t/current_tracer"
	stop_bg
}

# --- main -----------------------------------------------------------------

selected() {
	[ -z "$FILTER" ] && return 0
	case ",$FILTER," in *",$1,"*) return 0 ;; esac
	return 1
}

run_group() {
	selected "$1" || return 0
	note "group $1 starts at $(uptime_s) s"
	"fig_$1"
	note "group $1 done at $(uptime_s) s"
}

main() {
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	echo "BENCH-INFO,kernel,$(uname -r),cpus,$(nproc),filter,$(echo "${FILTER:-all}" | tr , +)"
	load klpc
	load klpc-bench-target
	builtin_debug_on
	for g in funcs complete percall syscall scale latency idlecost; do
		run_group "$g"
	done
	# only when asked for by name
	[ -z "$FILTER" ] || run_group profile
	unload klpc-bench-target
	unload klpc
	echo "BENCH-INFO,done,$(uptime_s)"
}

main "$@"
