#!/bin/sh
# Build (once) the guest's base root: a Debian minbase of the target's suite
# (T_SUITE, tools/targets.sh: bookworm, trixie) made by debootstrap, packed
# as a gzip newc cpio in KLPC_CACHE/base/<suite>/, and print its path.
# It is rebuilt only when missing or when vm/packages or this script change.
# Env: KLPC_CACHE (default /var/cache/klpc), KLPC_MIRROR (Debian mirror),
# KLPC_TARGET.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib.sh
. "$HERE/../tools/lib.sh"
# shellcheck source=tools/targets.sh
. "$HERE/../tools/targets.sh"

target_load
SUITE=$T_SUITE
MIRROR=${KLPC_MIRROR:-http://deb.debian.org/debian}
BASE=$KLPC_CACHE/base/$SUITE/base.cpio.gz
STAMP=$KLPC_CACHE/base/$SUITE/base.stamp

package_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HERE/packages" | grep -v '^$' |
		paste -sd, -
}

base_hash() {
	{
		package_list
		echo "$SUITE $MIRROR"
		cat "$HERE/base.sh"
	} | sha256sum | cut -d' ' -f1
}

is_current() {
	[ -s "$BASE" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$1" ]
}

# trim ROOT: drop what a test guest never reads, to boot faster.
trim() {
	rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/info/* \
		"$1"/usr/share/locale/* "$1"/usr/share/lintian \
		"$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* \
		"$1"/var/cache/debconf/*-old "$1"/var/log/*
	[ -e "$1/dev/console" ] || mknod -m 600 "$1/dev/console" c 5 1
	[ -e "$1/dev/null" ] || mknod -m 666 "$1/dev/null" c 1 3
	echo klpc-guest >"$1/etc/hostname"
}

pack() {
	msg "packing $(du -sh "$1" | cut -f1) root into $BASE"
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --quiet | gzip -6) >"$BASE.tmp"
	mv "$BASE.tmp" "$BASE"
	msg "base image: $(du -h "$BASE" | cut -f1)"
}

build() {
	hash=$1
	is_root || die "building the guest root needs root (debootstrap)"
	root=$KLPC_CACHE/base/$SUITE/root
	rm -rf "$root"
	mkdir -p "$root"
	msg "debootstrap $SUITE minbase (+$(package_list)) into $root"
	start=$(date +%s)
	debootstrap --variant=minbase --include="$(package_list)" \
		"$SUITE" "$root" "$MIRROR" >&2
	msg "debootstrap took $(($(date +%s) - start)) s"
	trim "$root"
	pack "$root"
	rm -rf "$root"
	echo "$hash" >"$STAMP"
}

main() {
	hash=$(base_hash)
	if ! is_current "$hash"; then
		take_lock "base-$SUITE"
		is_current "$hash" || build "$hash"
	fi
	printf '%s\n' "$BASE"
}

main "$@"
