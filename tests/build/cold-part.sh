#!/bin/sh
# was t-87-e-build-cold
# klpc build: a fix in a function's cold part (tests/fixes/cold-oom-adj.patch).
# gcc compiles __set_oom_adj() as the clone __set_oom_adj.isra.0 and moves
# the pr_warn_once() of a write to the legacy /proc/PID/oom_adj into
# __set_oom_adj.isra.0.cold; the diff changes that text only.  The clone
# is patched under the running kernel's name and carries its own cold
# part (the kernel's would print the old text and jump back into the old
# body) and its own report-once flag: after loading, a write to oom_adj
# reports the new text, once; after disabling, never.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

ko=$KLPC_MODDIR/klpc-build-cold-oom-adj.ko
[ -f "$ko" ] || skip "no klpc-build-cold-oom-adj.ko: klpc build targets installed Debian headers only (tools/build-patches.sh)"
P=klpc_build_cold_oom_adj
NEW='oom_adj is deprecated, please use /proc/[0-9]+/oom_score_adj instead \(klpc build: cold part\)'

# write_oom_adj: a shell of its own writes 0 to its oom_adj (which keeps
# its oom_score_adj at 0)
write_oom_adj() {
	sh -c 'echo 0 >/proc/$$/oom_adj' || die "cannot write /proc/PID/oom_adj"
}

klpc_core_load
load klpc-build-cold-oom-adj
wait_transition "$P"
assert_file_eq "$KLPC_SYSFS/$P/checked" yes
assert_file_eq "$KLPC_SYSFS/$P/vmlinux/patched" 1
dmesg_mark
write_oom_adj
assert_dmesg_has "$NEW"
dmesg_mark
write_oom_adj
! dmesg_since_mark | grep -q 'oom_adj is deprecated' ||
	die "the report-once site reported again: $(dmesg_since_mark | grep 'oom_adj is deprecated')"
disable_patch "$P"
dmesg_mark
write_oom_adj
! dmesg_since_mark | grep -q 'klpc build: cold part' ||
	die "the new text after disabling: $(dmesg_since_mark | grep 'klpc build: cold part')"
unload klpc-build-cold-oom-adj
