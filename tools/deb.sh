#!/bin/sh
# make deb: build klpc-dkms and klpc-tools with Debian's tooling
# (dpkg-buildpackage, debhelper, dh-dkms), outside git: the sources the
# packages need are staged in build/deb/klpc-<version>/ with
# packaging/debian as debian/, and the .debs land in build/deb/.
# Prints the paths of the two .debs (klpc-tools is architecture-specific:
# it ships klpc-convert).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

OUT=$ROOT/build/deb
# what the packages are made of (see packaging/debian/rules)
PARTS="Makefile Kbuild LICENSE README.md klp-core kelf klp-convert klp-build include cli packaging"

version() {
	dpkg-parsechangelog -l "$ROOT/packaging/debian/changelog" -SVersion
}

# stage DIR: the parts without build outputs, and debian/.
stage() {
	rm -rf "$1"
	mkdir -p "$1"
	for p in $PARTS; do
		[ -e "$ROOT/$p" ] || die "$p missing from the tree"
	done
	# shellcheck disable=SC2086 # a list of paths without blanks
	tar -C "$ROOT" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude=klp-convert/klpc-convert --exclude=klp-build/compare/klpc-compare \
		--exclude=klp-build/emit/klpc-emit --exclude=klp-build/image/klpc-kallsyms $PARTS |
		tar -C "$1" -xf -
	cp -a "$ROOT/packaging/debian" "$1/debian"
}

main() {
	ver=$(version)
	src=$OUT/klpc-$ver
	rm -f "$OUT"/klpc-*.deb "$OUT"/klpc_*.buildinfo "$OUT"/klpc_*.changes
	stage "$src"
	msg "dpkg-buildpackage in $src"
	(cd "$src" && dpkg-buildpackage -b -us -uc >"$OUT/build.log" 2>&1) || {
		tail -n 30 "$OUT/build.log" >&2
		die "dpkg-buildpackage failed (log: $OUT/build.log)"
	}
	# klpc-tools carries klpc-convert: built for this machine's architecture
	arch=$(dpkg --print-architecture)
	for p in klpc-dkms:all klpc-tools:$arch; do
		deb=$OUT/${p%:*}_${ver}_${p#*:}.deb
		[ -s "$deb" ] || die "$deb was not built (log: $OUT/build.log)"
		printf '%s\n' "$deb"
	done
}

main "$@"
