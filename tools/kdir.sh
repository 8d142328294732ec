#!/bin/sh
# Print the kernel build directory for the installed linux-headers-amd64.
# Installs the headers when run as root and they are missing.
# --no-install: print nothing (exit 1) instead of installing.
set -eu
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	if [ "${1:-}" = --no-install ]; then
		kver=$(headers_kver)
		[ -n "$kver" ] || exit 1
	else
		kver=$(ensure_headers)
	fi
	kdir=/usr/src/linux-headers-$kver
	[ -d "$kdir" ] || die "$kdir missing: apt-get install --reinstall linux-headers-amd64"
	printf '%s\n' "$kdir"
}

main "$@"
