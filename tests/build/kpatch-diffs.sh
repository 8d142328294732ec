#!/bin/sh
# was t-87-c-build-kpatch
# klpc build against kpatch's own integration diffs for 6.1
# (tests/kpatch/): every diff tests/kpatch/expect says must load was built
# by tools/build-patches.sh before the guest booted; here each loads with
# 'klpc load', its check passes, and unloading restores the old behaviour.
# Each diff expected to fail must have been refused with its reason.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

OUTDIR=$KLPC_DIR/tests/fixes/out/kpatch

# outcome NAME: built, refused or failed (what build-patches.sh recorded)
outcome() {
	for o in built refused failed; do
		[ ! -f "$OUTDIR/$1.$o" ] || { echo "$o"; return 0; }
	done
	echo missing
}

# target_insmod MOD...: the target kernel's own modules, as modprobe would
target_insmod() {
	for m in "$@"; do
		is_loaded "$m" || load "$m"
	done
}

klpc_load() {
	cli 0 load "$KLPC_MODDIR/klpc-kpatch-$1.ko"
	wait_transition "klpc-kpatch-$1"
}

klpc_unload() {
	cli 0 unload "klpc-kpatch-$1"
}

# check_NAME on|off: the patched behaviour is there (on) or gone (off)
check_data_new() {
	if [ "$1" = on ]; then
		grep -q '^kpatch:         5$' /proc/meminfo || die "data-new: no 'kpatch: 5' in /proc/meminfo"
	else
		! grep -q '^kpatch:' /proc/meminfo || die "data-new: 'kpatch:' left in /proc/meminfo"
	fi
}

check_syscall() {
	if [ "$1" = on ]; then
		assert_eq Linux.kpatch "$(uname -s)" "uname -s"
	else
		assert_eq Linux "$(uname -s)" "uname -s"
	fi
}

check_module() {
	if [ "$1" = on ]; then
		# xfs comes after the patch: klpc patches it as it loads
		target_insmod crc32c_generic libcrc32c xfs
		wait_transition klpc-kpatch-module
		assert_file_eq "$(patch_dir klpc-kpatch-module)/xfs/patched" 1
		grep -q '^kpatch$' /sys/fs/xfs/stats/stats || die "module: no 'kpatch' in /sys/fs/xfs/stats/stats"
	else
		! grep -q '^kpatch$' /sys/fs/xfs/stats/stats || die "module: 'kpatch' left in xfs stats"
	fi
}

check_macro_callbacks() {
	if [ "$1" = on ]; then
		dmesg_mark
		target_insmod joydev
		assert_dmesg_has 'pre_patch_callback: joydev -> \[MODULE_STATE_COMING\]'
		assert_dmesg_has 'post_patch_callback: joydev -> \[MODULE_STATE_COMING\]'
	else
		assert_dmesg_has 'post_unpatch_callback: vmlinux'
		assert_dmesg_has 'post_unpatch_callback: joydev -> \[MODULE_STATE_LIVE\]'
	fi
}

# a task forked after the patch has its shadow "newpid" (klpc's shadow
# variables, through the diff's klp_shadow_*() calls)
check_shadow_newpid_rebased() {
	if [ "$1" = on ]; then
		sh -c 'grep -q "^newpid:" /proc/$$/status' ||
			die "shadow-newpid: a new task's status has no 'newpid:'"
	else
		! sh -c 'grep -q "^newpid:" /proc/$$/status' ||
			die "shadow-newpid: 'newpid:' after unload"
	fi
}

# the rest patch code every task runs: the checks are that it still works
check_common() {
	sh -c 'true' || die "$2: fork and exec fail ($1)"
	grep -q '^MemTotal:' /proc/meminfo || die "$2: /proc/meminfo broken ($1)"
	echo "klpc-kpatch $2 $1" >/dev/console || die "$2: tty write fails ($1)"
}

one_diff() {
	check=check_$(echo "$1" | tr - _)
	command -v "$check" >/dev/null 2>&1 || check=check_common
	[ "$1" != macro-callbacks ] || dmesg_mark
	klpc_load "$1"
	[ "$1" != macro-callbacks ] || assert_dmesg_has 'post_patch_callback: vmlinux'
	"$check" on "$1"
	[ "$1" != macro-callbacks ] || dmesg_mark
	klpc_unload "$1"
	"$check" off "$1"
	info "$1: built, loaded, checked, unloaded ($(tail -n 1 "$OUTDIR/$1.built"))"
}

[ -d "$OUTDIR" ] || skip "no kpatch diffs built: klpc build targets installed Debian headers only (tools/build-patches.sh)"
klpc_core_load
grep -v '^#' "$KLPC_DIR/tests/kpatch/expect" >"$KLPC_TMP/kpatch-expect"
while read -r name want _; do
	got=$(outcome "$name")
	case $want/$got in
	load/built) one_diff "$name" ;;
	refuse/refused)
		info "$name: refused: $(grep 'klpc build' "$OUTDIR/$name.refused" | tail -n 1)" ;;
	*) die "$name: expected $want, klpc build gave '$got': $(tail -n 3 "$OUTDIR/$name.$got" 2>/dev/null)" ;;
	esac
done <"$KLPC_TMP/kpatch-expect"
