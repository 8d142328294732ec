#!/bin/sh
# Rewrite tests/weights.txt, the shard planner's weights (vm/shard.sh), from
# the logs of whole runs under Debian's kernels: each test's seconds (the
# "[N s]" of its verdict line) as the largest over the logs given (one of
# each kernel: make vm-test, make vm-test TARGET=trixie). Tests the logs do
# not name keep their line.
# Usage: tools/weights.sh LOG...
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TABLE=$ROOT/tests/weights.txt

# test_times LOG...: "NAME SECONDS" for every verdict line of the logs
test_times() {
	sed -n 's/^\(PASS\|FAIL\|SKIP\) \([a-z0-9-]*\/[^ ]*\).* \[\([0-9][0-9]*\) s[],].*$/\2 \3/p' "$@"
}

main() {
	[ $# -gt 0 ] || { echo "usage: $0 LOG..." >&2; exit 2; }
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	{
		test_times "$@" | sed 's/$/ new/'
		[ ! -f "$TABLE" ] || grep -v '^#' "$TABLE" | sed 's/$/ old/'
	} | awk '
		$3 == "new" { if (!($1 in n) || $2 > n[$1]) n[$1] = $2; next }
		{ o[$1] = $2 }
		END {
			for (t in o) if (!(t in n)) n[t] = o[t]
			for (t in n) print t, n[t]
		}' | sort >"$tmp"
	{
		echo "# Seconds each test took in one guest of a whole run under Debian's"
		echo "# kernels, the larger of 6.1's and 6.12's: what make vm-test SHARDS=N"
		echo "# places tests by (vm/shard.sh). Made by tools/weights.sh from runs' logs."
		cat "$tmp"
	} >"$TABLE"
	echo "tools/weights.sh: $(grep -vc '^#' "$TABLE") tests in $TABLE"
}

main "$@"
