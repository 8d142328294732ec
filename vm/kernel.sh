#!/bin/sh
# Fetch Debian's kernel image for the guest (same release as the headers)
# into the cache, without installing it, and print the path of the vmlinuz.
# With --modules NAME...: fetch those modules of the image and print their
# paths instead.
# Env: KLPC_CACHE (default /var/cache/klpc), KLPC_KDIR (build tree whose
# release to use), KLPC_KERNEL (use this bzImage instead; nothing fetched).
set -eu
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

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
	msg "downloading Debian kernel image linux-image-$kver"
	mkdir -p "$KLPC_CACHE/kernel"
	tmp=$(mktemp -d "$KLPC_CACHE/kernel/.fetch.XXXXXX")
	download_image "$kver" "$tmp"
	msg "unpacking $(basename "$tmp"/*.deb)"
	dpkg -x "$tmp"/*.deb "$tmp/x"
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
	download_image "$kver" "$tmp"
	for m in $missing; do
		dpkg-deb --fsys-tarfile "$tmp"/*.deb |
			tar -x -C "$tmp" --wildcards "*/$m.ko*" 2>/dev/null ||
			die "no module $m in linux-image-$kver"
		f=$(find "$tmp" -name "$m.ko*" -type f | head -n 1)
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
