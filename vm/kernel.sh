#!/bin/sh
# Fetch Debian's kernel image for the guest (same release as the headers)
# into the cache, without installing it, and print the path of the vmlinuz.
# A target with a build root (T_BUILDROOT, tools/buildroot.sh) has the
# image installed there by the root's apt with its headers: it is copied
# from there.
# With --modules NAME...: fetch those modules of the image and print their
# paths instead.
# Env: KLPC_CACHE (default /var/cache/klpc), KLPC_KDIR (build tree whose
# release to use), KLPC_KERNEL (use this bzImage instead; nothing fetched),
# KLPC_TARGET.
set -eu
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=tools/targets.sh
. "$(dirname "$0")/../tools/targets.sh"

# image_root KVER: the target's build root if KVER's image is installed
# in it, else nothing (the image is then downloaded).
image_root() {
	[ -n "$T_BUILDROOT" ] || return 0
	_r=$("$(dirname "$0")/../tools/buildroot.sh" path)
	[ -s "$_r/boot/vmlinuz-$1" ] || die "no /boot/vmlinuz-$1 in the $T_BUILDROOT build root $_r"
	echo "$_r"
}

# unpack_image KVER DIR: KVER's image package unpacked into DIR/x (its
# boot/ and lib/modules/), from the build root or downloaded.
unpack_image() {
	_r=$(image_root "$1")
	if [ -n "$_r" ]; then
		mkdir -p "$2/x/boot" "$2/x/lib/modules"
		cp "$_r/boot/vmlinuz-$1" "$_r/boot/config-$1" "$2/x/boot/"
		ln -s "$_r/lib/modules/$1" "$2/x/lib/modules/$1"
		return 0
	fi
	download_image "$1" "$2"
	msg "unpacking $(basename "$2"/*.deb)"
	dpkg -x "$2"/*.deb "$2/x"
}

# image_version KVER: the Debian version to fetch, the headers' one if known
# (installed, or unpacked into the cache by tools/kdir.sh).
image_version() {
	dpkg-query -W -f='${Version}' "linux-headers-$1" 2>/dev/null ||
		cat "$KLPC_CACHE/headers/$1/version" 2>/dev/null || true
}

download_image() {
	pkg=linux-image-$1
	ver=$(image_version "$1")
	spec=$pkg${ver:+=$ver}
	# apt drops privileges to _apt for downloads: give it the directory.
	chown _apt "$2" 2>/dev/null || true
	if ! (cd "$2" && apt-get download -q "$spec" >&2); then
		is_root || die "cannot download $spec (run 'apt-get update' as root?)"
		apt_update
		(cd "$2" && apt-get download -q "$spec" >&2) ||
			die "cannot download $spec: no such Debian kernel package"
	fi
}

fetch_kernel() {
	kver=$1
	dir=$KLPC_CACHE/kernel/$kver
	[ -s "$dir/vmlinuz" ] && return 0
	take_lock kernel
	[ -s "$dir/vmlinuz" ] && return 0
	msg "fetching Debian kernel image linux-image-$kver"
	mkdir -p "$KLPC_CACHE/kernel"
	tmp=$(mktemp -d "$KLPC_CACHE/kernel/.fetch.XXXXXX")
	unpack_image "$kver" "$tmp"
	[ -s "$tmp/x/boot/vmlinuz-$kver" ] || die "no boot/vmlinuz-$kver in the package"
	mkdir -p "$dir"
	cp "$tmp/x/boot/config-$kver" "$dir/config" 2>/dev/null || true
	cp "$tmp/x/boot/vmlinuz-$kver" "$dir/vmlinuz.tmp"
	mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	rm -rf "$tmp"
}

# fetch_modules KVER NAME...: the image package's NAME.ko (uncompressed)
# into KLPC_CACHE/kernel/KVER/modules, for the tests of patches to module
# code (the guest root has no modules of its own).
fetch_modules() {
	kver=$1
	shift
	dir=$KLPC_CACHE/kernel/$kver/modules
	missing=
	for m in "$@"; do
		[ -s "$dir/$m.ko" ] || missing="$missing $m"
	done
	[ -n "$missing" ] || return 0
	take_lock kernel
	mkdir -p "$KLPC_CACHE/kernel" "$dir"
	tmp=$(mktemp -d "$KLPC_CACHE/kernel/.fetch.XXXXXX")
	src=$(image_root "$kver")
	[ -n "$src" ] || download_image "$kver" "$tmp"
	for m in $missing; do
		if [ -n "$src" ]; then
			f=$(find "$src/lib/modules/$kver" -name "$m.ko*" -type f | head -n 1)
			[ -n "$f" ] || die "no module $m in linux-image-$kver"
		else
			dpkg-deb --fsys-tarfile "$tmp"/*.deb |
				tar -x -C "$tmp" --wildcards "*/$m.ko*" 2>/dev/null ||
				die "no module $m in linux-image-$kver"
			f=$(find "$tmp" -name "$m.ko*" -type f | head -n 1)
		fi
		case $f in
		*.xz) xz -dc "$f" >"$dir/$m.ko.tmp" ;;
		*.zst) zstd -qdc "$f" >"$dir/$m.ko.tmp" ;;
		*) cp "$f" "$dir/$m.ko.tmp" ;;
		esac
		mv "$dir/$m.ko.tmp" "$dir/$m.ko"
	done
	rm -rf "$tmp"
}

main() {
	target_load
	if [ "${1:-}" = --modules ]; then
		shift
		kver=$(klpc_kver)
		fetch_modules "$kver" "$@"
		for m in "$@"; do
			printf '%s\n' "$KLPC_CACHE/kernel/$kver/modules/$m.ko"
		done
		return 0
	fi
	if [ -n "${KLPC_KERNEL:-}" ]; then
		[ -s "$KLPC_KERNEL" ] || die "KLPC_KERNEL=$KLPC_KERNEL: no such file"
		printf '%s\n' "$KLPC_KERNEL"
		return 0
	fi
	kver=${1:-$(klpc_kver)}
	fetch_kernel "$kver"
	printf '%s\n' "$KLPC_CACHE/kernel/$kver/vmlinuz"
}

main "$@"
