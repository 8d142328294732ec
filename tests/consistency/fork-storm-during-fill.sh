#!/bin/sh
# was t-3f-fork-storm-fill
# An unprivileged fork storm while the table is filled must not keep a
# patch from being enabled or disabled.  The fill gives every task an entry
# from the pool klpc_tasks_alloc() sized for the tasks counted just before;
# the fork hook takes entries from the same pool, and a child that exits at
# once leaves its entry on the dead list until the first check round.  The
# fill runs in the writer of 'enabled' and yields the CPU every 128 tasks:
# a writer with little CPU (here a cgroup capped at 0.1% by cpu.max, as a
# service with CPUQuota= would be) fills slowly while user nobody runs 8
# fork/_exit loops, beside 2,000 sleeping threads.  Disabling the patch
# (what an administrator must be able to do with a bad one; enabling fills
# the table the same way) must succeed, with no "cannot prepare" line in
# the kernel log and no mismatch.  Before the fix the write failed with
# EAGAIN after three fills.
# klpc-timeout: 600
# klpc-weight: 250
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-freezer.sh
. "${0%/*}/../lib-freezer.sh"

THREADS=2000
FORKERS=8
SECONDS_LOAD=36000

# cg_cpu_setup: the test's cgroup, capped at 1 ms of CPU a second.
cg_cpu_setup() {
	cg_mount
	grep -qw cpu /sys/fs/cgroup/cgroup.controllers ||
		skip "no cpu controller (CONFIG_CFS_BANDWIDTH)"
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
	[ -d "$CG" ] || mkdir "$CG"
	echo "1000 1000000" >"$CG/cpu.max"
}

# write_capped VALUE: write VALUE to the patch's enabled file from the
# capped cgroup, then wait for the transition.
write_capped() {
	_f=$(patch_dir klpc_cm_patch)/enabled
	_t0=$(ms_now)
	_err=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec printf "%s\n" "$2" >"$3"' \
		sh "$CG" "$1" "$_f" 2>&1) ||
		die "writing $1 to $_f from a capped cgroup failed: $_err ($(dmesg_since_mark | grep klpc | tail -n 1))"
	info "write of $1: $(($(ms_now) - _t0)) ms"
	wait_transition klpc_cm_patch 120
}

cg_cpu_setup
klpc_core_load
load klpc-cm-target
load klpc-cm-patch
wait_transition klpc_cm_patch

"$KLPC_TASKS" threads "$THREADS" "$SECONDS_LOAD" &
pids=$!
# shellcheck disable=SC2086 # a list of pids
trap 'kill $pids 2>/dev/null || true; cg_cleanup' EXIT
i=0
while [ $i -lt $FORKERS ]; do
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KLPC_HAMMER" forks "$SECONDS_LOAD" &
	pids="$pids $!"
	i=$((i + 1))
done
sleep 3

dmesg_mark
start=$(ms_now)
write_capped 0
figure "fork-storm fill: disabled from a cgroup capped at 0.1% beside $FORKERS fork loops of nobody and $THREADS threads in $(($(ms_now) - start)) ms"
if dmesg_since_mark | grep -q 'cannot prepare'; then
	die "a fill ran out: $(dmesg_since_mark | grep 'cannot prepare' | head -n 1)"
fi

for pid in $pids; do
	kill "$pid" 2>/dev/null || true
done
for pid in $pids; do
	wait "$pid" 2>/dev/null || true
done
assert_eq 0 "$(cm_mismatches)" "mismatches"
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
