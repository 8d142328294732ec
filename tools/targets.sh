# shellcheck shell=sh
# The target kernels (make TARGET=, KLPC_TARGET in the scripts): every fact
# that differs between them is here, and only here. Sourced by tools/lib.sh.
#
#   bookworm       Debian 12's 6.1: the host's linux-headers-amd64, installed
#                  with apt-get as before; the guest boots its image.
#   bookworm-6.1.176  Debian 12's 6.1.176-1 (linux-headers-6.1.0-50-amd64,
#                  installed like any package): an older build of 6.1, for
#                  the test that applies a later 6.1 stable fix live
#                  (build/stable-fix-6.1.176); only that test is meant
#                  to run on it.
#   bookworm-6.12  Debian 12's own 6.12 (bookworm-security's linux-6.12):
#                  the newest linux-headers-6.12.*+deb12-amd64 that apt
#                  knows, unpacked into KLPC_CACHE/headers (its Depends
#                  would install a kernel image on the host, so it is never
#                  installed); the guest boots the matching image.
#   trixie         Debian 13's 6.12 (trixie's linux-headers-amd64, built
#                  with gcc-14, which Debian 12 lacks): built in a trixie
#                  build root (tools/buildroot.sh) where trixie's apt
#                  installed the headers, the image and gcc-14; the guest
#                  boots that image over a trixie root.
#
# target_load sets, for KLPC_TARGET (default bookworm):
#   T_HEADERS  'meta:PKG' (the installed metapackage PKG names the release),
#              'pkg:KVER' (linux-headers-KVER, installed)
#              or 'newest:REGEX' (the newest package whose name matches)
#   T_SUITE    the Debian suite of the guest root
#   T_CC       the compiler the kernel was built with; the headers'
#              CONFIG_CC_VERSION_TEXT must name it, as the host has it
#   T_PKGS     host packages the unpacked headers need (what their kbuild
#              package depends on that a build host may lack); with
#              T_BUILDROOT, packages of the build root
#   T_BUILDROOT  empty: kbuild runs on the host; else the Debian suite of
#              the build root it runs in (tools/buildroot.sh), which holds
#              the headers ('meta:' names its installed metapackage) and
#              T_CC
#   T_DEBUG_SRC  the Debian source package the debug kernel (KERNEL=debug,
#              vm/debug-kernel.sh) is built from, installed with apt-get
#              (its tarball: /usr/src/T_DEBUG_SRC.tar.xz); empty: the
#              target has no debug kernel
#   T_DEBUG_FRAG fragments merged after vm/debug.config (file names in vm/):
#              what that source names differently; empty: none

KLPC_TARGETS='bookworm bookworm-6.12 bookworm-6.1.176 trixie'

# shellcheck disable=SC2034 # the T_* are read by the scripts that source this
target_load() {
	KLPC_TARGET=${KLPC_TARGET:-bookworm}
	T_BUILDROOT=
	case $KLPC_TARGET in
	bookworm)
		T_HEADERS=meta:linux-headers-amd64
		T_SUITE=bookworm
		T_CC=gcc-12
		T_PKGS=
		T_DEBUG_SRC=linux-source-6.1
		T_DEBUG_FRAG=
		;;
	bookworm-6.1.176)
		T_HEADERS=pkg:6.1.0-50-amd64
		T_SUITE=bookworm
		T_CC=gcc-12
		T_PKGS=
		# linux-source-6.1 is the newest 6.1 only: no debug kernel
		T_DEBUG_SRC=
		T_DEBUG_FRAG=
		;;
	bookworm-6.12)
		T_HEADERS='newest:^linux-headers-6\.12\.[0-9]+\+deb12-amd64$'
		T_SUITE=bookworm
		T_CC=gcc-12
		# module BTF: 6.12's headers carry vmlinux, kbuild runs pahole
		T_PKGS="pahole zstd"
		T_DEBUG_SRC=linux-source-6.12
		T_DEBUG_FRAG=debug-6.12.config
		;;
	trixie)
		T_HEADERS=meta:linux-headers-amd64
		T_SUITE=trixie
		T_CC=gcc-14
		T_BUILDROOT=trixie
		# kbuild's make; pahole for module BTF
		T_PKGS="make pahole zstd"
		# no debug kernel: bookworm-6.12's is the same 6.12 source
		T_DEBUG_SRC=
		T_DEBUG_FRAG=
		;;
	*)
		die "TARGET=$KLPC_TARGET: use one of: $KLPC_TARGETS"
		;;
	esac
}
