#!/bin/sh
# was t-8a-sysfs-storm
# Hostile sysfs load: for 60 s, 8 writers write random booleans to
# 'enabled' and 1 to 'force' of two stacked patches of one module object
# while that module is loaded and removed in a loop.  Afterwards no
# transition is left, each patch module's reference count is what its
# state says (1 if enabled, 1 more if forced), the patched functions
# behave as the enabled patches say, and everything not forced unloads.
# A forced module stays for good, and so does klpc.ko: this runs after
# the tests that need klpc unloaded (tests/cli/,
# stress/rmmod-force-during-transition), and leaves no patch
# listed for the ones after it (a replace patch retires the forced ones).
# klpc-timeout: 300
# klpc-group: tail
# klpc-order: 91 (the tail that leaves state for good, in this order)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

STORM_SECS=60
WRITERS=8
BOTTOM=klpc_test_patch
TOP=klpc_sample_mod

rnd() {
	od -An -N1 -tu1 /dev/urandom | tr -d ' '
}

# writer END: random writes until END (seconds since the epoch)
writer() {
	while [ "$(date +%s)" -lt "$1" ]; do
		r=$(rnd)
		if [ $((r % 2)) -eq 0 ]; then p=$BOTTOM; else p=$TOP; fi
		f=$(patch_dir $p)
		case $((r / 2 % 8)) in
		0) write_sysfs 1 "$f/force" 2>/dev/null || true ;;
		*) write_sysfs $((r / 16 % 2)) "$f/enabled" 2>/dev/null || true ;;
		esac
	done
}

# target_loop END: load and remove klpc_target until END
target_loop() {
	while [ "$(date +%s)" -lt "$1" ]; do
		try_load klpc-target 2>/dev/null || true
		rmmod klpc_target 2>/dev/null || true
	done
}

# check_refs PATCH: its module's count matches enabled + forced
check_refs() {
	d=$(patch_dir "$1")
	want=$(($(cat "$d/enabled") + $(cat "$d/forced")))
	assert_eq "$want" "$(module_refcnt "$1")" "refcnt of $1 (enabled $(cat "$d/enabled"), forced $(cat "$d/forced"))"
}

# wait_settled: no patch of klpc in transition
wait_settled() {
	i=0
	while grep -qx 1 "$KLPC_SYSFS"/*/transition 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || die "a transition did not end: $(grep -l 1 "$KLPC_SYSFS"/*/transition)"
		sleep 0.1
	done
}

klpc_core_load
load klpc-test-patch obj=klpc_target func=klpc_target_dup sympos=1 replace=1
load klpc-sample-mod

end=$(($(date +%s) + STORM_SECS))
pids=
n=0
while [ $n -lt $WRITERS ]; do
	writer "$end" &
	pids="$pids $!"
	n=$((n + 1))
done
target_loop "$end" &
pids="$pids $!"
for pid in $pids; do
	wait "$pid" || die "a storm process failed"
done

wait_settled
for p in $BOTTOM $TOP; do
	check_refs "$p"
done

# the functions say what the enabled patches say
load klpc-target
top=$(cat "$(patch_dir $TOP)/enabled")
bottom=$(cat "$(patch_dir $BOTTOM)/enabled")
line=$(cat /proc/klpc_target)
info "after the storm: top enabled $top forced $(cat "$(patch_dir $TOP)/forced"), bottom enabled $bottom forced $(cat "$(patch_dir $BOTTOM)/forced"): $line"
if [ "$top" = 1 ]; then want="patched by klpc"; else want=original; fi
case $line in
"message=$want dup="*) ;;
*) die "/proc/klpc_target: '$line', expected message=$want" ;;
esac
case $bottom:$line in
1:*" dup=42,"* | 1:*",42 "* | 0:*" dup=1,2 "*) ;;
*) die "/proc/klpc_target: '$line' with the bottom patch enabled=$bottom" ;;
esac

# settle everything down: disable top then bottom, then unload
for p in $TOP $BOTTOM; do
	d=$(patch_dir "$p")
	[ "$(cat "$d/enabled")" = 1 ] || continue
	expect_write_ok "$d/enabled" 0
	wait_settled
done
unload klpc-target
forced=
for p in $TOP $BOTTOM; do
	check_refs "$p"
	if [ "$(cat "$(patch_dir "$p")/forced")" = 1 ]; then
		expect_fail rmmod "$p"
		forced="$forced $p"
	else
		unload "$p"
	fi
done
[ -n "$forced" ] || exit 0

# a forced patch stays listed, disabled, and would refuse every later
# patch but a replace one: retire it with one, then remove that one
info "forced:$forced; retiring them with a replace patch"
load klpc-test-cb-demo2 replace=1
wait_settled
disable_patch klpc_test_cb_demo2
unload klpc-test-cb-demo2
for p in $forced; do
	is_loaded "$p" || die "the forced module $p went away"
done
# ... so that a patch that is not a replace one loads again
load klpc-sample
wait_settled
disable_patch klpc_sample
unload klpc-sample
