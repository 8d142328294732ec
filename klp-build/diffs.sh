# shellcheck shell=sh
# klpc build, step 2: the diffs as they are published, made one.
#
# klpc build takes one diff or several, in order, or a quilt series file
# naming them: git format-patch mails (headers, a --- stat, index lines,
# new files, renames, mode changes), git diff and diff -u output.  They
# are applied one after the other, exactly (--fuzz N allows fuzz, with a
# warning), to a stage that holds only the files they touch; then each
# file whose text changed is judged:
#   - a file no kernel unit is built from (Documentation/, tools/,
#     LICENSES/, MAINTAINERS, CREDITS, README, *.rst, *.txt, *.yaml): skipped,
#     one line naming it;
#   - a .c or .h file: the fix; a .c the diffs add is refused (a new unit
#     would need a Makefile change, and its functions a caller that a
#     patch cannot give it: put them in the file that calls them), and so
#     is a file they remove;
#   - anything else (.S, Kconfig, Makefile, Kbuild, a linker script, a
#     script): refused, naming the file.
# The C files' changes, taken together, are the one diff WORK/fix.patch
# that the later steps read.  CVE ids in the mails become --cve labels.
#
# Sourced by klp-build/klpc-build; uses SRC_TREE, TGT_* and WORK.

# diff_paths FIX: the paths FIX touches (a/ and b/ names, renames and
# copies), the first component of each dropped as patch -p1 does
diff_paths() {
	sed -n -e 's/^+++ [^/[:space:]]*\/\([^[:space:]]*\).*$/\1/p' \
		-e 's/^--- [^/[:space:]]*\/\([^[:space:]]*\).*$/\1/p' \
		-e 's/^\(rename\|copy\) \(from\|to\) \(.*\)$/\3/p' "$1" |
		grep -v '^dev/null$' | sort -u
}

# series_diffs SERIES: the diffs a quilt series file names, in order,
# one path a line (its comments and patch options dropped)
series_diffs() {
	_dir=$(dirname "$1")
	sed 's/#.*//' "$1" | awk 'NF { print $1 }' | while read -r _p; do
		echo "$_dir/$_p"
	done
}

# is_series FILE: FILE is a quilt series file: not a diff, and each of
# its lines names an existing file beside it
is_series() {
	! grep -q -e '^+++ ' -e '^--- ' "$1" || return 1
	_n=0
	for _p in $(series_diffs "$1"); do
		[ -f "$_p" ] || return 1
		_n=$((_n + 1))
	done
	[ "$_n" -gt 0 ]
}

# expand_diffs FILE...: the diffs, series files replaced by what they name
expand_diffs() {
	for _f in "$@"; do
		if is_series "$_f"; then
			series_diffs "$_f"
		else
			echo "$_f"
		fi
	done
}

# file_kind PATH: skip (no kernel unit is built from it: a selftest's .c
# under tools/ is not the kernel's), c (the fix) or other (refused)
file_kind() {
	case $1 in
	Documentation/* | tools/* | LICENSES/* | MAINTAINERS | CREDITS | README* | \
		*.rst | *.txt | *.yaml) echo skip ;;
	*.c | *.h) echo c ;;
	*) echo other ;;
	esac
}

# stage_diffs FIX...: WORK/stage, the files the diffs touch as the
# prepared tree has them, with the diffs applied in order
stage_diffs() {
	mkdir -p "$WORK/stage"
	for _fix in "$@"; do
		grep -q '^GIT binary patch' "$_fix" &&
			fail "$_fix: a binary patch cannot be live-patched"
		[ -n "$(diff_paths "$_fix")" ] ||
			fail "$_fix: not a unified diff (no '+++' lines)"
		for _f in $(diff_paths "$_fix"); do
			[ ! -f "$SRC_TREE/$_f" ] || [ -e "$WORK/stage/$_f" ] ||
				{ mkdir -p "$WORK/stage/$(dirname "$_f")" &&
					cp "$SRC_TREE/$_f" "$WORK/stage/$_f"; }
		done
	done
	_prev=
	for _fix in "$@"; do
		_out=$(patch -p1 -d "$WORK/stage" -f --no-backup-if-mismatch \
			--fuzz="$OPT_FUZZ" <"$_fix" 2>&1) ||
			fail "$_fix does not apply to the source of $TGT_KVER${_prev:+ after $_prev}: $(echo "$_out" | grep -v '^\(checking\|patching\)' | head -n 3 | paste -sd' ' -)"
		if echo "$_out" | grep -q 'with fuzz'; then
			progress "warning: $(basename "$_fix") applied with fuzz (--fuzz $OPT_FUZZ): $(echo "$_out" | grep 'with fuzz' | head -n 2 | paste -sd' ')"
		fi
		_prev=$(basename "$_fix")
	done
}

# judge_file PATH: PATH's part of the fix, added to WORK/fix.patch, or a
# refusal, or a line saying it is skipped
judge_file() {
	if [ -f "$SRC_TREE/$1" ] && [ -f "$WORK/stage/$1" ] &&
		cmp -s "$SRC_TREE/$1" "$WORK/stage/$1"; then
		return 0
	fi
	case $(file_kind "$1") in
	skip)
		progress "skipping $1: no kernel unit is built from it"
		return 0 ;;
	other)
		fail "$FIX_LABEL changes $1: only C sources and headers can be live-patched" ;;
	esac
	[ -f "$WORK/stage/$1" ] ||
		fail "$FIX_LABEL removes $1: a live patch cannot take a file away"
	case $1 in *.c)
		[ -f "$SRC_TREE/$1" ] ||
			fail "$FIX_LABEL adds $1: a new unit cannot be live-patched (its functions belong in the file that calls them)" ;;
	esac
	_old=$SRC_TREE/$1
	[ -f "$_old" ] || _old=/dev/null
	diff -u --label "a/$1" --label "b/$1" "$_old" "$WORK/stage/$1" \
		>>"$WORK/fix.patch" || true
}

# diff_cves FIX...: the CVE ids the diffs' mails name (before the first
# file of each), one a line
diff_cves() {
	for _fix in "$@"; do
		sed '/^\(diff --git\|--- \|Index: \)/q' "$_fix" |
			grep -oE 'CVE-[0-9]{4}-[0-9]{4,}' || true
	done | awk '!seen[$0]++'
}

# combine_diffs FIX...: WORK/fix.patch, the one diff of C files that the
# later steps read; FIX_LABEL names the diffs in messages; the mails'
# CVE ids join OPT_CVES
combine_diffs() {
	stage_diffs "$@"
	: >"$WORK/fix.patch"
	for _fix in "$@"; do
		diff_paths "$_fix"
	done | sort -u >"$WORK/touched"
	while read -r _f; do
		judge_file "$_f"
	done <"$WORK/touched"
	for _c in $(diff_cves "$@"); do
		case " $OPT_CVES " in *" $_c "*) ;; *) OPT_CVES="$OPT_CVES $_c" ;; esac
	done
	[ -s "$WORK/fix.patch" ] ||
		fail "$FIX_LABEL changes no C source or header: nothing to patch"
}
