#!/bin/sh
# The build root of a target whose kernel the host cannot build for
# (T_BUILDROOT in tools/targets.sh; trixie: gcc-14, which Debian 12 lacks):
# a debootstrap minbase of that suite in KLPC_CACHE/buildroot/<suite>/,
# where the suite's own apt installed the target's headers metapackage,
# kernel image and compiler (T_HEADERS, T_PKGS), as on a machine of that
# release. kbuild runs inside it (chroot), so modules are built as that
# machine's DKMS would build them. Made once; remade when the package
# list, the mirrors or FORMAT (below: the way it is made) change.
#
# Usage: tools/buildroot.sh path       make it if needed (root), print it
#        tools/buildroot.sh path --no-make  print it only if it is made
#        tools/buildroot.sh run CMD... run CMD in it (root; made before)
#        tools/buildroot.sh wrapper    print the prefix that runs a command
#                                      in the target's build root
#                                      ("<this script> run"), or nothing
#                                      for a target built on the host
# run: a private mount namespace (the mounts vanish with it) with /proc,
# /dev and the source tree (this repository) bind-mounted at their own
# paths; the root itself is reachable inside at its host path too (a
# symlink to /), so a path such as KDIR means the same inside and out.
# The working directory is kept when it is in the source tree.
# Env: KLPC_TARGET, KLPC_CACHE, KLPC_MIRROR, KLPC_SECURITY_MIRROR.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
# shellcheck source=tools/targets.sh
. "$ROOT/tools/targets.sh"

MIRROR=${KLPC_MIRROR:-http://deb.debian.org/debian}
SECURITY=${KLPC_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# bump when build() changes what the root holds
FORMAT=1

# packages: what apt installs in the root, beyond minbase: the headers
# metapackage, the image that goes with it, the compiler, T_PKGS.
packages() {
	hdr=${T_HEADERS#meta:}
	echo "$hdr $(echo "$hdr" | sed 's/^linux-headers-/linux-image-/') $T_CC $T_PKGS"
}

sources() {
	echo "deb $MIRROR $T_BUILDROOT main"
	echo "deb $MIRROR $T_BUILDROOT-updates main"
	echo "deb $SECURITY $T_BUILDROOT-security main"
}

root_hash() {
	{
		packages
		sources
		echo "format $FORMAT"
	} | sha256sum | cut -d' ' -f1
}

is_current() {
	[ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$1" ]
}

# in_root ROOT CMD...: CMD chrooted in ROOT, the mounts of 'run' made.
in_root() {
	r=$1
	shift
	mkdir -p "$r$ROOT"
	# shellcheck disable=SC2016 # the inner shell expands them
	unshare --mount --propagation private sh -c '
		r=$1 src=$2
		shift 2
		mount --rbind /dev "$r/dev"
		mount -t proc proc "$r/proc"
		mount --bind "$src" "$r$src"
		wd=/
		case $PWD/ in "$src"/*) wd=$PWD ;; esac
		exec chroot "$r" sh -c "cd \"\$0\" && exec \"\$@\"" "$wd" "$@"
	' sh "$r" "$ROOT" "$@"
}

# build HASH: debootstrap, then the packages with the root's own apt.
build() {
	is_root || die "making the $T_BUILDROOT build root needs root (debootstrap, chroot)"
	r=$DIR/root
	# never remove through a mount (run's are private to its namespace)
	! grep -q " $r/" /proc/self/mounts || die "something is mounted in $r"
	rm -rf "$r" "$DIR/stamp"
	mkdir -p "$r"
	msg "debootstrap $T_BUILDROOT minbase into $r"
	start=$(date +%s)
	debootstrap --variant=minbase "$T_BUILDROOT" "$r" "$MIRROR" >&2
	sources >"$r/etc/apt/sources.list"
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	# the root at its host path, inside it too
	mkdir -p "$r$(dirname "$r")"
	ln -s / "$r$r"
	msg "apt-get install in the build root: $(packages)"
	# INITRD=No: no initramfs for the image (the guest boots without
	# one; the packaging guest makes its own)
	# shellcheck disable=SC2046 # a list of package names
	in_root "$r" env DEBIAN_FRONTEND=noninteractive INITRD=No sh -c \
		'apt-get update -q && apt-get install -y -q --no-install-recommends "$@"' \
		sh $(packages) >&2 || die "apt-get install in the build root failed"
	debs=$(du -sh "$r/var/cache/apt/archives" | cut -f1)
	rm -f "$r"/var/cache/apt/archives/*.deb
	msg "build root: $(($(date +%s) - start)) s, $debs of packages downloaded, $(du -sh "$r" | cut -f1) in all"
	echo "$1" >"$DIR/stamp"
}

# root_path [--no-make]: the build root, made if missing or stale (with
# --no-make: fail instead).
root_path() {
	[ -n "$T_BUILDROOT" ] || die "TARGET=$KLPC_TARGET is built on the host: no build root"
	DIR=$KLPC_CACHE/buildroot/$T_BUILDROOT
	hash=$(root_hash)
	if ! is_current "$hash"; then
		[ "${1:-}" != --no-make ] || return 1
		take_lock "buildroot-$T_BUILDROOT"
		is_current "$hash" || build "$hash"
	fi
	echo "$DIR/root"
}

main() {
	target_load
	case ${1:-} in
	path) root_path "${2:-}" ;;
	run)
		shift
		[ $# -gt 0 ] || die "usage: $0 run CMD..."
		# made or refreshed by 'path' (tools/kdir.sh), not here: a
		# 'make clean' must not start a debootstrap
		DIR=$KLPC_CACHE/buildroot/$T_BUILDROOT
		if [ -z "$T_BUILDROOT" ] || [ ! -f "$DIR/stamp" ]; then
			die "no $KLPC_TARGET build root: run tools/buildroot.sh path"
		fi
		in_root "$DIR/root" "$@"
		;;
	wrapper) [ -z "$T_BUILDROOT" ] || echo "$ROOT/tools/buildroot.sh run" ;;
	*) die "usage: $0 path [--no-make]|run CMD...|wrapper" ;;
	esac
}

main "$@"
