#!/bin/bash
# Host side of make vm-bench: turn the guest's BENCH lines into
#   results/bench-<date>.csv   every repetition (figure,impl,param,rep,value,unit)
#   results/bench-<date>.md    the table below, as Markdown (for docs/bench.md)
#   results/bench-<date>-hist.csv  the wake-up latency histograms
#                              (scenario,impl,bin_low_us,count, all reps)
#   results/bench-<date>-hist.csv  the wake-up latency histograms
#                              (scenario,impl,bin_low_us,count, all reps)
#   results/scale.png          completion time against tasks, enable and
#                              disable time against functions (gnuplot)
#   results/latency.png        the wake-up latency distributions
# (a chart has only the panels of the groups the run measured)
#   results/latency.png        the wake-up latency distributions
# (a chart has only the panels of the groups the run measured)
# and print the table: per figure the klpc median [min-max], the reference
# (the built-in livepatch, or no live patching) median [min-max], the
# klpc/reference ratio of the medians, the target and whether it is met.
#
# Usage: bench/report.sh LOG [RESULTS_DIR]    (exit 1 if LOG has no figures)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG=${1:?usage: $0 LOG [RESULTS_DIR]}
RESULTS=${2:-$ROOT/results}
STAMP=$(date -u +%Y%m%d-%H%M%S)
CSV=$RESULTS/bench-$STAMP.csv
MD=$RESULTS/bench-$STAMP.md
STATS=$RESULTS/.stats-$STAMP
HIST=$RESULTS/bench-$STAMP-hist.csv
HIST=$RESULTS/bench-$STAMP-hist.csv

msg() {
	printf 'klpc: %s\n' "$*" >&2
}

# write_csv: the BENCH lines of the log, as CSV
write_csv() {
	echo "figure,impl,param,rep,value,unit" >"$CSV"
	grep -a '^BENCH,' "$LOG" | cut -d , -f 2- >>"$CSV" || true
	[ "$(wc -l <"$CSV")" -gt 1 ] || {
		msg "no BENCH lines in $LOG"
		return 1
	}
}

# write_stats: "figure impl param n median min max" per group
write_stats() {
	tail -n +2 "$CSV" | sort -t , -k1,1 -k2,2 -k3,3 -k5,5g |
		awk -F , '
		function flush() {
			if (n == 0) return
			med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			print key, n, med, v[1], v[n]
		}
		{
			k = $1 " " $2 " " $3
			if (k != key) { flush(); key = k; n = 0 }
			v[++n] = $5
		}
		END { flush() }' >"$STATS"
}

# stat FIGURE IMPL PARAM FIELD: n, med, min or max of a group ("" if none)
stat() {
	awk -v f="$1" -v i="$2" -v p="$3" -v w="$4" '
		$1 == f && $2 == i && $3 == p {
			x = w == "n" ? $4 : w == "med" ? $5 : w == "min" ? $6 : $7
			print x
		}' "$STATS"
}

# fmt VALUE: a figure with sensible precision
fmt() {
	awk -v x="$1" 'BEGIN {
		if (x == "") { print "-"; exit }
		a = x < 0 ? -x : x
		if (a >= 100) printf "%.0f\n", x
		else if (a >= 10) printf "%.1f\n", x
		else printf "%.2f\n", x
	}'
}

# cell FIGURE IMPL PARAM: "median [min-max]"
cell() {
	local med
	med=$(stat "$1" "$2" "$3" med)
	if [ -z "$med" ]; then
		echo "-"
		return
	fi
	echo "$(fmt "$med") [$(fmt "$(stat "$1" "$2" "$3" min)")–$(fmt "$(stat "$1" "$2" "$3" max)")]"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "" || b + 0 == 0) print "-"
		else printf "%.3f\n", a / b }'
}

# judge RATIO KLPC_MEDIAN MAX_RATIO [MAX_KLPC]: yes / NO / -
judge() {
	awk -v r="$1" -v k="$2" -v mr="$3" -v mk="${4:-}" 'BEGIN {
		if (r == "-" || k == "") { print "-"; exit }
		ok = r + 0 <= mr + 0 && (mk == "" || k + 0 < mk + 0)
		print ok ? "yes" : "NO" }'
}

ROWS=()

# row LABEL FIGURE PARAM REF TARGET_TEXT MAX_RATIO [MAX_KLPC]: nothing if
# the run measured neither (a filtered run)
row() {
	local k r met=-
	k=$(stat "$2" klpc "$3" med)
	[ -n "$k" ] || [ -n "$(stat "$2" "$4" "$3" med)" ] || return 0
	r=$(ratio "$k" "$(stat "$2" "$4" "$3" med)")
	[ -z "$6" ] || met=$(judge "$r" "$k" "$6" "${7:-}")
	ROWS+=("$1|$(cell "$2" klpc "$3")|$4: $(cell "$2" "$4" "$3")|$r|$5|$met")
}

# Figure 5: bytes per patched function, from the kernel memory an enabled
# patch holds at 1000 and at 1 function (the module itself cancels out).
per_func_row() {
	local k b r
	k=$(awk -v a="$(stat kmem klpc 1000 med)" -v b="$(stat kmem klpc 1 med)" \
		'BEGIN { if (a != "" && b != "") printf "%.0f\n", (a - b) / 999 }')
	b=$(awk -v a="$(stat kmem builtin 1000 med)" -v b="$(stat kmem builtin 1 med)" \
		'BEGIN { if (a != "" && b != "") printf "%.0f\n", (a - b) / 999 }')
	[ -n "$k" ] || [ -n "$b" ] || return 0
	r=$(ratio "$k" "$b")
	ROWS+=("kernel memory per patched function (bytes)|${k:--}|builtin: ${b:--}|$r|-|-")
}

table_rows() {
	local n f
	for n in 1 100 1000; do
		f="$n functions"
		[ "$n" != 1 ] || f="1 function"
		if [ "$n" = 1000 ]; then
			row "enable, $f (ms)" enable $n builtin "≤0.05, <1000 ms" 0.05 1000
			row "disable, $f (ms)" disable $n builtin "≤0.05, <1000 ms" 0.05 1000
		else
			row "enable, $f (ms)" enable $n builtin - ""
			row "disable, $f (ms)" disable $n builtin - ""
		fi
	done
	row "completion, idle (ms)" complete idle builtin "≤0.1, <100 ms" 0.1 100
	row "completion, 1000 sleepers + 2 loops (ms)" complete sleepers1000 builtin "≤0.1, <300 ms" 0.1 300
	row "per-call cost, no transition (ns)" percall idle builtin "≤1.0" 1.0
	row "per-call cost, in a transition (ns)" percall transition builtin "≤2.0" 2.0
	row "getppid(), patch on, no transition, vs none (ns)" syscall idle none "≤1.01" 1.01
	row "getppid(), patch on, no transition, vs built-in (ns)" syscall idle builtin - ""
	row "getppid(), during a transition (ns)" syscall transition builtin - ""
	per_func_row
	table_rows_memory
	table_rows_scale
	table_rows_latency
	table_rows_idlecost
}

table_rows_memory() {
	local c m e a met=-
	c=$(stat memtable klpc computed med)
	m=$(stat memtable klpc measured med)
	e=$(stat memtable klpc entries med)
	a=$(stat memtable klpc entries-after med)
	[ -z "$c" ] || ROWS+=("task table bytes per task, $e tasks (computed / measured)|$(fmt "$c") / $(fmt "$m")|builtin: 0 (in task_struct)|-|-|-")
	if [ -n "$a" ]; then
		met=$(awk -v a="$a" -v c="$c" -v m="$m" 'BEGIN {
			print (a == 0 && m >= c / 2 && m <= c * 2) ? "yes" : "NO" }')
		ROWS+=("task table after completion: entries / KiB freed|$a / $(fmt "$(awk -v b="$(stat memtable klpc table-freed med)" 'BEGIN { print b / 1024 }')")|-|-|freed|$met")
	fi
}

# completion time against sleeping tasks; linear growth or better
table_rows_scale() {
	local n t100 t10k growth met
	for n in 100 1000 10000; do
		row "completion, $n sleeping tasks (ms)" scale $n builtin - ""
	done
	split_row "completion, 10000 sleeping tasks, vs the built-in's runs whose first pass moved every task (ms)" \
		scale 10000 first "≤0.8" 0.8
	split_row "completion, 10000 sleeping tasks, vs the built-in's runs that retried (ms)" \
		scale 10000 retry - ""
	t100=$(stat scale klpc 100 med)
	t10k=$(stat scale klpc 10000 med)
	[ -n "$t100" ] && [ -n "$t10k" ] || return 0
	growth=$(awk -v a="$t10k" -v b="$t100" 'BEGIN { printf "%.1f\n", a / b }')
	met=$(awk -v g="$growth" 'BEGIN { print g <= 100 ? "yes" : "NO" }')
	ROWS+=("completion growth, 100 → 10000 tasks (x)|$growth|builtin: $(awk -v a="$(stat scale builtin 10000 med)" -v b="$(stat scale builtin 100 med)" 'BEGIN { if (b > 0) printf "%.1f\n", a / b; else print "-" }')|-|≤100 (linear)|$met")
}

# split_row LABEL FIGURE PARAM first|retry TARGET_TEXT MAX_RATIO: klpc's
# runs against the built-in's of one kind (FIGURE-split, PARAM-KIND)
split_row() {
	local k b n r met=-
	k=$(stat "$2" klpc "$3" med)
	[ -n "$k" ] || return 0
	b=$(stat "$2-split" builtin "$3-$4" med)
	n=$(stat "$2-split" builtin "$3-$4" n)
	n=${n:-0}
	r=$(ratio "$k" "$b")
	[ -z "$6" ] || met=$(judge "$r" "$k" "$6")
	ROWS+=("$1|$(cell "$2" klpc "$3")|builtin ($n of $(stat "$2" builtin "$3" n) runs): $(cell "$2-split" builtin "$3-$4")|$r|$5|$met")
}

# the wake-up latency scenarios: "PARAM|BASELINE PARAM|description"
LAT_SCENARIOS=("1fn-1000|base-1000|1-function transition, 1000 sleeping tasks"
	"1fn-10000|base-10000|1-function transition, 10000 sleeping tasks"
	"1000fn-enable|base-0|1000-function enable"
	"1000fn-disable|base-0|1000-function disable")

# added FIGURE IMPL PARAM BASE: the median over the baseline's median
added() {
	awk -v a="$(stat "$1" "$2" "$3" med)" -v b="$(stat "$1" none "$4" med)" \
		'BEGIN { if (a != "" && b != "") printf "%.3f\n", a - b }'
}

# lat_added_rows FIGURE LABEL PARAM BASE WHAT TARGETED: the worst of
# FIGURE (latmax, latown) in scenario PARAM of both implementations, and
# what it adds over the baseline BASE; TARGETED set, judged against the
# issue's targets
lat_added_rows() {
	local ka ba r met=- tgt=-
	row "wake-up latency, $5: $2 (ms)" "$1" "$3" builtin - ""
	ka=$(added "$1" klpc "$3" "$4")
	ba=$(added "$1" builtin "$3" "$4")
	r=$(awk -v a="$ka" -v b="$ba" 'BEGIN {
		if (a == "" || b == "" || b <= 0) print "-"
		else printf "%.3f\n", a / b }')
	if [ -n "$6" ] && [ "$3" = 1fn-10000 ]; then
		tgt="≤0.1, ≤5 ms"
		met=$(awk -v r="$r" -v a="$ka" 'BEGIN {
			if (a == "") print "-"
			else print (r != "-" && r <= 0.1 && a <= 5) ? "yes" : "NO" }')
	elif [ -n "$6" ]; then
		tgt="≤5 ms"
		met=$(awk -v a="$ka" 'BEGIN {
			if (a == "") print "-"; else print a <= 5 ? "yes" : "NO" }')
	fi
	ROWS+=("wake-up latency, $5: $2, added over the baseline (ms)|$(fmt "$ka")|builtin: $(fmt "$ba")|$r|$tgt|$met")
}

# Figure 7: wake-up latency.  The targets are judged on the worst stall
# of a CPU's own (latown), which leaves out the stalls of the whole guest
# that the host makes (docs/bench.md); the plain worst is shown too.
table_rows_latency() {
	local n sc p base what ka ba
	for n in 0 1000 10000; do
		[ -n "$(stat latmax none "base-$n" med)" ] || continue
		ROWS+=("wake-up latency, no transition, $n sleeping tasks: worst / own CPU's worst / 99.9th pct (ms)|-|none: $(cell latmax none "base-$n") / $(cell latown none "base-$n") / $(cell lat999 none "base-$n")|-|-|-")
	done
	for sc in "${LAT_SCENARIOS[@]}"; do
		IFS='|' read -r p base what <<<"$sc"
		[ -n "$(stat latmax klpc "$p" med)" ] || continue
		lat_added_rows latmax worst "$p" "$base" "$what" ""
		lat_added_rows latown "own CPU's worst stall" "$p" "$base" "$what" y
		row "wake-up latency, $what: 99.9th pct (ms)" lat999 "$p" builtin - ""
		ka=$(added lat999 klpc "$p" "$base")
		ba=$(added lat999 builtin "$p" "$base")
		ROWS+=("wake-up latency, $what: 99.9th pct, added over the baseline (ms)|$(fmt "$ka")|builtin: $(fmt "$ba")|-|-|-")
	done
	table_rows_floor
}

# the floor: what a kprobe's one-function ftrace updates add, two of them
# and sixteen (as many as klpc's 1000-function enable makes)
table_rows_floor() {
	local sc what short
	[ -n "$(stat latmax none base-floor med)" ] || return 0
	ROWS+=("wake-up latency, no transition, floor's baseline: worst / own CPU's worst / 99.9th pct (ms)|-|none: $(cell latmax none base-floor) / $(cell latown none base-floor) / $(cell lat999 none base-floor)|-|-|-")
	for sc in ftrace-floor ftrace-floor16; do
		[ -n "$(stat latmax kprobe "$sc" med)" ] || continue
		short="two 1-function ftrace updates"
		what=$short
		if [ "$sc" = ftrace-floor16 ]; then
			short="sixteen 1-function ftrace updates"
			what="$short, as many as the 1000-function enable"
		fi
		ROWS+=("wake-up latency, a kprobe armed and disarmed ($what, the floor): worst / own CPU's worst (ms)|-|kprobe: $(cell latmax kprobe "$sc") / $(cell latown kprobe "$sc")|-|-|-")
		ROWS+=("wake-up latency, the floor ($short): worst, added over the baseline (ms)|-|kprobe: $(fmt "$(added latmax kprobe "$sc" base-floor)")|-|-|-")
		ROWS+=("wake-up latency, the floor ($short): own CPU's worst stall, added over the baseline (ms)|-|kprobe: $(fmt "$(added latown kprobe "$sc" base-floor)")|-|-|-")
	done
}

# Figure 8: fork+exec+wait and thread create+join; target on klpc idle
table_rows_idlecost() {
	local f what
	for f in forkexec pthread; do
		[ -n "$(stat "$f" klpc idle med)" ] || continue
		what="fork+exec+wait"
		[ "$f" = forkexec ] || what="pthread_create+join"
		row "$what, patch on, no transition, vs none (µs)" "$f" idle none "≤1.01" 1.01
		row "$what, patch on, no transition, vs built-in (µs)" "$f" idle builtin - ""
		row "$what, during a transition (µs)" "$f" transition builtin - ""
		ROWS+=("$what, during a transition, vs none (µs)|$(cell "$f" klpc transition)|none: $(cell "$f" none idle)|$(ratio "$(stat "$f" klpc transition med)" "$(stat "$f" none idle med)")|-|-")
	done
}

accel_note() {
	if grep -aq 'Hypervisor detected: KVM' "$LOG"; then
		echo "Guest under KVM, 2 CPUs, one boot."
	else
		echo "Guest under TCG (emulated CPU), 2 CPUs, one boot: only the ratios mean anything, not the absolute times."
	fi
}

print_table() {
	local r
	echo "| figure | klpc median [min–max] | reference median [min–max] | klpc/ref | target | met |"
	echo "|---|---|---|---|---|---|"
	for r in "${ROWS[@]}"; do
		echo "| ${r//|/ | } |"
	done
}

# plot_scale: completion time against tasks (group scale) and enable and
# disable time against functions (group funcs): only the panels with data
plot_scale() {
	local dat=$RESULTS/.scale-$STAMP.dat fun=$RESULTS/.funcs-$STAMP.dat
	local panels=0 cmds=''
	for n in 100 1000 10000; do
		echo "$n $(stat scale klpc $n med) $(stat scale klpc $n min) $(stat scale klpc $n max) $(stat scale builtin $n med) $(stat scale builtin $n min) $(stat scale builtin $n max)"
	done | awk 'NF == 7' >"$dat"
	# a single point would only draw gnuplot warnings
	[ "$(wc -l <"$dat")" -gt 1 ] || : >"$dat"
	for n in 1 100 1000; do
		echo "$n $(stat enable klpc $n med) $(stat disable klpc $n med) $(stat enable builtin $n med) $(stat disable builtin $n med)"
	done | awk 'NF == 5' >"$fun"
	[ "$(wc -l <"$fun")" -gt 1 ] || : >"$fun"
	if [ -s "$dat" ]; then
		panels=$((panels + 1))
		cmds="$cmds
set xlabel 'sleeping tasks'
set ylabel 'insmod to transition 0 (ms)'
set title 'transition completion vs tasks'
plot '$dat' using 1:2:3:4 with yerrorlines title 'klpc', '$dat' using 1:5:6:7 with yerrorlines title 'built-in'"
	fi
	if [ -s "$fun" ]; then
		panels=$((panels + 1))
		cmds="$cmds
set xlabel 'patched functions'
set ylabel 'ms (median)'
set title 'enable / disable time vs functions'
plot '$fun' using 1:2 with linespoints title 'klpc enable', '$fun' using 1:3 with linespoints title 'klpc disable', '$fun' using 1:4 with linespoints title 'built-in enable', '$fun' using 1:5 with linespoints title 'built-in disable'"
	fi
	if [ "$panels" -gt 0 ]; then
		gnuplot <<EOF
set terminal pngcairo size $((600 * panels)),500 noenhanced
set output '$RESULTS/scale.png'
set multiplot layout 1,$panels title 'klpc vs built-in livepatch (same guest boot; TCG: compare ratios only)'
set logscale xy
set key top left
set grid
$cmds
unset multiplot
EOF
		msg "chart: $RESULTS/scale.png"
	fi
	rm -f "$dat" "$fun"
}

# write_hist: the latency histograms of all repetitions summed, per
# scenario and implementation (bins: 10 a decade, by their low edge in us)
write_hist() {
	echo "scenario,impl,bin_low_us,count" >"$HIST"
	grep -a '^BENCH-HIST,' "$LOG" | awk -F , '
		{ k = $2 "," $3 "," $5; if (!(k in c)) o[++n] = k; c[k] += $6 }
		END { for (i = 1; i <= n; i++) print o[i] "," c[o[i]] }' |
		sort -t , -k1,1 -k2,2 -k3,3g >>"$HIST"
	[ "$(wc -l <"$HIST")" -gt 1 ] || rm -f "$HIST"
}

# hist_dat SCENARIO IMPL FILE: each bin's low edge and its share of the
# wake-ups (%), every bin up to the highest one any run filled, an empty
# one at 1e-6 % (below the chart), for gnuplot's steps
hist_dat() {
	awk -F , -v s="$1" -v i="$2" '
		NR == 1 { next }
		{ k = int(10 * log($3) / log(10) + 0.5); if (k > top) top = k }
		$1 == s && $2 == i { c[k] = $4; t += $4 }
		END {
			if (!t) exit
			for (k = 0; k <= top + 1; k++)
				printf "%.5g %.8f\n", exp(k / 10 * log(10)),
					k in c ? 100 * c[k] / t : 1e-6
		}' "$HIST" >"$3"
}

# plot_latency: a panel per latency scenario measured: the share of the
# wake-ups per latency bin for klpc, the built-in and the baseline
plot_latency() {
	local sc p base what d panels=0 cmds=''
	[ -f "$HIST" ] || return 0
	for sc in "${LAT_SCENARIOS[@]}"; do
		IFS='|' read -r p base what <<<"$sc"
		d=$RESULTS/.lat-$STAMP-$p
		hist_dat "$p" klpc "$d.klpc"
		hist_dat "$p" builtin "$d.builtin"
		hist_dat "$base" none "$d.none"
		[ -s "$d.klpc" ] || [ -s "$d.builtin" ] || continue
		panels=$((panels + 1))
		cmds="$cmds
set title '$what'
plot"
		[ ! -s "$d.klpc" ] || cmds="$cmds '$d.klpc' using 1:2 with steps lw 2 title 'klpc',"
		[ ! -s "$d.builtin" ] || cmds="$cmds '$d.builtin' using 1:2 with steps lw 2 title 'built-in',"
		[ ! -s "$d.none" ] || cmds="$cmds '$d.none' using 1:2 with steps dt 2 title 'no transition',"
		cmds=${cmds%,}
	done
	if [ "$panels" -gt 0 ]; then
		gnuplot <<EOF
set terminal pngcairo size $((panels > 1 ? 1200 : 600)),$((panels > 2 ? 900 : 450)) noenhanced
set output '$RESULTS/latency.png'
set multiplot layout $((panels > 2 ? 2 : 1)),$((panels > 1 ? 2 : 1)) title 'wake-up latency of a SCHED_FIFO thread per CPU, 1 ms period (same guest boot; TCG)'
set logscale xy
set yrange [1e-4:100]
set key top right
set grid
set xlabel 'wake-up latency (us)'
set ylabel 'share of the wake-ups (%)'
$cmds
unset multiplot
EOF
		msg "chart: $RESULTS/latency.png"
	fi
	rm -f "$RESULTS"/.lat-"$STAMP"-*
}

plot() {
	command -v gnuplot >/dev/null || {
		msg "gnuplot missing: no chart (tools/deps.sh vm installs gnuplot-nox)"
		return 0
	}
	plot_scale
	plot_latency
}

# phases: where each run's worst wake-up fell (a window's first
# BENCH-PHASE line is its worst wake-up), with the phase the traced
# function stands for (bench/lat.sh lists them)
phases() {
	grep -a '^BENCH-PHASE,' "$LOG" | awk -F , '
		BEGIN {
			n = split("klpc_init_transition klpc_tasks_alloc", a, " ")
			for (i = 1; i <= n; i++) ph[a[i]] = "table fill"
			n = split("klpc_transition_work_fn klpc_check_tasks klpc_tasks_refill klpc_stack_build klpc_idle_work_fn", a, " ")
			for (i = 1; i <= n; i++) ph[a[i]] = "check round"
			n = split("klpc_teardown_fn klpc_tasks_reap klpc_resume_cancel_all klpc_tasks_retire", a, " ")
			for (i = 1; i <= n; i++) ph[a[i]] = "teardown"
			n = split("klpc_init_objects module_kallsyms_on_each_symbol kallsyms_on_each_match_symbol klp_find_object_symbol", a, " ")
			for (i = 1; i <= n; i++) ph[a[i]] = "symbol resolution"
			n = split("load_module apply_relocate_add add_kallsyms module_finalize module_enable_ro do_free_init __purge_vmap_area_lazy free_module", a, " ")
			for (i = 1; i <= n; i++) ph[a[i]] = "module load"
			n = split("synchronize_rcu_tasks synchronize_rcu_tasks_rude rcu_do_batch kfree_rcu_work", a, " ")
			for (i = 1; i <= n; i++) ph[a[i]] = "RCU"
			ph["__klpc_enable_patch"] = "filter update (ftrace), the rest of the enable"
			ph["klpc_end_transition"] = "completion; filter update (ftrace) when disabling"
			ph["text_poke_bp_batch"] = "ftrace text patching"
			ph["do_init_module"] = "module init"
			ph["klp_try_complete_transition"] = "pass over the tasks"
			ph["klp_enable_patch"] = "enable: init/start walks, registration, first pass"
			ph["klp_patch_object"] = "ftrace_ops registrations"
			ph["klp_unpatch_objects"] = "ftrace_ops unregistrations"
		}
		!seen[$2 "," $3 "," $4]++ {
			printf "- %s, %s, rep %s: %s ms on CPU %s (the other CPU: %s ms late meanwhile), in %s%s (on CPU %s, %s%% of the stall)\n",
				$3, $2, $4, $5, $6, $10, $7,
				$7 in ph ? " [" ph[$7] "]" : "", $8, $9
		}'
}

main() {
	mkdir -p "$RESULTS"
	write_csv || return 1
	write_stats
	table_rows
	{
		echo "klpc benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -a '^BENCH-INFO,kernel,' "$LOG" | cut -d , -f 3 | head -n 1)."
		accel_note
		echo "ratio = klpc median / reference median; lower is better for klpc."
		echo
		print_table
		if grep -aq '^BENCH-PHASE,' "$LOG"; then
			echo
			echo "Where each run's worst wake-up fell (the traced function that covered most of the stall):"
			echo
			phases
		fi
	} >"$MD"
	cat "$MD"
	write_hist
	plot || msg "gnuplot failed; no chart"
	rm -f "$STATS"
	msg "raw figures: $CSV; table: $MD"
	[ ! -f "$HIST" ] || msg "latency histograms: $HIST"
}

main "$@"
