# shellcheck shell=sh
# Which guest tests there are, in which order they run, and which a filter
# selects: one answer for the guest runner (tests/run-tests.sh) and the
# host (vm/shard.sh, vm/secure.sh, tools/lib.sh's filter_wants), so that a
# shard's plan, the builds a run needs and the guest agree. POSIX sh: the
# guest runs it under its sh. Source it; it defines functions only.
#
# A test is tests/AREA/NAME.sh, named AREA/NAME (docs/testing.md lists the
# areas). The folders of helpers (below) hold no tests. Tests run by their
# '# klpc-order: N' line (default 50; lower first), then by name: the few
# whose place matters say so (the guest check first, the fault sweep's
# summary after its sweeps, the tail that leaves state for good last).

# the folders of tests/ that hold helpers, not tests
KLPC_HELPER_DIRS="bin fixes kpatch modules pkg tools torture upstream"

# klpc_tests DIR: the names of the tests in DIR (tests/), in run order.
klpc_tests() {
	for _f in "$1"/*/*.sh; do
		[ -f "$_f" ] || continue
		_n=${_f#"$1"/}
		case " $KLPC_HELPER_DIRS " in *" ${_n%%/*} "*) continue ;; esac
		_o=$(sed -n 's/^# *klpc-order: *\([0-9][0-9]*\).*/\1/p' "$_f" | head -n 1)
		echo "${_o:-50} ${_n%.sh}"
	done | LC_ALL=C sort -k1,1n -k2,2 | cut -d' ' -f2
}

# klpc_glob_matches NAME GLOB: whether test NAME (AREA/NAME) matches one
# glob of a filter: a glob ending in / names a folder (consistency/); one
# with a / matches the whole name (build/*, core/basic-patch); one without
# matches the name within its folder too (*reverse*, stack-scan).
klpc_glob_matches() {
	case $2 in */) set -- "$1" "$2*" ;; esac
	# shellcheck disable=SC2254 # the glob is a pattern on purpose
	case $1 in $2) return 0 ;; esac
	case $2 in */*) return 1 ;; esac
	# shellcheck disable=SC2254 # the same
	case ${1##*/} in $2) return 0 ;; esac
	return 1
}

# klpc_selected NAME FILTER: whether FILTER (globs separated by commas or
# blanks; empty: every test) selects test NAME.
klpc_selected() {
	[ -n "$2" ] || return 0
	case $- in *f*) _noglob=1 ;; *) _noglob= ;; esac
	set -f
	_hit=1
	for _glob in $(printf '%s\n' "$2" | tr ',' ' '); do
		if klpc_glob_matches "$1" "$_glob"; then
			_hit=0
			break
		fi
	done
	[ -n "$_noglob" ] || set +f
	return $_hit
}
