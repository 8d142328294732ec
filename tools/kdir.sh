#!/bin/sh
# Print the kernel build directory of the target kernel (KLPC_TARGET, make
# TARGET=; tools/targets.sh). As root, what is missing is fetched: the
# installed metapackage's headers with apt-get install, a 'newest:' target's
# headers with apt-get download into KLPC_CACHE/headers/<release>/; a
# target with a build root (T_BUILDROOT) has its headers there, installed
# by the root's apt when tools/buildroot.sh made it.
# The headers' compiler must be the target's (CONFIG_CC_VERSION_TEXT).
# --no-install: print nothing (exit 1) instead of fetching.
set -eu
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/targets.sh
. "$(dirname "$0")/targets.sh"

# newest_kver REGEX: the release of the newest headers package apt knows
# whose name matches, e.g. 6.12.118+deb12-amd64.
newest_kver() {
	apt-cache pkgnames linux-headers- 2>/dev/null | grep -E -- "$1" |
		sort -V | tail -n 1 | sed 's/^linux-headers-//'
}

# fetch_debs DIR PKG...: apt-get download the packages into DIR.
fetch_debs() {
	_dir=$1
	shift
	# apt drops privileges to _apt for downloads: give it the directory.
	chown _apt "$_dir" 2>/dev/null || true
	(cd "$_dir" && apt-get download -q "$@" >&2) ||
		die "cannot download $*"
}

# unpack_headers KVER DIR: linux-headers-KVER and the -common and kbuild
# packages it depends on, unpacked into DIR (a root: DIR/usr/src/...,
# DIR/usr/lib/linux-kbuild-...). The relative links between them hold;
# the one absolute path, the Makefile's include of the -common tree, is
# made to point into DIR.
unpack_headers() {
	kver=$1 dir=$2
	take_lock headers
	[ -f "$dir/usr/src/linux-headers-$kver/Makefile" ] && return 0
	msg "downloading Debian's linux-headers-$kver (unpacked, not installed)"
	mkdir -p "$KLPC_CACHE/headers"
	tmp=$(mktemp -d "$KLPC_CACHE/headers/.fetch.XXXXXX")
	fetch_debs "$tmp" "linux-headers-$kver"
	deb=$(ls "$tmp"/linux-headers-*.deb)
	deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' |
		sed -n 's/^ *\(linux-headers-[^ ]*-common\|linux-kbuild-[^ ]*\).*/\1/p')
	[ -n "$deps" ] || die "$deb depends on no -common or kbuild package"
	# shellcheck disable=SC2086 # a list of package names
	fetch_debs "$tmp" $deps
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$tmp/root"
	done
	dpkg-deb -f "$tmp"/linux-headers-"$kver"_*.deb Version >"$tmp/root/version"
	sed -i "s#^include /usr/src/#include $dir/usr/src/#" \
		"$tmp/root/usr/src/linux-headers-$kver/Makefile"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	rm -rf "$tmp"
}

# buildroot_kdir [--no-install]: the headers tree in the target's build
# root (made first unless --no-install), by its host path, which is also
# valid inside the root (tools/buildroot.sh).
buildroot_kdir() {
	if [ "${1:-}" = --no-install ]; then
		root=$("$(dirname "$0")/buildroot.sh" path --no-make) || exit 1
	else
		root=$("$(dirname "$0")/buildroot.sh" path)
	fi
	kver=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Depends}' \
		"${T_HEADERS#meta:}" 2>/dev/null | tr ',' '\n' |
		sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1)
	[ -n "$kver" ] || die "${T_HEADERS#meta:} names no linux-headers-<version> in $root"
	kdir=$root/usr/src/linux-headers-$kver
	[ -f "$kdir/Makefile" ] || die "$kdir missing in the $T_BUILDROOT build root"
	echo "$kdir"
}

# cc_version: the first line of T_CC --version, on the host (installed if
# missing) or in the build root.
cc_version() {
	if [ -n "$T_BUILDROOT" ]; then
		"$(dirname "$0")/buildroot.sh" run "$T_CC" --version | head -n 1
		return
	fi
	command -v "$T_CC" >/dev/null || ensure_pkgs "$T_CC"
	"$T_CC" --version | head -n 1
}

# check_cc KDIR: the kernel was built with the target's compiler, the
# version the host (or the build root) has (modules built by another
# compiler may not load, or break subtly: plugins, flags, structure layout
# with randstruct).
check_cc() {
	built=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1/.config")
	host=$(cc_version)
	case $built in
	*"$T_CC "*) ;;
	*) die "$1 was built with '$built', not $T_CC: TARGET=$KLPC_TARGET cannot be built here" ;;
	esac
	[ "${built##* }" = "${host##* }" ] ||
		die "$1 was built with '$built', the host's $T_CC is '$host'"
}

main() {
	target_load
	kdir=
	case $T_HEADERS in
	meta:*)
		if [ -n "$T_BUILDROOT" ]; then
			kdir=$(buildroot_kdir "${1:-}")
		elif [ "${1:-}" = --no-install ]; then
			kver=$(headers_kver)
			[ -n "$kver" ] || exit 1
		else
			kver=$(ensure_headers)
		fi
		[ -n "$kdir" ] || kdir=/usr/src/linux-headers-$kver
		[ -d "$kdir" ] || die "$kdir missing: apt-get install --reinstall ${T_HEADERS#meta:}"
		;;
	pkg:*)
		kver=${T_HEADERS#pkg:}
		kdir=/usr/src/linux-headers-$kver
		if [ ! -f "$kdir/Makefile" ]; then
			[ "${1:-}" != --no-install ] || exit 1
			is_root || die "$kdir missing: apt-get install linux-headers-$kver"
			ensure_pkgs "linux-headers-$kver"
		fi
		;;
	newest:*)
		kver=$(newest_kver "${T_HEADERS#newest:}")
		if [ -z "$kver" ]; then
			if [ "${1:-}" = --no-install ] || ! is_root; then
				die "no package matches '${T_HEADERS#newest:}' (run 'apt-get update' as root?)"
			fi
			apt_update
			kver=$(newest_kver "${T_HEADERS#newest:}")
			[ -n "$kver" ] || die "no package matches '${T_HEADERS#newest:}' in apt's lists"
		fi
		root=$KLPC_CACHE/headers/$kver
		kdir=$root/usr/src/linux-headers-$kver
		if [ ! -f "$kdir/Makefile" ]; then
			[ "${1:-}" != --no-install ] || exit 1
			unpack_headers "$kver" "$root"
		fi
		# shellcheck disable=SC2086 # a list of package names
		[ "${1:-}" = --no-install ] || ensure_pkgs $T_PKGS
		;;
	esac
	check_cc "$kdir"
	printf '%s\n' "$kdir"
}

main "$@"
