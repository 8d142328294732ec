#!/bin/sh
# was t-80-dup-sample
# The sympos sample: klpc-sample-dup replaces the second of vmlinux's two
# static full_scans_show() (khugepaged's, old_sympos 2) with code that
# calls the first of its two static pages_to_scan_show() (KSM's) by name,
# a .klp.rela.vmlinux relocation against pages_to_scan_show,1. The two
# positions are checked from user space: KSM's full_scans stays a number,
# khugepaged's shows KSM's pages_to_scan, which follows a write to it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

[ -f "$KLPC_MODDIR/klpc-sample-dup.ko" ] ||
	skip "no klpc-sample-dup.ko: this kernel lacks KSM or THP, which it patches (tools/convert-modules.sh left it out)"
ksm=/sys/kernel/mm/ksm
khp=/sys/kernel/mm/transparent_hugepage/khugepaged
for f in "$ksm/full_scans" "$khp/full_scans"; do
	[ -r "$f" ] || die "no $f: the sample needs KSM and THP (Debian's kernel has both)"
done
# the names this sample relies on are duplicated, kallsyms in address order
for n in full_scans_show pages_to_scan_show; do
	assert_eq 2 "$(awk -v n="$n" '$3 == n' /proc/kallsyms | wc -l)" "$n in /proc/kallsyms"
done
ksm_scans=$(cat "$ksm/full_scans")
khp_scans=$(cat "$khp/full_scans")
echo "$khp_scans" | grep -Eqx '[0-9]+' || die "khugepaged full_scans: '$khp_scans'"
old_pts=$(cat "$ksm/pages_to_scan")
khp_pts=$(cat "$khp/pages_to_scan")

klpc_core_load
load klpc-sample-dup
wait_transition klpc_sample_dup
line=$(cat "$khp/full_scans")
info "$khp/full_scans: $line"
assert_eq "klpc-sample-dup: ksm pages_to_scan $old_pts" "$line" "khugepaged full_scans"
# KSM's, not khugepaged's, pages_to_scan is called
echo 123 >"$ksm/pages_to_scan"
assert_eq "klpc-sample-dup: ksm pages_to_scan 123" "$(cat "$khp/full_scans")" \
	"khugepaged full_scans after a write to KSM's pages_to_scan"
assert_eq "$khp_pts" "$(cat "$khp/pages_to_scan")" "khugepaged pages_to_scan"
echo "$old_pts" >"$ksm/pages_to_scan"
# KSM's full_scans (position 1) is not patched
assert_eq "$ksm_scans" "$(cat "$ksm/full_scans")" "KSM full_scans"
disable_patch klpc_sample_dup
grep -Eqx '[0-9]+' "$khp/full_scans" || die "khugepaged full_scans after disable: $(cat "$khp/full_scans")"
unload klpc-sample-dup
