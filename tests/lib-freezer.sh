# shellcheck shell=sh
# Helpers of the freezer tests (consistency/frozen-cgroup,
# consistency/force-frozen-cgroup), after lib.sh: one cgroup v2 of the test's own, frozen and thawed through
# cgroup.freeze (the guest's /init mounts no cgroup file system: the
# first test mounts cgroup2 on /sys/fs/cgroup).

# a test is named AREA/NAME: one cgroup, not one in another
CG=/sys/fs/cgroup/$(echo "$KLPC_TEST" | tr / -)

# cg_setup: the test's cgroup, empty and thawed; thawed and removed when
# the test exits (the sleeper released first: a frozen task holds
# klpc_cm_target's file open).
cg_setup() {
	cg_mount
	[ -d "$CG" ] || mkdir "$CG"
	[ -e "$CG/cgroup.freeze" ] || skip "no cgroup v2 freezer"
	trap 'release_sleeper; cg_cleanup' EXIT
	trap 'exit 1' INT TERM
}

# cg_mount: cgroup2 on /sys/fs/cgroup, or the test skips.
cg_mount() {
	grep -qw cgroup2 /proc/filesystems ||
		skip "no cgroup2 in this kernel (CONFIG_CGROUPS=n: the debug kernels)"
	if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
		mkdir -p /sys/fs/cgroup
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || skip "no cgroup2"
	fi
}

# cg_cleanup: thaw, kill what is left in the cgroup, remove it.
cg_cleanup() {
	[ -d "$CG" ] || return 0
	echo 0 >"$CG/cgroup.freeze" 2>/dev/null || true
	echo 1 >"$CG/cgroup.kill" 2>/dev/null || true
	wait_until 10 cg_empty || true
	rmdir "$CG" 2>/dev/null || true
}

cg_empty() {
	grep -q '^populated 0$' "$CG/cgroup.events"
}

# cg_add PID...: move the tasks into the cgroup.
cg_add() {
	for _pid in "$@"; do
		echo "$_pid" >"$CG/cgroup.procs" || die "cannot move $_pid into $CG"
	done
}

# cg_freeze 1|0: freeze or thaw the cgroup (without waiting).
cg_freeze() {
	echo "$1" >"$CG/cgroup.freeze"
}

# cg_frozen: every task of the cgroup is frozen (cgroup.events).
cg_frozen() {
	grep -q '^frozen 1$' "$CG/cgroup.events"
}

# cg_freeze_wait: freeze, and wait until every task is frozen.
cg_freeze_wait() {
	cg_freeze 1
	wait_until 20 cg_frozen || die "$CG not frozen after 20 s: $(tr '\n' ' ' <"$CG/cgroup.events")"
}

# assert_frozen_stack PID: PID sleeps where the cgroup v2 freezer puts a
# task, in get_signal(), on its way back to user space.
assert_frozen_stack() {
	sleeping_in get_signal "$1" ||
		die "task $1 is not frozen in get_signal(): $(tr '\n' ' ' <"/proc/$1/stack")"
}
