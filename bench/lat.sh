# shellcheck shell=sh
# The scheduling-latency group of the guest benchmark runner (bench/run.sh
# sources this after lib.sh): a SCHED_FIFO thread on each CPU
# (bench/tools/klpc-lat.c) records how late it wakes from its 1 ms sleeps
# for the whole group; the runner notes the windows of time to sum up
# (a baseline with nothing happening, or one action and what follows it),
# and the tool prints each window's figures when it stops.  Meanwhile the
# kernel's function_graph tracer times the phases of both implementations
# (PHASE_FUNCS), so that the worst wake-ups can be put in the phase that
# held their CPU.  docs/bench.md gives the method.

LAT=$BENCH_DIR/bin/klpc-lat
LAT_PID=
LAT_WINDOWS=$WORK/lat-windows
LAT_OUT=$WORK/lat-out
TRACE=/sys/kernel/tracing
PHASE_TRACING=
# every window lasts at least this long, and 1 s past the action's end
# (klpc frees its table after completion, the built-in its patch)
LAT_WINDOW_NS=3000000000

# The functions timed to tell the phases apart.  Both: the module load
# (load_module, its relocations and symbols, do_init_module, do_free_init),
# symbol lookups (kallsyms_on_each_match_symbol,
# module_kallsyms_on_each_symbol), ftrace's text patching
# (text_poke_bp_batch, the core of every ftrace update: ftrace itself is
# not traceable), RCU callbacks and waits.  klpc: symbol resolution
# (klpc_init_objects), the table's allocation and fill
# (klpc_init_transition, klpc_tasks_alloc), the filter update (in
# __klpc_enable_patch, and in klpc_end_transition when disabling: patch.c
# is not traceable), the check rounds (klpc_transition_work_fn,
# klpc_check_tasks, klpc_tasks_refill, klpc_stack_build, klpc_idle_work_fn),
# the teardown (klpc_tasks_retire, klpc_teardown_fn,
# klpc_resume_cancel_all, klpc_tasks_reap).  The built-in:
# klp_find_object_symbol, klp_init_transition, klp_patch_object (one
# ftrace_ops registration per function), klp_start_transition,
# klp_try_complete_transition (a pass over every task under
# tasklist_lock), klp_complete_transition, klp_unpatch_objects.  Names
# this kernel or this klpc lacks (inlined, renamed, notrace) are skipped.
PHASE_FUNCS="load_module apply_relocate_add add_kallsyms module_finalize
	do_init_module do_free_init module_enable_ro free_module
	kallsyms_on_each_match_symbol module_kallsyms_on_each_symbol
	text_poke_bp_batch synchronize_rcu_tasks synchronize_rcu_tasks_rude
	rcu_do_batch kfree_rcu_work __purge_vmap_area_lazy
	klpc_enable_patch __klpc_enable_patch klpc_set_enabled
	__klpc_disable_patch klpc_init_objects klpc_init_transition
	klpc_tasks_alloc klpc_start_transition klpc_transition_work_fn
	klpc_check_tasks klpc_tasks_refill klpc_stack_build klpc_idle_work_fn
	klpc_end_transition klpc_tasks_retire klpc_teardown_fn
	klpc_resume_cancel_all klpc_tasks_reap
	klp_enable_patch klp_find_object_symbol klp_init_transition
	klp_patch_object klp_start_transition klp_try_complete_transition
	klp_transition_work_fn klp_complete_transition klp_unpatch_objects
	__klp_disable_patch klp_free_patch_work_fn"

lat_now() {
	"$LAT" now
}

# lat_start: the recorder runs until lat_stop
lat_start() {
	rm -f "$WORK/lat-ready" "$LAT_WINDOWS"
	: >"$LAT_WINDOWS"
	"$LAT" run "$WORK/lat-ready" "$LAT_WINDOWS" >"$LAT_OUT" &
	LAT_PID=$!
	_i=0
	while [ ! -e "$WORK/lat-ready" ]; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || die "klpc-lat not ready after 60 s"
		sleep 0.1
	done
}

# lat_stop: stop the recorder and print its figures
lat_stop() {
	kill "$LAT_PID"
	wait "$LAT_PID" || die "klpc-lat failed"
	LAT_PID=
	cat "$LAT_OUT"
}

lat_stop_quiet() {
	[ -z "${LAT_PID:-}" ] || kill "$LAT_PID" 2>/dev/null || true
	[ -z "${PHASE_TRACING:-}" ] || phase_trace_off
}

# lat_close SCENARIO IMPL REP T0: end the window opened at T0, 1 s after
# now and at least LAT_WINDOW_NS after T0
lat_close() {
	sleep 1
	sleep "$(awk -v t0="$4" -v now="$(lat_now)" -v w="$LAT_WINDOW_NS" \
		'BEGIN { r = (t0 + w - now) / 1e9; printf "%.3f\n", (r > 0 ? r : 0) }')"
	echo "$1 $2 $3 $4 $(lat_now)" >>"$LAT_WINDOWS"
}

# lat_baseline SCENARIO REP: a window with nothing happening
lat_baseline() {
	lat_close "$1" none "$2" "$(lat_now)"
}

# lat_enable SCENARIO IMPL REP FUNCS: a window from the insmod of a patch
# of FUNCS functions; the patch stays enabled
lat_enable() {
	_t0=$(lat_now)
	_t=$(patch_on "$2" "funcs=$4")
	_f=
	[ "$2" != builtin ] || _f=" first-pass $(pass_class "$(builtin_fails)")"
	lat_close "$1" "$2" "$3" "$_t0"
	echo "BENCH-DIAG latency $1 $2 rep $3: transition $_t ms$_f"
}

# lat_disable SCENARIO IMPL REP: a window from the write of 0 to enabled;
# the module goes afterwards
lat_disable() {
	_t0=$(lat_now)
	_t=$(patch_disable "$2")
	lat_close "$1" "$2" "$3" "$_t0"
	echo "BENCH-DIAG latency $1 $2 rep $3: transition $_t ms"
	patch_remove "$2"
	settle
}

# phase_trace_on: function_graph on PHASE_FUNCS only, CLOCK_MONOTONIC
# timestamps (those of klpc-lat), the name on each closing line
phase_trace_on() {
	echo 0 >"$TRACE/tracing_on"
	echo nop >"$TRACE/current_tracer"
	: >"$TRACE/set_ftrace_filter"
	for _f in $PHASE_FUNCS; do
		echo "$_f" >>"$TRACE/set_ftrace_filter" 2>/dev/null || true
	done
	# an empty filter would trace every function
	if ! grep -qv '^#' "$TRACE/set_ftrace_filter"; then
		note "no phase function can be traced: no phases"
		return 0
	fi
	note "phases traced: $(awk '{ print $1 }' "$TRACE/set_ftrace_filter" | tr '\n' ' ')"
	echo mono >"$TRACE/trace_clock"
	echo 8192 >"$TRACE/buffer_size_kb"
	echo 1 >"$TRACE/options/funcgraph-abstime"
	echo 1 >"$TRACE/options/funcgraph-tail"
	echo function_graph >"$TRACE/current_tracer"
	: >"$TRACE/trace"
	echo 1 >"$TRACE/tracing_on"
	PHASE_TRACING=1
}

phase_trace_off() {
	echo 0 >"$TRACE/tracing_on"
	cat "$TRACE/trace" >"$WORK/phase-trace"
	echo nop >"$TRACE/current_tracer"
	: >"$TRACE/set_ftrace_filter"
	echo 0 >"$TRACE/options/funcgraph-abstime"
	echo 0 >"$TRACE/options/funcgraph-tail"
	echo local >"$TRACE/trace_clock"
	echo 1408 >"$TRACE/buffer_size_kb"
	PHASE_TRACING=
}

# phase_attribute: for each worst wake-up klpc-lat printed (BENCH-WORST),
# the traced function that overlapped its stall [due, due + late] most (of
# nearly equal overlaps the shortest, i.e. the innermost), as
#	BENCH-PHASE,SCENARIO,IMPL,REP,<late ms>,<cpu>,<function|none>,
#		<its cpu>,<% of the stall covered>,<other CPUs' late ms>
# A function's interval comes from its closing line (or its one line if it
# called no other traced function): end time and duration.
phase_attribute() {
	[ -s "$WORK/phase-trace" ] || return 0
	awk '
	function ns(t, a) {
		split(t, a, ".")
		return a[1] * 1e9 + a[2] * 1e3
	}
	FNR == NR {
		if (split($0, p, "|") < 3 || p[1] !~ /^ *[0-9]+\.[0-9]+ *$/)
			next
		if (!match(p[2], /[0-9.]+ us/))
			next
		d = substr(p[2], RSTART, RLENGTH - 3) * 1e3
		if (!match(p[2], /[0-9]+\)/))
			next
		c = substr(p[2], RSTART, RLENGTH - 1)
		t = ns(p[1])
		# a module function is "name [module]"
		if (match(p[3], /\} \/\* [^*]+ \*\//)) {
			f = substr(p[3], RSTART + 5, RLENGTH - 8)
			s = t - d
			e = t
		} else if (match(p[3], /[A-Za-z0-9_.]+( \[[A-Za-z0-9_]+\])?\(\);/)) {
			f = substr(p[3], RSTART, RLENGTH - 3)
			s = t
			e = t + d
		} else {
			next
		}
		sub(/ \[.*/, "", f)
		n++
		fs[n] = s; fe[n] = e; fn[n] = f; fc[n] = c
		# the long ones, for a look afterwards
		if (d >= 2e6)
			printf "BENCH-SPAN,%s,%s,%.3f,%.3f\n", f, c, s / 1e6, d / 1e6
		next
	}
	/^BENCH-WORST,/ {
		split($0, w, ",")
		a = w[6]; b = w[6] + w[7]
		bo = 0
		for (k = 1; k <= n; k++) {
			o[k] = (fe[k] < b ? fe[k] : b) - (fs[k] > a ? fs[k] : a)
			if (o[k] > bo)
				bo = o[k]
		}
		best = 0
		for (k = 1; bo > 0 && k <= n; k++)
			if (o[k] >= bo * 0.9 &&
			    (!best || fe[k] - fs[k] < fe[best] - fs[best]))
				best = k
		printf "BENCH-PHASE,%s,%s,%s,%.3f,%s,%s,%s,%.0f,%.3f\n", w[2],
			w[3], w[4], w[7] / 1e6, w[5], best ? fn[best] : "none",
			best ? fc[best] : "-",
			(best && w[7] > 0 ? 100 * o[best] / w[7] : 0), w[8] / 1e6
	}' "$WORK/phase-trace" "$LAT_OUT"
}

# lat_one_func SCENARIO BASELINE REPS: a baseline window and a one-function
# transition of each implementation, REPS times, so that the baseline sees
# the same changes of the host's load
lat_one_func() {
	_rr=1
	while [ "$_rr" -le "$3" ]; do
		lat_baseline "$2" "$_rr"
		for impl in klpc builtin; do
			lat_enable "$1" "$impl" "$_rr" 1
			patch_off "$impl" >/dev/null
		done
		_rr=$((_rr + 1))
	done
}

# the 1000-function enable and disable; the built-in's disable takes
# minutes under TCG (one RCU-tasks wait per function): fewer repetitions
lat_thousand() {
	_rr=1
	while [ "$_rr" -le 3 ]; do
		lat_baseline base-0 "$_rr"
		for impl in klpc builtin; do
			[ "$impl" = klpc ] || [ "$_rr" -le "$LAT_BUILTIN_1000_REPS" ] ||
				continue
			lat_enable 1000fn-enable "$impl" "$_rr" 1000
			check_redirected 1000
			settle
			lat_disable 1000fn-disable "$impl" "$_rr"
			check_redirected 0
		done
		_rr=$((_rr + 1))
	done
}

# The floor: a kprobe event armed and disarmed in one window, each time two
# one-function filter updates of the ftrace_ops that kprobes share, kept
# registered by a second armed probe, as klpc's ops stays registered.
# Whoever updates ftrace stalls a CPU this long; each of klpc's and the
# built-in's updates is such an update (docs/bench.md).  The probed
# function is the bench target's last, at the end of ftrace's records as
# the patched functions are, so that ftrace's walks of the records, which
# stop at the last function in the filter, go as far as klpc's; the
# kprobes' ops is not IPMODIFY, so its updates walk the records one time
# fewer than klpc's.  Once (two updates), and eight times in a window
# (sixteen, as many as the 1000-function enable makes).
FLOOR_PROBE=klpc_bench_fn_999
FLOOR_KEEP=version_proc_show
FLOOR_EVENTS=$TRACE/events/kprobes

# lat_floor_window SCENARIO CYCLES REP: arm and disarm the probe CYCLES
# times in a window of its own
lat_floor_window() {
	_t0=$(lat_now)
	_c=0
	while [ "$_c" -lt "$2" ]; do
		echo 1 >"$FLOOR_EVENTS/klpc_floor/enable"
		echo 0 >"$FLOOR_EVENTS/klpc_floor/enable"
		_c=$((_c + 1))
	done
	lat_close "$1" kprobe "$3" "$_t0"
}

lat_floor() {
	_ke=$TRACE/kprobe_events
	if ! echo "p:klpc_floor_keep $FLOOR_KEEP" >>"$_ke" 2>/dev/null ||
		! echo "p:klpc_floor $FLOOR_PROBE" >>"$_ke" 2>/dev/null; then
		note "no kprobe events: no ftrace floor"
		return 0
	fi
	echo 1 >"$FLOOR_EVENTS/klpc_floor_keep/enable"
	_rr=1
	while [ "$_rr" -le 5 ]; do
		lat_baseline base-floor "$_rr"
		lat_floor_window ftrace-floor 1 "$_rr"
		[ "$_rr" -gt 3 ] || lat_floor_window ftrace-floor16 8 "$_rr"
		_rr=$((_rr + 1))
	done
	echo 0 >"$FLOOR_EVENTS/klpc_floor_keep/enable"
	echo "-:klpc_floor" >>"$_ke"
	echo "-:klpc_floor_keep" >>"$_ke"
}

# Figure 7: wake-up latency of a SCHED_FIFO thread on each CPU, with no
# transition (baseline), during a 1-function transition with 1,000 and
# 10,000 sleeping threads, during the 1000-function enable and disable,
# and during a kprobe's two and sixteen ftrace updates (the floor).
fig_latency() {
	phase_trace_on
	lat_start
	lat_thousand
	lat_floor
	for n in 1000 10000; do
		spawn_sleepers threads "$n"
		lat_one_func "1fn-$n" "base-$n" 5
		stop_bg
	done
	lat_stop
	[ -z "$PHASE_TRACING" ] || phase_trace_off
	phase_attribute
}
