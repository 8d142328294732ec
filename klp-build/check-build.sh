#!/bin/sh
# Host tests of klpc build's refusals: each tests/fixes/refuse-*.patch
# names, in its X-Klpc-Expect: line, the message klpc build must refuse
# it with; it must exit 1 and leave no module behind. Also the refusals
# that come before any source is touched. Needs the target's headers
# package and linux-source (the source tree is prepared once into
# KLPC_CACHE, as for any build).
# Usage: klp-build/check-build.sh KVER
# Prints one line per case and "build: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/klp-build/klpc-build
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

# refused NAME STATUS PATTERN ARGS...: klpc build ARGS exits STATUS,
# says PATTERN, and leaves no module at its -o.
refused() {
	_name=$1 _want=$2 _pat=$3
	shift 3
	_out=$TMP/$_name.ko
	_st=0
	_msg=$("$BUILD" -o "$_out" "$@" 2>&1) || _st=$?
	if [ "$_st" != "$_want" ]; then
		case_result fail "$_name" "exit $_st, expected $_want: $(echo "$_msg" | tail -n 2)"
	elif ! echo "$_msg" | grep -q -- "$_pat"; then
		case_result fail "$_name" "'$(echo "$_msg" | tail -n 2)' does not say '$_pat'"
	elif [ -e "$_out" ]; then
		case_result fail "$_name" "a module was left at $_out"
	else
		case_result ok "$_name"
	fi
}

# prepared KVER: --prepare makes KVER's source ready and says where, with
# no diff and no module; SRC is where (the cases below look into it).
prepared() {
	_st=0
	_msg=$("$BUILD" --prepare -k "$1" 2>&1) || _st=$?
	SRC=$(echo "$_msg" | sed -n "s/^.*source for $1 ready: //p")
	if [ "$_st" != 0 ]; then
		case_result fail prepare "exit $_st: $(echo "$_msg" | tail -n 2)"
	elif ! echo "$_msg" | grep -q "source for $1 ready: "; then
		case_result fail prepare "'$(echo "$_msg" | tail -n 1)' does not say the source is ready"
	else
		case_result ok prepare
	fi
}

# kbuild_elsewhere KVER: a make that stops outside the units (as one did
# on the objtool files the scratch trees shared) fails the build with
# its reason, and marks no unit as not configured: the unit is compiled
# in the next build (other-build, after this, gets past the compile).
kbuild_elsewhere() {
	_units=${SRC%/src}/units/fs/proc/cmdline.o
	rm -f "$_units" "$_units.cmd" "$_units.none"
	mkdir -p "$TMP/mk"
	# (Kbuild's lists of a directory's objects are read as ever)
	printf '#!/bin/sh\n%s\n%s\nexit 2\n' \
		"case \" \$* \" in *' klpc-objs '*) exec $(command -v make) \"\$@\" ;; esac" \
		'echo "make: *** [Makefile:1497: tools/objtool] Error 2"' >"$TMP/mk/make"
	chmod +x "$TMP/mk/make"
	PATH="$TMP/mk:$PATH" refused kbuild-elsewhere 1 \
		'Kbuild failed in the scratch tree.*tools/objtool' \
		-k "$1" "$ROOT/tests/fixes/cmdline.patch"
	[ ! -e "$_units.none" ] ||
		case_result fail kbuild-elsewhere-mark "fs/proc/cmdline.o was marked as not configured"
}

# untouched KVER: the builds above compiled in scratch copies of the
# prepared tree, side by side; none of them wrote into the tree itself
# (its files are hard links in every copy: a write in place reaches the
# cache and every build after it)
untouched() {
	_stamp=${SRC%/src}/prepared
	if [ -z "$SRC" ] || [ ! -f "$_stamp" ]; then
		case_result fail untouched "no prepared tree for $1"
		return 0
	fi
	_new=$(find "$SRC" -newer "$_stamp" -type f | sed "s|^$SRC/||")
	if [ -n "$_new" ]; then
		case_result fail untouched "$(echo "$_new" | wc -l) file(s) of $SRC written since it was prepared: $(echo "$_new" | head -n 4 | paste -sd' ')"
	else
		case_result ok untouched
	fi
}

# built NAME WHY-PATTERN... -- ARGS...: klpc build ARGS (its -o is
# TMP/NAME.ko) succeeds; each check of its output or module is a
# "out:TEXT", "desc:TEXT", "cve:ID", "holds:TEXT" or "hook:TEXT" word
# before the --.
built() {
	_name=$1
	shift
	_checks=
	while [ "$1" != -- ]; do
		_checks="$_checks
$1"
		shift
	done
	shift
	_ko=$TMP/$_name.ko
	_st=0
	_msg=$("$BUILD" -o "$_ko" --keep "$@" 2>&1) || _st=$?
	_work=$(echo "$_msg" | sed -n 's/^klpc build: work directory kept: //p')
	if [ "$_st" != 0 ] || [ ! -f "$_ko" ]; then
		case_result fail "$_name" "exit $_st: $(echo "$_msg" | tail -n 2)"
		rm -rf "$_work"
		return 0
	fi
	_why=$(echo "$_checks" | while IFS= read -r _c; do
		_a=${_c#*:}
		case $_c in
		'') ;;
		out:*) echo "$_msg" | grep -qF -- "$_a" || echo "no '$_a' in its output" ;;
		desc:*) [ "$(modinfo -F klpc_desc "$_ko")" = "$_a" ] ||
			echo "its description is '$(modinfo -F klpc_desc "$_ko")'" ;;
		cve:*) modinfo -F klpc_cve "$_ko" | grep -qxF "$_a" ||
			echo "no klpc_cve $_a: '$(modinfo -F klpc_cve "$_ko" | paste -sd' ' -)'" ;;
		holds:*) strings "$_ko" | grep -qF -- "$_a" || echo "no '$_a' in the module" ;;
		hook:*) grep -qF -- "$_a" "$_work/module/klpc-hook.h" || echo "no '$_a' in its hook" ;;
		nohook:*) ! grep -qF -- "$_a" "$_work/module/klpc-hook.h" || echo "'$_a' in its hook" ;;
		esac
	done | paste -sd';' -)
	rm -rf "$_work"
	if [ -n "$_why" ]; then
		case_result fail "$_name" "$_why"
	else
		case_result ok "$_name"
	fi
}

# input_cases KVER: diffs as they are published (tests/fixes/input/): a
# git format-patch mail with a documentation hunk, a new selftest and a
# CVE id, a quilt
# series of two where the second needs the first, fuzz only when asked
# for, cumulative by default and --no-replace
input_cases() {
	_in=$ROOT/tests/fixes/input
	built mail "out:skipping Documentation/filesystems/proc.rst" \
		"out:skipping tools/testing/selftests/proc/klpc-cmdline.c" \
		"desc:proc: /proc/cmdline says a mail patched it" "cve:CVE-2026-10001" \
		"holds:klpc mail: " "hook:KLPC_HOOK_REPLACE true" -- -k "$1" "$_in/mail-cve.patch"
	built series "holds:klpc mail, then a follow-up: " \
		"desc:proc: /proc/cmdline says a mail patched it (and 1 more)" \
		-- -k "$1" "$_in/series-two/series"
	refused series-second-alone 1 '0002-follow-up.patch does not apply to the source of' \
		-k "$1" "$_in/series-two/0002-follow-up.patch"
	refused series-twice 1 '0001-mail.patch does not apply to the source of .* after 0001-mail.patch' \
		-k "$1" "$_in/series-two/0001-mail.patch" "$_in/series-two/0001-mail.patch"
	built fuzz "out:applied with fuzz" "holds:klpc build: " -- \
		-k "$1" --fuzz 1 "$_in/fuzz.patch"
	built no-replace "hook:KLPC_HOOK_REPLACE false" -- -k "$1" --no-replace "$ROOT/tests/fixes/cmdline.patch"
}

# from_image KVER: with neither KLPC_VMLINUX_ID nor KLPC_KALLSYMS (a build
# host's case), the build takes both from KVER's image (/boot's, else
# linux-image-KVER fetched into the cache): the record carries the
# image's build ID, and the symbols were read from it
from_image() {
	_ko=$TMP/from-image.ko
	_st=0
	_msg=$(env -u KLPC_VMLINUX_ID -u KLPC_KALLSYMS "$BUILD" -k "$1" -o "$_ko" \
		--verbose "$ROOT/tests/fixes/cmdline.patch" 2>&1) || _st=$?
	_img=/boot/vmlinuz-$1
	[ -f "$_img" ] || _img=$KLPC_CACHE/image/$1/vmlinuz
	if [ "$_st" != 0 ] || [ ! -f "$_ko" ]; then
		case_result fail from-image "exit $_st: $(echo "$_msg" | tail -n 2)"
	elif ! _want=$("$ROOT/klp-convert/klpc-build-id" "$_img"); then
		case_result fail from-image "no build ID in $_img"
	elif [ "$("$ROOT/klp-convert/klpc-convert" --show "$_ko" |
		sed -n 's/^build-id vmlinux //p')" != "$_want" ]; then
		case_result fail from-image "the record's build ID is not $_want, $_img's"
	elif ! echo "$_msg" | grep -q "symbols of $1"; then
		case_result fail from-image "the symbols were not read from $_img"
	else
		case_result ok "from-image: $_want, and the symbols, from $_img"
	fi
}

# refuse_lane KVER: the refuse-*.patch files named on stdin, each refused
# with the message its X-Klpc-Expect: line names (klpc build given the
# options of its X-Klpc-Args: line, if it has one)
refuse_lane() {
	while read -r fix; do
		# shellcheck disable=SC2046 # the options are words
		refused "$(basename "$fix" .patch)" 1 \
			"$(sed -n 's/^X-Klpc-Expect: //p' "$fix")" -k "$1" \
			$(sed -n 's/^X-Klpc-Args: //p' "$fix") "$fix"
	done
}

# callback_set KO KIND FN: KO's first klpc_object has FN as its KIND
# callback: the relocation at that field of klpc_objs (struct
# klpc_object: name, funcs, then struct klpc_callbacks' four pointers,
# pre_patch first) names FN or an alias at FN's place
callback_set() {
	case $2 in
	pre_patch) _off=16 ;;
	post_patch) _off=24 ;;
	pre_unpatch) _off=32 ;;
	post_unpatch) _off=40 ;;
	*) return 1 ;;
	esac
	_objs=$(readelf -sW "$1" | awk '$8 == "klpc_objs" { print $2 }')
	[ -n "$_objs" ] || return 1
	_to=$(readelf -rW "$1" | awk -v at="$(printf '%016x' $((0x$_objs + _off)))" '
		/^Relocation section/ { data = index($0, "'"'"'.rela.data'"'"'") > 0 }
		data && $1 == at { print $5 }')
	readelf -sW "$1" | awk -v a="$_to" -v f="$3" '
		$8 == a { got = $2 " " $7 } $8 == f { want = $2 " " $7 }
		END { exit !(a != "" && got != "" && got == want) }'
}

# series_cases: a kernel of a series klpc build is not tested on is
# refused by its version alone, before its headers are looked for and
# before anything is fetched or unpacked (issue 38): Debian 13's 6.12
# (issue 36), another series, and --prepare of one
series_cases() {
	refused series-6.12 1 'klpc build supports 6.1 (bookworm) kernels; 6.12 is not supported yet' \
		-k 6.12.57+deb13-amd64 "$ROOT/tests/fixes/cmdline.patch"
	refused series-5.10 1 'klpc build supports 6.1 (bookworm) kernels; 5.10 is not supported' \
		-k 5.10.0-30-amd64 "$ROOT/tests/fixes/cmdline.patch"
	refused prepare-series-6.12 1 '6.12 is not supported yet' --prepare -k 6.12.57+deb13-amd64
	[ ! -e "${KLPC_CACHE:-/var/cache/klpc}/build/6.12.57+deb13-amd64" ] ||
		case_result fail series-6.12-cache "a cache for 6.12.57+deb13-amd64 was made"
}

# kbuild_fallback KVER: a unit that needs a file Kbuild generates (the
# units of security/selinux need flask.h) does not compile with Kbuild's
# command in the farm; it is compiled by Kbuild, in a copy of the tree,
# and the module is made (its original object out of the unit cache, so
# that it is compiled); and again with its original object cached (the
# patched one needs Kbuild's generated file as much)
kbuild_fallback() {
	rm -f "${SRC%/src}/units/security/selinux/netif.o" \
		"${SRC%/src}/units/security/selinux/netif.o.cmd" \
		"${SRC%/src}/units/security/selinux/netif.o.kbuild"
	built kbuild-fallback "out:copying the prepared tree (for Kbuild)" \
		"out:changed function: sel_netif_sid" -- \
		-k "$1" "$ROOT/tests/fixes/kbuild-fallback.patch"
	built kbuild-fallback-cached "out:changed function: sel_netif_sid" -- \
		-k "$1" "$ROOT/tests/fixes/kbuild-fallback.patch"
}

# layout_cases KVER: the special sections' entry sizes klpc build probed
# from KVER's headers (klpc-emit's probe, compiled once per KVER) are
# 6.1's, and a build from the prepared tree does not probe again; a unit
# with kept alternatives (kvm's x86.o of refuse-module-key.patch, given as
# vmlinux's: its keys not checked) is refused, naming .altinstructions,
# when the layout does not give that size, and cut down when it does
layout_cases() {
	_layout=${KLPC_CACHE:-/var/cache/klpc}/build/$1/layout
	_want='__bug_table 12 __jump_table 16 .altinstructions 12 __ex_table 12 .static_call_sites 8 .parainstructions 16 .retpoline_sites 4 .return_sites 4 .smp_locks 4 __mcount_loc 8 .orc_unwind_ip 4 .orc_unwind 6'
	_got=$(sort "$_layout" 2>/dev/null | paste -sd' ' -)
	if [ "$_got" = "$(echo "$_want" | xargs -n 2 | sort | paste -sd' ' -)" ]; then
		case_result ok layout-probe
	else
		case_result fail layout-probe "$_layout says '$_got'"
	fi
	_before=$(ls -l --time-style=full-iso "$_layout")
	_msg=$("$BUILD" -k "$1" -o "$TMP/layout.ko" --keep \
		"$ROOT/tests/fixes/refuse-module-key.patch" 2>&1) || :
	_work=$(echo "$_msg" | sed -n 's/^klpc build: work directory kept: //p')
	[ "$(ls -l --time-style=full-iso "$_layout")" = "$_before" ] ||
		case_result fail layout-cached "the build probed $_layout again"
	grep -v '^\.altinstructions ' "$_layout" >"$TMP/layout.noalt"
	sed 's/^kvm /vmlinux /' "$_work/changes" >"$TMP/layout.changes"
	for _l in "$TMP/layout.noalt" "$_layout"; do
		rm -rf "$TMP/layout.d"
		mkdir "$TMP/layout.d"
		_st=0
		_out=$("$ROOT/klp-build/emit/klpc-emit" --layout "$_l" \
			"$_work/orig" "$_work/patched" "$TMP/layout.changes" \
			"$TMP/layout.d" 2>&1) || _st=$?
		echo "$_st $_out" | head -n 1
	done >"$TMP/layout.out"
	if ! head -n 1 "$TMP/layout.out" | grep -q '^1 .*x86.o: .altinstructions: the target.s size of its entries (struct alt_instr) is not known'; then
		case_result fail layout-refused "$(head -n 1 "$TMP/layout.out")"
	elif ! readelf -SW "$TMP/layout.d/u0.o_shipped" | grep -q ' \.altinstructions '; then
		case_result fail layout-refused "with .altinstructions: $(sed -n 2p "$TMP/layout.out")"
	else
		case_result ok layout-refused
	fi
	rm -rf "$_work"
}

main() {
	[ $# -eq 1 ] || { echo "usage: $0 KVER" >&2; exit 2; }
	TMP=$(mktemp -d)
	cases_start "$TMP/results"
	# the record's vmlinux build ID, for the diffs that get that far
	# (refusals come first; none of them needs the image)
	export KLPC_VMLINUX_ID="${KLPC_VMLINUX_ID:-0000000000000000000000000000000000000000}"
	trap 'rm -rf "$TMP"' EXIT
	refused usage 2 'usage\|klpc-build' -k "$1"
	refused no-headers 1 'no headers for 6.1.0-0-none' -k 6.1.0-0-none \
		"$ROOT/tests/fixes/cmdline.patch"
	refused no-diff 1 'no such file' -k "$1" "$TMP/none.patch"
	refused prepare-and-fix 2 'usage\|klpc-build' --prepare -k "$1" \
		"$ROOT/tests/fixes/cmdline.patch"
	refused prepare-no-headers 1 'no headers for 6.1.0-0-none' --prepare \
		-k 6.1.0-0-none
	prepared "$1"
	kbuild_elsewhere "$1"
	# another pahole than the one that built the target's module BTF
	mkdir "$TMP/bin"
	printf '#!/bin/sh\necho v1.99\n' >"$TMP/bin/pahole"
	chmod +x "$TMP/bin/pahole"
	PATH="$TMP/bin:$PATH" refused other-pahole 1 "but pahole is 'v1.99'" \
		-k "$1" "$ROOT/tests/fixes/cmdline.patch"
	# a symbol list of another build of the kernel: the replaced function
	# takes far more room there than it compiles to here
	printf '%s\n' 'ffffffff81000000 T _stext' \
		'ffffffff81200000 t cmdline_proc_show' \
		'ffffffff81201000 t proc_cmdline_init' >"$TMP/kallsyms"
	export KLPC_KALLSYMS="$TMP/kallsyms"
	refused other-build 1 'does not match' -k "$1" "$ROOT/tests/fixes/cmdline.patch"
	unset KLPC_KALLSYMS
	# each case is a build: one lane per core
	printf '%s\n' "$ROOT"/tests/fixes/refuse-*.patch | in_lanes refuse_lane "$1"
	input_cases "$1"
	from_image "$1"
	# the diffs that must build: each tests/fixes/*.patch with an
	# X-Klpc-Check: line, built as the guest's are (its kallsyms, when
	# dumped), the module checked for what the line names, ';' apart:
	# "defines SYM" (the module's own SYM, no .klp.sym reference to the
	# kernel's), "holds TEXT" (the diff's new string), "patches FUNC..."
	# (the functions replaced, all of them), "callback KIND FN" (FN is the
	# first object's KIND callback)
	_ks=${KLPC_CACHE:-/var/cache/klpc}/kernel/$1/kallsyms
	for _fix in "$ROOT"/tests/fixes/*.patch; do
		_check=$(sed -n 's/^X-Klpc-Check: //p' "$_fix")
		[ -n "$_check" ] || continue
		_name=$(basename "$_fix" .patch)
		_ko=$TMP/$_name.ko
		_st=0
		if [ -s "$_ks" ]; then
			_msg=$(KLPC_KALLSYMS=$_ks "$BUILD" -k "$1" -o "$_ko" --verbose "$_fix" 2>&1) || _st=$?
		else
			_msg=$("$BUILD" -k "$1" -o "$_ko" --verbose "$_fix" 2>&1) || _st=$?
		fi
		if [ "$_st" != 0 ] || [ ! -f "$_ko" ]; then
			case_result fail "$_name" "exit $_st: $(echo "$_msg" | tail -n 2)"
			continue
		fi
		_why=
		_ifs=$IFS
		IFS=';'
		for _c in $_check; do
			IFS=$_ifs
			_c=$(echo "$_c" | sed 's/^ *//; s/ *$//')
			_arg=${_c#* }
			case $_c in
			defines\ *)
				nm --defined-only "$_ko" | awk '{ print $3 }' | grep -qxF "$_arg" ||
					_why="$_why; $_arg is not defined: $(nm "$_ko" | grep -F "$_arg" | sed 's/^ *//' | paste -sd, -)"
				! nm "$_ko" | grep -qF ".klp.sym.vmlinux.$_arg," ||
					_why="$_why; the kernel's $_arg is used" ;;
			holds\ *)
				strings "$_ko" | grep -qF "$_arg" || _why="$_why; no '$_arg' in the module" ;;
			patches\ *)
				_got=$(echo "$_msg" | sed -n 's/^klpc build: changed function: \([^ ]*\) .*/\1/p' | sort | paste -sd' ' -)
				[ "$_got" = "$(echo "$_arg" | tr ' ' '\n' | sort | paste -sd' ' -)" ] ||
					_why="$_why; patches '$_got', not '$_arg'" ;;
			callback\ *)
				# shellcheck disable=SC2086 # KIND FN
				callback_set "$_ko" $_arg || _why="$_why; no $_arg callback" ;;
			*) _why="$_why; unknown check '$_c'" ;;
			esac
		done
		IFS=$_ifs
		if [ -n "$_why" ]; then
			case_result fail "$_name" "${_why#; }"
		else
			case_result ok "$_name"
		fi
	done
	series_cases
	kbuild_fallback "$1"
	layout_cases "$1"
	untouched "$1"
	cases_summary build
}

main "$@"
