#!/bin/sh
# Build the guest tests' patch modules with klpc build, from the diffs in
# tests/fixes/*.patch (those not named refuse-*: klp-build/check-build.sh
# tests those), into tests/fixes/out/klpc-build-NAME.ko, which the guest
# finds among the tree's modules. Run by make vm-test before the guest
# boots; the tests that load them are t-87-*.
# Skipped (with a line saying why) for a kernel klpc build cannot target:
# the debug kernel and headers that are not an installed Debian package.
# Env: KLPC_KDIR (kernel build tree), KLPC_FILTER (the run's test globs:
# nothing to build unless t-87 may run).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
OUT=$ROOT/tests/fixes/out

# wanted: the run's filter lets a t-87 test run
wanted() {
	[ -z "${KLPC_FILTER:-}" ] && return 0
	for t in "$ROOT"/tests/t-87-*.sh; do
		t=$(basename "$t" .sh)
		for glob in $(echo "$KLPC_FILTER" | tr ',' ' '); do
			# shellcheck disable=SC2254 # the glob is the filter's
			case $t in $glob) return 0 ;; esac
		done
	done
	return 1
}

# target_kver: the release of KLPC_KDIR's headers package, if it is one
target_kver() {
	kver=${KLPC_KDIR##*/linux-headers-}
	[ "$kver" != "$KLPC_KDIR" ] || return 1
	dpkg-query -W "linux-headers-$kver" >/dev/null 2>&1 || return 1
	echo "$kver"
}

main() {
	: "${KLPC_KDIR:?KLPC_KDIR not set}"
	wanted || return 0
	rm -rf "$OUT"
	if ! kver=$(target_kver); then
		msg "klpc build: $KLPC_KDIR is not an installed Debian headers package: t-87 tests will skip"
		return 0
	fi
	id=$("$ROOT/klp-convert/klpc-build-id" "$("$ROOT/vm/kernel.sh")")
	mkdir -p "$OUT"
	for fix in "$ROOT"/tests/fixes/*.patch; do
		name=$(basename "$fix" .patch)
		case $name in refuse-*) continue ;; esac
		msg "klpc build $name.patch"
		KLPC_SYMVERS=$ROOT/Module.symvers KLPC_VMLINUX_ID=$id \
			"$ROOT/cli/klpc" build -k "$kver" -n "klpc-build-$name" \
			-o "$OUT/klpc-build-$name.ko" "$fix" ||
			die "klpc build failed on tests/fixes/$name.patch"
	done
}

main "$@"
