#!/bin/bash
# Host side of make vm-bench: turn the guest's BENCH lines into
#   results/bench-<date>.csv   every repetition (figure,impl,param,rep,value,unit)
#   results/bench-<date>.md    the table below, as Markdown (for the README)
#   results/scale.png          completion time against tasks, enable and
#                              disable time against functions (gnuplot)
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

# row LABEL FIGURE PARAM REF TARGET_TEXT MAX_RATIO [MAX_KLPC]
row() {
	local k r met=-
	k=$(stat "$2" klpc "$3" med)
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
	t100=$(stat scale klpc 100 med)
	t10k=$(stat scale klpc 10000 med)
	[ -n "$t100" ] && [ -n "$t10k" ] || return 0
	growth=$(awk -v a="$t10k" -v b="$t100" 'BEGIN { printf "%.1f\n", a / b }')
	met=$(awk -v g="$growth" 'BEGIN { print g <= 100 ? "yes" : "NO" }')
	ROWS+=("completion growth, 100 → 10000 tasks (x)|$growth|builtin: $(awk -v a="$(stat scale builtin 10000 med)" -v b="$(stat scale builtin 100 med)" 'BEGIN { if (b > 0) printf "%.1f\n", a / b; else print "-" }')|-|≤100 (linear)|$met")
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

plot() {
	local dat=$RESULTS/.scale-$STAMP.dat fun=$RESULTS/.funcs-$STAMP.dat
	command -v gnuplot >/dev/null || {
		msg "gnuplot missing: no chart (tools/deps.sh vm installs gnuplot-nox)"
		return 0
	}
	for n in 100 1000 10000; do
		echo "$n $(stat scale klpc $n med) $(stat scale klpc $n min) $(stat scale klpc $n max) $(stat scale builtin $n med) $(stat scale builtin $n min) $(stat scale builtin $n max)"
	done | awk 'NF == 7' >"$dat"
	for n in 1 100 1000; do
		echo "$n $(stat enable klpc $n med) $(stat disable klpc $n med) $(stat enable builtin $n med) $(stat disable builtin $n med)"
	done | awk 'NF == 5' >"$fun"
	gnuplot <<EOF
set terminal pngcairo size 1200,500 noenhanced
set output '$RESULTS/scale.png'
set multiplot layout 1,2 title 'klpc vs built-in livepatch (same guest boot; TCG: compare ratios only)'
set logscale xy
set key top left
set grid
set xlabel 'sleeping tasks'
set ylabel 'insmod to transition 0 (ms)'
set title 'transition completion vs tasks'
plot '$dat' using 1:2:3:4 with yerrorlines title 'klpc', \
     '$dat' using 1:5:6:7 with yerrorlines title 'built-in'
set xlabel 'patched functions'
set ylabel 'ms (median)'
set title 'enable / disable time vs functions'
plot '$fun' using 1:2 with linespoints title 'klpc enable', \
     '$fun' using 1:3 with linespoints title 'klpc disable', \
     '$fun' using 1:4 with linespoints title 'built-in enable', \
     '$fun' using 1:5 with linespoints title 'built-in disable'
unset multiplot
EOF
	rm -f "$dat" "$fun"
	msg "chart: $RESULTS/scale.png"
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
	} >"$MD"
	cat "$MD"
	plot || msg "gnuplot failed; no chart"
	rm -f "$STATS"
	msg "raw figures: $CSV; table: $MD"
}

main "$@"
