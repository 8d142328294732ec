#!/bin/sh
# Convert the in-tree modules that need klpc-convert, after kbuild linked
# them: each directory built by Kbuild may hold a klpc-convert.list, lines
# of "MODULE [klpc-convert options]" (# starts a comment), e.g.
#	klpc-sample-extern --replaces vmlinux:version_proc_show
# A module is converted in place when its .ko is newer than its stamp in
# build/convert/. Exports: the tree's Module.symvers (klpc.ko's, the test
# modules') and KDIR's; module objects: the .ko files of the module
# directories. The vmlinux
# build ID: KLPC_VMLINUX_ID if set, else KDIR/vmlinux (the debug kernel),
# else Debian's vmlinuz the guest boots (vm/kernel.sh, fetched once).
# Env: KLPC_KDIR (kernel build tree).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
TOOL=$ROOT/klp-convert/klpc-convert
STAMPS=$ROOT/build/convert

# vmlinux_args: how the record gets vmlinux's build ID.
vmlinux_args() {
	if [ -n "${KLPC_VMLINUX_ID:-}" ]; then
		echo "--vmlinux-id $KLPC_VMLINUX_ID"
	elif [ -f "$KLPC_KDIR/vmlinux" ] &&
		readelf -SW "$KLPC_KDIR/vmlinux" | grep -q ' \.text '; then
		# a whole vmlinux (the debug kernel's), not the BTF-only
		# one that 6.12's headers package ships
		echo "--vmlinux $KLPC_KDIR/vmlinux"
	else
		id=$("$ROOT/klp-convert/klpc-build-id" "$("$ROOT/vm/kernel.sh")") ||
			die "no build ID for the guest's kernel: set KLPC_VMLINUX_ID"
		echo "--vmlinux-id $id"
	fi
}

# convert_one KO ARGS...: convert KO unless its stamp is newer.
# A module listed as ?MODULE needs symbols of Debian's configuration
# (klpc-sample-dup: KSM's and khugepaged's): where the kernel's symbol
# table (the debug kernel's vmlinux) lacks one, the module is removed
# rather than shipped unconverted, and its test skips saying so.
convert_one() {
	ko=$1
	optional=$2
	shift 2
	stamp=$STAMPS/$(echo "${ko#"$ROOT"/}" | tr / _).stamp
	[ -f "$ko" ] || die "$ko: listed in klpc-convert.list, not built"
	[ -n "$(find "$stamp" -newer "$ko" 2>/dev/null)" ] && return 0
	[ -n "$VMLINUX_ARGS" ] || VMLINUX_ARGS=$(vmlinux_args) || exit 1
	echo "  KLPC-CONVERT ${ko#"$ROOT"/}"
	# shellcheck disable=SC2086 # options are words
	if ! out=$("$TOOL" -s "$KLPC_KDIR/Module.symvers" -s "$ROOT/Module.symvers" \
		$MODULE_DIRS $VMLINUX_ARGS "$@" "$ko" 2>&1); then
		if [ "$optional" = 1 ] && echo "$out" | grep -q ': not in vmlinux'; then
			msg "${ko#"$ROOT"/} left out: this kernel lacks what it patches ($out)"
			rm -f "$ko"
			return 0
		fi
		die "$out"
	fi
	mkdir -p "$STAMPS"
	touch "$stamp"
}

# check_unlisted: kbuild's modpost only warns of undefined symbols
# (Makefile: KBUILD_MODPOST_WARN=1, for the listed modules, which call
# unexported functions by name and are checked by klpc-convert): any other
# module must need exported symbols only, as modpost would have insisted.
check_unlisted() {
	exports=$(mktemp)
	cat "$KLPC_KDIR/Module.symvers" "$ROOT/Module.symvers" | cut -f 2 | sort -u >"$exports"
	bad=0
	for ko in "$ROOT"/*.ko "$ROOT"/sample-patches/*.ko "$ROOT"/tests/modules/*.ko \
		"$ROOT"/bench/modules/*.ko; do
		[ -f "$ko" ] || continue
		mod=$(basename "$ko" .ko)
		grep -qs "^?\{0,1\}$mod\( \|\$\)" "$(dirname "$ko")/klpc-convert.list" && continue
		for sym in $(nm -u "$ko" | awk '{ print $2 }' | sort -u | comm -23 - "$exports"); do
			echo "${ko#"$ROOT"/}: undefined symbol $sym (not exported, and the module is in no klpc-convert.list)" >&2
			bad=1
		done
	done
	rm -f "$exports"
	[ "$bad" -eq 0 ] || die "modules need unexported symbols"
}

main() {
	: "${KLPC_KDIR:?KLPC_KDIR not set}"
	VMLINUX_ARGS=
	MODULE_DIRS=
	for d in sample-patches tests/modules bench/modules; do
		[ ! -d "$ROOT/$d" ] || MODULE_DIRS="$MODULE_DIRS --module-dir $ROOT/$d"
	done
	for list in "$ROOT"/*/klpc-convert.list "$ROOT"/*/*/klpc-convert.list; do
		[ -f "$list" ] || continue
		dir=$(dirname "$list")
		sed 's/#.*//' "$list" | while read -r mod args; do
			[ -n "$mod" ] || continue
			optional=0
			case $mod in \?*) optional=1 mod=${mod#?} ;; esac
			# shellcheck disable=SC2086 # options are words
			convert_one "$dir/$mod.ko" "$optional" $args
		done
	done
	check_unlisted
}

main "$@"
