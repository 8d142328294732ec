# shellcheck shell=sh
# klpc build, step 1: the target kernel, and a source tree that matches it.
#
# The target is a Debian kernel whose headers package is installed
# (linux-headers-KVER): its .config, Module.symvers and package version.
# The source is Debian's linux-source-X.Y of exactly that version, and the
# compiler the one CONFIG_CC_VERSION_TEXT names: anything else could
# compile a function into other code than the running one, and the patch
# would then replace more, or less, than the diff says. The tree is
# unpacked, configured and prepared once per kernel build into
# $KLPC_CACHE/build/KVER/ and reused; each build works in a scratch farm
# of links to it (farm.sh).
#
# Sourced by klp-build/klpc-build; sets TGT_* and SRC_* variables.

# The kernel series klpc build is tested on: Debian 12's (bookworm).
# Another series compiles differently (its Kbuild, its objtool, its
# livepatch ABI): a patch built for it would be built blind, so it is
# refused before anything is fetched.
KLPC_SERIES="6.1"

# check_series KVER: TGT_SERIES ("6.1"), one of KLPC_SERIES, else refused
check_series() {
	TGT_SERIES=$(echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\)[.+-].*$/\1/p')
	[ -n "$TGT_SERIES" ] || fail "cannot read a kernel series from '$1'"
	case " $KLPC_SERIES " in *" $TGT_SERIES "*) return 0 ;; esac
	case $TGT_SERIES in
	# Debian 13 (trixie): issue 36
	6.12) fail "$1: klpc build supports 6.1 (bookworm) kernels; 6.12 is not supported yet" ;;
	*) fail "$1: klpc build supports 6.1 (bookworm) kernels; $TGT_SERIES is not supported" ;;
	esac
}

# target_facts KVER: TGT_KVER, TGT_KDIR, TGT_PKGVER, TGT_SERIES ("6.1"),
# TGT_CC (the compiler's command) and TGT_CC_TEXT (its version line).
target_facts() {
	TGT_KVER=$1
	check_series "$1"
	TGT_KDIR=/usr/src/linux-headers-$TGT_KVER
	[ -f "$TGT_KDIR/.config" ] || TGT_KDIR=/lib/modules/$TGT_KVER/build
	if [ ! -f "$TGT_KDIR/.config" ] || [ ! -f "$TGT_KDIR/Module.symvers" ]; then
		fail "no headers for $TGT_KVER: apt-get install linux-headers-$TGT_KVER"
	fi
	TGT_PKGVER=$(dpkg-query -W -f='${Version}' "linux-headers-$TGT_KVER" 2>/dev/null) ||
		fail "linux-headers-$TGT_KVER is not an installed package: klpc build needs Debian's headers"
	TGT_CC_TEXT=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$TGT_KDIR/.config")
	[ -n "$TGT_CC_TEXT" ] || fail "$TGT_KDIR/.config has no CONFIG_CC_VERSION_TEXT"
	TGT_CC=${TGT_CC_TEXT%% *}
	# Debian's amd64 kernels: the only architecture klpc patches
	# shellcheck disable=SC2034 # read by reach.sh
	TGT_SRCARCH=x86
}

# check_pahole: the pahole version that built the target's module BTF.
# Kconfig records it (CONFIG_PAHOLE_VERSION); another version, or none,
# changes the configuration, and the patch module would not match.
check_pahole() {
	_want=$(sed -n 's/^CONFIG_PAHOLE_VERSION=\([0-9]*\)$/\1/p' "$TGT_KDIR/.config")
	[ -n "$_want" ] && [ "$_want" != 0 ] || return 0
	_text="pahole v$((_want / 100)).$((_want % 100))"
	command -v pahole >/dev/null 2>&1 ||
		fail "$TGT_KVER was built with $_text (module BTF): install it (apt-get install dwarves; on Debian 13: pahole)"
	_have=$(pahole --version 2>/dev/null)
	[ "$_have" = "v$((_want / 100)).$((_want % 100))" ] ||
		fail "$TGT_KVER was built with $_text, but pahole is '$_have': install that version"
}

# check_compiler: the compiler that built the target, and no other.
check_compiler() {
	command -v "$TGT_CC" >/dev/null 2>&1 ||
		fail "$TGT_KVER was built with '$TGT_CC_TEXT': install $TGT_CC (apt-get install $TGT_CC)"
	_have=$("$TGT_CC" --version 2>/dev/null | head -n 1)
	[ "$_have" = "$TGT_CC_TEXT" ] ||
		fail "$TGT_KVER was built with '$TGT_CC_TEXT', but $TGT_CC is '$_have': install that exact version"
}

# source_tarball: SRC_TARBALL, the source of the target's exact version
# (--source TARBALL, or Debian's linux-source-X.Y package: the installed
# one, else that version fetched into the cache).
source_tarball() {
	if [ -n "${OPT_SOURCE:-}" ]; then
		SRC_TARBALL=$OPT_SOURCE
		[ -f "$SRC_TARBALL" ] || fail "--source $SRC_TARBALL: no such file"
		return 0
	fi
	_pkg=linux-source-$TGT_SERIES
	_ver=$(dpkg-query -W -f='${Version}' "$_pkg" 2>/dev/null) || _ver=
	if [ "$_ver" != "$TGT_PKGVER" ]; then
		cached_source "$_pkg" && return 0
		fail "$_pkg is ${_ver:-not installed}, the target $TGT_KVER is $TGT_PKGVER: apt-get install $_pkg=$TGT_PKGVER (or run klpc build as root: it fetches that version into $KLPC_CACHE/source)"
	fi
	SRC_TARBALL=$(dpkg -L "$_pkg" | grep -E "/$_pkg\\.tar\\.[a-z]+\$" | head -n 1)
	if [ -z "$SRC_TARBALL" ] || [ ! -f "$SRC_TARBALL" ]; then
		fail "$_pkg is installed but its tarball is missing: apt-get install --reinstall $_pkg"
	fi
}

# source_matches_target DIR: the tree's kernel version is the target's
# upstream version (6.1.192 for 6.1.192-3), so a --source directory or
# tarball of another release is refused.
# cached_source PKG: SRC_TARBALL, PKG's tarball of the target's version
# from KLPC_CACHE/source, downloaded there first when root (the installed
# linux-source is another version: one machine may build for several
# kernel builds, and only one version of a package can be installed).
cached_source() {
	_dir=$KLPC_CACHE/source/$1_$TGT_PKGVER
	SRC_TARBALL=$(find "$_dir" -maxdepth 1 -name "$1.tar.*" 2>/dev/null | head -n 1)
	[ -z "$SRC_TARBALL" ] || return 0
	[ "$(id -u)" = 0 ] || return 1
	progress "downloading $1 $TGT_PKGVER into $KLPC_CACHE/source"
	mkdir -p "$_dir"
	SRC_TARBALL=$(deb_file "$1" "*/$1.tar.*" "$_dir") || exit 1
}

# deb_file PKG GLOB DIR: the file of PKG (the target's package version)
# whose path matches GLOB, downloaded with apt-get and taken out into DIR;
# prints its path
deb_file() {
	_tmp=$3/fetch.tmp
	rm -rf "$_tmp"
	mkdir -p "$_tmp"
	# apt drops privileges to _apt for downloads: give it the directory
	chown _apt "$_tmp" 2>/dev/null || true
	(cd "$_tmp" && apt-get download -q "$1=$TGT_PKGVER") >/dev/null 2>&1 ||
		fail "cannot download $1=$TGT_PKGVER (apt-get update?)"
	dpkg-deb --fsys-tarfile "$_tmp"/*.deb | tar -x -C "$_tmp" --wildcards "$2" ||
		fail "no $2 in $(basename "$_tmp"/*.deb)"
	_got=$(find "$_tmp" -path "$_tmp/$2" -type f | head -n 1)
	[ -n "$_got" ] || fail "no $2 in $(basename "$_tmp"/*.deb)"
	mv "$_got" "$3/"
	rm -rf "$_tmp"
	echo "$3/$(basename "$_got")"
}

source_matches_target() {
	_want=${TGT_PKGVER%%-*}
	_have=$(make -s -C "$1" kernelversion 2>/dev/null) ||
		fail "$1: not a kernel source tree"
	[ "$_have" = "$_want" ] ||
		fail "the source is Linux $_have, the target $TGT_KVER is $_want"
}

# The stamp that says a cached tree is complete: what it was made from.
prepare_stamp() {
	printf '%s\n' "$TGT_KVER" "$TGT_PKGVER" "$TGT_CC_TEXT" "$SRC_TARBALL" \
		"$KLPC_BUILD_KCFLAGS"
	sha256sum <"$TGT_KDIR/.config" | cut -d' ' -f1
}

# unpack_source DIR: the tarball's tree (or --source's directory) into DIR.
unpack_source() {
	if [ -d "$SRC_TARBALL" ]; then
		cp -a "$SRC_TARBALL/." "$1"
		return 0
	fi
	progress "unpacking $(basename "$SRC_TARBALL")"
	tar -xf "$SRC_TARBALL" -C "$1" --strip-components=1 ||
		fail "cannot unpack $SRC_TARBALL"
}

# configure_source DIR: the target's own .config, unchanged by
# olddefconfig (a change means this source does not build that kernel).
configure_source() {
	cp "$TGT_KDIR/.config" "$1/.config"
	kmake "$1" olddefconfig >"$1/.klpc-olddefconfig.log" 2>&1 ||
		fail "olddefconfig failed: $1/.klpc-olddefconfig.log"
	_diff=$(diff "$TGT_KDIR/.config" "$1/.config" | grep '^[<>] CONFIG_' | head -n 5)
	[ -z "$_diff" ] ||
		fail "the source does not build $TGT_KVER's configuration; olddefconfig changed: $_diff"
	cp "$TGT_KDIR/Module.symvers" "$1/Module.symvers"
}

# prepare_source: SRC_TREE, the prepared tree in the cache (made once), and
# UNIT_CACHE, where the units compiled from it are kept (build-units.sh).
prepare_source() {
	_cache=$KLPC_CACHE/build/$TGT_KVER
	SRC_TREE=$_cache/src
	UNIT_CACHE=$_cache/units
	mkdir -p "$_cache"
	# one preparation at a time; builds from a prepared tree run side by side
	exec 8>"$_cache.lock"
	flock 8
	if [ -f "$_cache/prepared" ] &&
		[ "$(cat "$_cache/prepared")" = "$(prepare_stamp)" ]; then
		verbose "source: $SRC_TREE (cached)"
		flock -u 8
		return 0
	fi
	rm -rf "$_cache/prepared" "$SRC_TREE" "$_cache/src.tmp" "$UNIT_CACHE" \
		"$_cache/includes" "$_cache/kbuild.env"
	mkdir -p "$_cache/src.tmp"
	unpack_source "$_cache/src.tmp"
	source_matches_target "$_cache/src.tmp"
	progress "configuring for $TGT_KVER (olddefconfig)"
	configure_source "$_cache/src.tmp"
	progress "preparing the tree (make prepare modules_prepare)"
	# with the units' flags: what prepare compiles (bounds.s,
	# asm-offsets.s, modpost's tables) then stays up to date in the
	# scratch trees, where Kbuild would otherwise compile it again
	kmake "$_cache/src.tmp" KCFLAGS="$KLPC_BUILD_KCFLAGS" prepare modules_prepare \
		>"$_cache/prepare.log" 2>&1 ||
		fail "make prepare failed: $_cache/prepare.log"
	progress "indexing the tree's includes"
	include_index "$_cache/src.tmp" >"$_cache/includes" ||
		fail "cannot index the includes of $_cache/src.tmp"
	# what cmds.mk needs (build-units.sh): else captured by the first build
	kbuild_env_capture "$_cache/src.tmp" >"$_cache/kbuild.env" 2>>"$_cache/prepare.log" ||
		rm -f "$_cache/kbuild.env"
	mv "$_cache/src.tmp" "$SRC_TREE"
	prepare_stamp >"$_cache/prepared"
	flock -u 8
}
