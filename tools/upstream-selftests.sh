#!/bin/sh
# Upstream's livepatch selftests for the guest's test
# parity/upstream-selftests-replayed: the test modules of the target's
# kernel series, unchanged, built against klpc through klpc-compat.h, and
# the selftest scripts, both from Debian's linux-source-<series>
# tarball, into build/upstream/selftests/ (the guest's /klpc/upstream/:
# the scripts, test_modules/*.ko).
#   6.1:  lib/livepatch/test_klp_*.c, tools/testing/selftests/livepatch/
#   6.12: tools/testing/selftests/livepatch/{,test_modules/}
# The modules include <linux/livepatch.h> as written: a shim of that name,
# searched before the kernel's headers (NOSTDINC_FLAGS, as backports
# does), includes klpc-compat.h instead.
# Run by make vm-test before the guest boots (Debian's kernels only: the
# debug kernel has no built-in livepatch sysfs for that test to mount over).
# Env: KLPC_KDIR (kernel build tree), KLPC_FILTER (the run's test globs:
# nothing to do unless that test may run), KBUILD_RUN (the build root's
# prefix, tools/buildroot.sh wrapper; empty on the host), MAKE.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
OUT=$ROOT/build/upstream
KLPC_CACHE=${KLPC_CACHE:-/var/cache/klpc}

# series KDIR: "6.1", "6.12" (the tree's kernel.release, whose first two
# numbers Debian keeps)
series() {
	sed -n 's/^\([0-9]*\.[0-9]*\)[.+-].*$/\1/p' "$1/include/config/kernel.release"
}

# unpack SERIES: the tarball's livepatch selftests and test modules into
# the cache once per source version; prints the directory
unpack() {
	pkg=linux-source-$1
	ensure_pkgs "$pkg" xz-utils
	ver=$(dpkg-query -W -f='${Version}' "$pkg")
	dir=$KLPC_CACHE/upstream/$pkg-$ver
	if [ ! -f "$dir/done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		msg "upstream selftests: unpacking $pkg $ver"
		tar -xJf "/usr/src/$pkg.tar.xz" -C "$dir" --strip-components=1 \
			--wildcards "$pkg/tools/testing/selftests/livepatch/*" \
			"$pkg/lib/livepatch/*" 2>/dev/null ||
			tar -xJf "/usr/src/$pkg.tar.xz" -C "$dir" --strip-components=1 \
				--wildcards "$pkg/tools/testing/selftests/livepatch/*"
		touch "$dir/done"
	fi
	echo "$dir"
}

# sources DIR: the test modules' C files (where the series keeps them)
sources() {
	if [ -d "$1/tools/testing/selftests/livepatch/test_modules" ]; then
		ls "$1"/tools/testing/selftests/livepatch/test_modules/test_klp_*.c
	else
		ls "$1"/lib/livepatch/test_klp_*.c
	fi
}

# build DIR: the modules, unchanged, against klpc's exported symbols
build() {
	mod=$OUT/mod
	mkdir -p "$mod" "$OUT/shim/linux" "$OUT/selftests/test_modules"
	# shellcheck disable=SC2046 # a list of files
	cp $(sources "$1") "$mod/"
	echo "#include <klpc-compat.h>" >"$OUT/shim/linux/livepatch.h"
	{
		echo "# upstream's livepatch test modules, built against klpc"
		echo "NOSTDINC_FLAGS += -I$OUT/shim -I$ROOT/include"
		for c in "$mod"/*.c; do
			c=${c##*/}
			echo "obj-m += ${c%.c}.o"
		done
	} >"$mod/Kbuild"
	# shellcheck disable=SC2086 # KBUILD_RUN is a command prefix
	${KBUILD_RUN:-} "${MAKE:-make}" -s -C "$KLPC_KDIR" M="$mod" \
		KBUILD_EXTRA_SYMBOLS="$ROOT/Module.symvers" modules \
		>"$OUT/build.log" 2>&1 ||
		die "upstream's livepatch test modules did not build: $OUT/build.log"
	cp "$mod"/*.ko "$OUT/selftests/test_modules/"
	cp "$1"/tools/testing/selftests/livepatch/*.sh "$OUT/selftests/"
	# test-syscall.sh's getpid() hammer (6.12), a plain user program
	for c in "$1"/tools/testing/selftests/livepatch/*.c; do
		[ -f "$c" ] || continue
		b=${c##*/}
		"${CC:-gcc}" -O2 -Wall -o "$OUT/selftests/${b%.c}" "$c" ||
			die "cannot build $c"
	done
}

# main [--unpack]: build (--unpack: only fetch and unpack the sources into
# the cache, tools/prefetch.sh; the tree is not touched)
main() {
	if [ "${1:-}" != --unpack ]; then
		rm -rf "$OUT"
		filter_wants "$ROOT/tests" parity/upstream-selftests-replayed || return 0
	fi
	s=$(series "$KLPC_KDIR")
	[ -n "$s" ] || die "cannot read the kernel series of $KLPC_KDIR"
	src=$(unpack "$s")
	[ "${1:-}" != --unpack ] || return 0
	build "$src"
	echo "$s" >"$OUT/selftests/series"
	msg "upstream selftests: $(find "$OUT/selftests/test_modules" -name '*.ko' | wc -l)" \
		"test modules of $s built against klpc, $(find "$OUT/selftests" -maxdepth 1 -name 'test-*.sh' | wc -l) scripts"
}

main "$@"
