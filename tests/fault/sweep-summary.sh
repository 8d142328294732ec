#!/bin/sh
# was t-85-9-fault-summary
# Fault sweep (lib-fault.sh): the sum of the sweeps run before (the
# other fault/sweep-*), one line for docs/testing.md; fails if none ran.
# Then klpc unloads.
# klpc-group: fault
# klpc-order: 60 (after the sweeps it sums up)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

[ -s "$FAULT_TALLY" ] || die "no fault sweep ran before this test"
info "$(cat "$FAULT_TALLY")"
ops=$(awk '{ print $1 }' "$FAULT_TALLY" | sort -u | wc -l)
points=$(awk '$3 != "skipped" { n += $3 } END { print n + 0 }' "$FAULT_TALLY")
mechs=$(awk '$3 != "skipped" { print $2 }' "$FAULT_TALLY" | sort -u | paste -sd, - | sed 's/,/, /g')
skipped=$(awk '$3 == "skipped" { print $2 }' "$FAULT_TALLY" | sort -u)
sites=$(awk '$2 == "klpc-test-fail" { print $4 }' "$FAULT_TALLY" | tr ',' '\n' |
	grep -v '^-$' | sort -u | paste -sd, -)
line="fault sweep: $ops operations, $points injection points, all clean (mechanisms: $mechs"
[ -z "$skipped" ] || line="$line; skipped: $skipped, no fault injection in $(uname -r)"
figure "$line)"
figure "fault sweep: klpc allocation sites failed: $sites"
rm -f "$FAULT_TALLY"
klpc_core_unload
