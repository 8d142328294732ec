#!/bin/sh
# Build the guest tests' patch modules with klpc build, from the diffs in
# tests/fixes/*.patch (those not named refuse-*: klp-build/check-build.sh
# tests those) and *.series (quilt series: one module of several diffs),
# into tests/fixes/out/klpc-build-NAME.ko, which the guest
# finds among the tree's modules; and kpatch's diffs (tests/kpatch/) into
# klpc-kpatch-NAME.ko or a refusal, with the target modules they patch. Run by make vm-test before the guest
# boots; the tests that load them are tests/build/*.
# Skipped (with a line saying why) for a kernel klpc build cannot target:
# the debug kernel and headers that are not an installed Debian package.
# Env: KLPC_KDIR (kernel build tree), KLPC_FILTER (the run's test globs:
# nothing to build unless a test of tests/build/ may run).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
OUT=$ROOT/tests/fixes/out

# target_kver: the release of KLPC_KDIR's headers package, if it is one
target_kver() {
	kver=${KLPC_KDIR##*/linux-headers-}
	[ "$kver" != "$KLPC_KDIR" ] || return 1
	dpkg-query -W "linux-headers-$kver" >/dev/null 2>&1 || return 1
	echo "$kver"
}

# fix_target FIX: the target (make TARGET=) FIX is for: its X-Klpc-Target
# line, else bookworm (a later stable fix is for an older kernel build)
fix_target() {
	t=$(sed -n 's/^X-Klpc-Target: //p' "$1")
	echo "${t:-bookworm}"
}

# build KVER NAME FIX [LOG]: klpc build FIX into OUT/NAME.ko (what it
# prints into LOG, if given)
build() {
	if [ $# -gt 3 ]; then
		build "$1" "$2" "$3" >"$4" 2>&1
		return
	fi
	KLPC_SYMVERS=$ROOT/Module.symvers KLPC_VMLINUX_ID=$id \
		"$ROOT/cli/klpc" build -k "$1" -n "$2" -o "$OUT/$2.ko" "$3"
}

# kpatch_lane KVER: the diffs named on stdin ("NAME WANT REGEX" lines of
# tests/kpatch/expect), one after the other; each outcome in
# OUT/kpatch/NAME.{built,refused,failed} with what klpc build printed and
# how long it took, for build/kpatch-diffs to judge.
kpatch_lane() {
	while read -r name want regex; do
		fix=$ROOT/tests/kpatch/amzn-2023/$name.patch
		log=$OUT/kpatch/$name.log
		msg "klpc build kpatch's $name.patch (expected: $want)"
		start=$(date +%s)
		if build "$1" "klpc-kpatch-$name" "$fix" "$log"; then
			outcome=built
		elif [ "$want" = refuse ] && grep -Eq "$regex" "$log"; then
			outcome=refused
		else
			outcome=failed
		fi
		echo "$(($(date +%s) - start)) s" >>"$log"
		mv "$log" "$OUT/kpatch/$name.$outcome"
	done
}

# kpatch_set KVER: kpatch's diffs (tests/kpatch/) as tests/kpatch/expect
# says, one lane per core (the guests wait for all of them)
kpatch_set() {
	mkdir -p "$OUT/kpatch"
	grep -v '^#' "$ROOT/tests/kpatch/expect" | in_lanes kpatch_lane "$1"
}

# target_modules: the target's modules the diffs patch, which the guest
# root lacks, into OUT/target; KLPC_MODULE_DIR names them for klpc build
target_modules() {
	mkdir -p "$OUT/target"
	for ko in $("$ROOT/vm/kernel.sh" --modules crc32c_generic libcrc32c xfs joydev pcspkr); do
		cp "$ko" "$OUT/target/"
	done
	KLPC_MODULE_DIR=$OUT/target
	export KLPC_MODULE_DIR
}

main() {
	: "${KLPC_KDIR:?KLPC_KDIR not set}"
	filter_wants "$ROOT/tests" "build/*" || return 0
	rm -rf "$OUT"
	if ! kver=$(target_kver); then
		msg "klpc build: $KLPC_KDIR is not an installed Debian headers package: the tests of tests/build/ will skip"
		return 0
	fi
	id=$("$ROOT/klp-convert/klpc-build-id" "$("$ROOT/vm/kernel.sh")")
	# sympos of the names vmlinux has several of: the guest kernel's own
	KLPC_KALLSYMS=$("$ROOT/vm/kallsyms.sh")
	export KLPC_KALLSYMS
	mkdir -p "$OUT"
	# a .series file (quilt's: diffs in order) makes one module of them
	for fix in "$ROOT"/tests/fixes/*.patch "$ROOT"/tests/fixes/*.series; do
		name=$(basename "$fix")
		name=${name%.*}
		case $name in refuse-*) continue ;; esac
		[ "$(fix_target "$fix")" = "${KLPC_TARGET:-bookworm}" ] || continue
		msg "klpc build $(basename "$fix")"
		build "$kver" "klpc-build-$name" "$fix" ||
			die "klpc build failed on tests/fixes/$(basename "$fix")"
	done
	[ "${KLPC_TARGET:-bookworm}" = bookworm ] || return 0
	target_modules
	kpatch_set "$kver"
}

main "$@"
