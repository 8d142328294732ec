# shellcheck shell=sh
# Helpers for the shadow variable tests (tests/shadow/), sourced after lib.sh.

# module_log MOD: the kernel log lines of module MOD (its pr_fmt prefix
# "mod_name: ") since the last dmesg_mark, without timestamp and prefix.
module_log() {
	_prefix="$(modname "$1"): "
	dmesg_since_mark | sed 's/^\[[^]]*\] *//' |
		awk -v p="$_prefix" 'index($0, p) == 1 { print substr($0, length(p) + 1) }'
}

# klpc_shadow_lines: klpc's own lines since the mark that report shadow variable
# problems (at unload, or for a bad call).
klpc_shadow_lines() {
	dmesg_since_mark | sed 's/^\[[^]]*\] *//' | grep -E '^klpc: .*shadow variable' || true
}

# count_lines TEXT: how many lines TEXT has (0 for empty).
count_lines() {
	if [ -z "$1" ]; then
		echo 0
	else
		printf '%s\n' "$1" | wc -l | tr -d ' '
	fi
}

# result_field LINE NAME: the value of NAME=value in LINE.
result_field() {
	_v=${1##*" $2="}
	[ "$_v" != "$1" ] || die "no '$2=' in '$1'"
	echo "${_v%% *}"
}

# assert_same_text EXPECTED ACTUAL WHAT: line by line, with a diff on failure.
assert_same_text() {
	[ "$1" = "$2" ] && return 0
	printf '%s\n' "$1" >"$KLPC_TMP/expected"
	printf '%s\n' "$2" >"$KLPC_TMP/actual"
	diff -u "$KLPC_TMP/expected" "$KLPC_TMP/actual" >&2 || true
	die "$3 differs from what was expected"
}
