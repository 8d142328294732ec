# shellcheck shell=sh
# Helpers of the guest benchmark runner (bench/run.sh), which sets MOD,
# TOOL, KSYS, BSYS, WORK and BG_PIDS before sourcing this file.

die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}

note() {
	echo "bench: $*"
}

# emit FIGURE IMPL PARAM REP VALUE UNIT: one measured figure
emit() {
	echo "BENCH,$1,$2,$3,$4,$5,$6"
}

uptime_s() {
	cut -d ' ' -f 1 /proc/uptime
}

is_loaded() {
	grep -q "^$(echo "$1" | tr - _) " /proc/modules
}

# load MOD [PARAM=VALUE...] / unload MOD: no-ops if already so
load() {
	_m=$1
	shift
	is_loaded "$_m" || insmod "$MOD/$_m.ko" "$@" || die "insmod $_m $*"
}

unload() {
	! is_loaded "$1" || rmmod "$(echo "$1" | tr - _)" || die "rmmod $1"
}

# on_cpu0 CMD...: run CMD on CPU 0, where every per-call figure is taken
on_cpu0() {
	taskset -c 0 "$@"
}

# kmem_bytes: unreclaimable kernel memory (slab, vmalloc, per-CPU)
kmem_bytes() {
	awk '/^(SUnreclaim|VmallocUsed|Percpu):/ { s += $2 }
		END { printf "%d\n", s * 1024 }' /proc/meminfo
}

# patch_dir IMPL / patch_mod IMPL: sysfs directory and module of a patch
patch_dir() {
	if [ "$1" = klpc ]; then echo "$KSYS"; else echo "$BSYS"; fi
}

patch_mod() {
	echo "klpc-bench-$1"
}

# patch_on IMPL [PARAM=VALUE...]: insmod the patch; prints the
# milliseconds until its transition reads 0
patch_on() {
	_impl=$1
	shift
	"$TOOL" insmod "$MOD/$(patch_mod "$_impl").ko" \
		"$(patch_dir "$_impl")/transition" "$@" ||
		die "enabling the $_impl patch $*"
}

# patch_off IMPL: disable the patch (prints the milliseconds until its
# transition reads 0) and remove its module
patch_off() {
	patch_disable "$1"
	patch_remove "$1"
	settle
}

# patch_disable IMPL: the first half of patch_off
patch_disable() {
	_d=$(patch_dir "$1")
	"$TOOL" write "$_d/enabled" 0 "$_d/transition" ||
		die "disabling the $1 patch"
}

# patch_remove IMPL: remove the module of a disabled patch
patch_remove() {
	# the built-in frees a disabled patch, then lets its module go
	_i=0
	while ! rmmod "$(patch_mod "$1" | tr - _)" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || die "cannot remove the $1 patch module"
		sleep 0.1
	done
}

# settle: both implementations finish work after 'transition' reads 0
# (freeing, RCU grace periods); let it end before the next measurement
settle() {
	sleep 1
}

check_redirected() {
	_v=$(cat /proc/klpc_bench_target)
	[ "$_v" = "redirected $1" ] || die "expected 'redirected $1', got '$_v'"
}

# bg CMD...: run CMD in the background until stop_bg
bg() {
	"$@" &
	BG_PIDS="$BG_PIDS $!"
}

stop_bg() {
	for _p in $BG_PIDS; do
		kill "$_p" 2>/dev/null || true
		wait "$_p" 2>/dev/null || true
	done
	BG_PIDS=
}

# spawn_sleepers procs|threads N: N tasks sleeping in pause() until stop_bg
spawn_sleepers() {
	rm -f "$WORK/ready"
	bg "$TOOL" spawn "$1" "$2" "$WORK/ready"
	_i=0
	while [ ! -e "$WORK/ready" ]; do
		_i=$((_i + 1))
		[ $_i -lt 1200 ] || die "$2 sleeping $1 not ready after 120 s"
		sleep 0.1
	done
	note "$2 sleeping $1 ready at $(uptime_s) s"
}

# wait_zero FILE: poll FILE (a transition) until it reads 0, 60 s at most
wait_zero() {
	_i=0
	while [ "$(cat "$1")" != 0 ]; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || die "$1 still not 0 after 60 s"
		sleep 0.1
	done
}

# hold_transition IMPL: a task sleeps in klpc_bench_hold(), then the
# patch is loaded with hold=1: its transition stays open until
# release_transition.  HOLD_KMEM is kmem_bytes just before the insmod.
hold_transition() {
	cat /proc/klpc_bench_hold >/dev/null &
	HOLDER=$!
	_i=0
	until grep -q klpc_bench_hold "/proc/$HOLDER/wchan" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || die "the holder does not sleep in klpc_bench_hold"
		sleep 0.05
	done
	# shellcheck disable=SC2034 # read by bench/run.sh
	HOLD_KMEM=$(kmem_bytes)
	load "$(patch_mod "$1")" funcs=1 hold=1
	check_held "$1"
}

check_held() {
	[ "$(cat "$(patch_dir "$1")/transition")" = 1 ] ||
		die "the $1 transition ended while held"
}

# end_hold IMPL: wake the holder and wait for the transition to end
end_hold() {
	echo 1 >/proc/klpc_bench_hold
	wait "$HOLDER" || die "the holder failed"
	HOLDER=
	wait_zero "$(patch_dir "$1")/transition"
}

release_transition() {
	end_hold "$1"
	patch_off "$1" >/dev/null
}

# builtin_debug_on: the built-in livepatch's debug line for each task its
# pass over the tasks could not move (dynamic debug; kernel log only, the
# console shows level 5 and up): the first pass failed if there is one
builtin_debug_on() {
	for _c in /proc/dynamic_debug/control \
		/sys/kernel/debug/dynamic_debug/control; do
		[ -e "$_c" ] || continue
		if echo 'func klp_try_switch_task +p' >"$_c" 2>/dev/null; then
			BUILTIN_DEBUG=1
			return 0
		fi
	done
	note "no dynamic debug: the built-in's first passes are not told apart"
}

# builtin_fails: how many tasks the built-in's passes could not move since
# the tool last started an insmod or a write (0: the first pass moved all),
# or "?" without dynamic debug
builtin_fails() {
	if [ -z "${BUILTIN_DEBUG:-}" ]; then
		echo '?'
		return 0
	fi
	dmesg | awk '/klpc-bench-tool: (insmod|write) / { n = 0; next }
		/klp_try_switch_task: / { n++ } END { print n + 0 }'
}

# pass_class FAILS: "first" if the built-in's first pass moved every task,
# "retry" if it had to try again, "unknown" without dynamic debug
pass_class() {
	case $1 in
	0) echo first ;;
	'?') echo unknown ;;
	*) echo retry ;;
	esac
}

cleanup() {
	stop_bg
	lat_stop_quiet
	if [ -n "${HOLDER:-}" ] && [ -e /proc/klpc_bench_hold ]; then
		echo 1 >/proc/klpc_bench_hold || true
	fi
	rm -rf "$WORK"
}
