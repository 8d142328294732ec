#!/bin/sh
# was t-00-guest
# Smoke test: the guest runs the kernel the modules were built for, with
# tracefs mounted, and every module in /klpc/modules has that vermagic.
# klpc-order: 0 (first: the guest itself)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

[ -s "$KLPC_DIR/kver" ] || die "$KLPC_DIR/kver missing (written by vm/run.sh)"
assert_eq "$(cat "$KLPC_DIR/kver")" "$(uname -r)" "guest kernel release"

assert_exists /sys/kernel/tracing
assert_exists /sys/kernel/tracing/available_filter_functions
grep -q '^cmdline_proc_show' /sys/kernel/tracing/available_filter_functions ||
	die "cmdline_proc_show is not traceable"

for ko in "$KLPC_MODDIR"/*.ko; do
	[ -f "$ko" ] || continue
	magic=$(modinfo -F vermagic "$ko") || die "modinfo $ko failed"
	assert_eq "$KLPC_KVER" "${magic%% *}" "vermagic of ${ko##*/}"
	info "ok: ${ko##*/}: $magic"
done
