#!/bin/sh
# Make sure the host has the Debian packages a task needs.
# Usage: tools/deps.sh build|check|vm|debug|deb|pkg|ci ...
# As root, missing packages are installed (apt-get update first);
# otherwise the missing ones are named and the script fails.
set -eu
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

pkgs_for() {
	case $1 in
	# (xz-utils, zstd: klpc-kallsyms unpacks Debian's vmlinuz with them)
	build) echo make gcc libc6-dev linux-headers-amd64 libelf-dev xz-utils zstd ;;
	check) echo make gcc libc6-dev linux-headers-amd64 libelf-dev \
		linux-source-6.1 xz-utils zstd perl sparse shellcheck patch bc flex bison \
		libssl-dev dwarves linux-headers-rt-amd64 ;;
	vm) echo make gcc libc6-dev linux-headers-amd64 libelf-dev \
		qemu-system-x86 debootstrap kmod cpio gzip util-linux gnuplot-nox \
		openssl linux-source-6.1 xz-utils patch bc flex bison libssl-dev \
		dwarves ovmf sbsigntool ;;
	# building the debug kernel (vm/debug-kernel.sh) from Debian's source
	debug) echo make gcc libc6-dev linux-source-6.1 xz-utils flex bison bc \
		libssl-dev libelf-dev kmod cpio ;;
	# make deb: Debian's packaging tools
	deb) echo dpkg-dev debhelper dh-dkms ;;
	# make vm-pkg-test: the packages, and qcow2 overlays of the guest disk
	pkg) echo dpkg-dev debhelper dh-dkms qemu-system-x86 qemu-utils \
		debootstrap e2fsprogs kmod gcc make libc6-dev linux-headers-amd64 ;;
	*) die "unknown package set '$1' (build|check|vm|debug|deb|pkg|ci)" ;;
	esac
}

main() {
	[ $# -gt 0 ] || die "usage: $0 build|check|vm|debug|deb|pkg|ci ..."
	all=
	for set in "$@"; do
		if [ "$set" = ci ]; then
			all="$all $(pkgs_for check) $(pkgs_for vm)"
		else
			all="$all $(pkgs_for "$set")"
		fi
	done
	# shellcheck disable=SC2086 # a list of package names
	ensure_pkgs $all
}

main "$@"
