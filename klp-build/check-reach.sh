#!/bin/sh
# Host tests of the units klpc build finds for a diff (klpc build
# --list-units): each tests/fixes/reach/*.patch names, in its
# X-Klpc-Units: line, units that must be listed ("+dir/x.o") or must not
# ("-dir/x.o").  Needs the target's headers package and linux-source, as
# check-build.sh does (the source is prepared once into KLPC_CACHE).
# Usage: klp-build/check-reach.sh KVER
# Prints one line per case and "reach: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/klp-build/klpc-build
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

# listed NAME UNITS WANT: what is wrong with the list UNITS for the
# "+unit -unit" words of WANT (nothing when it is right)
listed() {
	for _w in $3; do
		_u=${_w#?}
		case $_w in
		+*) echo "$2" | grep -qxF "$_u" || printf '%s is not listed; ' "$_u" ;;
		-*) ! echo "$2" | grep -qxF "$_u" || printf '%s is listed; ' "$_u" ;;
		*) printf "bad word '%s' in X-Klpc-Units; " "$_w" ;;
		esac
	done
}

# reach_lane KVER: the diffs named on stdin, each listed and checked
reach_lane() {
	while read -r fix; do
		_name=$(basename "$fix" .patch)
		_want=$(sed -n 's/^X-Klpc-Units: //p' "$fix")
		_st=0
		_out=$("$BUILD" --list-units -k "$1" "$fix" 2>"$TMP/$_name.err") || _st=$?
		if [ "$_st" != 0 ]; then
			case_result fail "$_name" "exit $_st: $(tail -n 2 "$TMP/$_name.err")"
			continue
		fi
		_why=$(listed "$_name" "$(echo "$_out" | grep -v '^klpc build: ')" "$_want")
		if [ -n "$_why" ]; then
			case_result fail "$_name" "$_why"
		else
			case_result ok "$_name ($(echo "$_out" | grep -vc '^klpc build: ') units)"
		fi
	done
}

main() {
	[ $# -eq 1 ] || { echo "usage: $0 KVER" >&2; exit 2; }
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	cases_start "$TMP/results"
	printf '%s\n' "$ROOT"/tests/fixes/reach/*.patch | in_lanes reach_lane "$1"
	cases_summary reach
}

main "$@"
