#!/bin/sh
# Fetch and make, in KLPC_CACHE only, what a later 'make vm-test
# TARGET=...' of each named target needs before its guests boot: the
# headers (or the build root), the guest's kernel and root, upstream's
# selftest sources, and klpc build's prepared source when the target's
# headers are an installed package. The repository's tree is not touched,
# so this runs beside a guest run of another target: .ci/run starts it
# for the later targets while the first one's guests run (downloads and
# debootstrap wait on the network and the disk more than on the cores).
# Each step is idempotent; what it prints goes to stderr.
# Usage: tools/prefetch.sh TARGET...
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

# step WHAT CMD...: run CMD (its output passes through), saying how long
# it took
step() {
	_what=$1
	shift
	_t0=$(date +%s)
	"$@"
	msg "prefetch $KLPC_TARGET: $_what ($(($(date +%s) - _t0)) s)"
}

# prefetch TARGET: every step for one target
prefetch() {
	KLPC_TARGET=$1
	export KLPC_TARGET
	KLPC_KDIR=$(step "headers" "$ROOT/tools/kdir.sh")
	export KLPC_KDIR
	kver=$(klpc_kver)
	step "guest kernel $kver" "$ROOT/vm/kernel.sh" "$kver" >/dev/null
	step "guest root" "$ROOT/vm/base.sh" >/dev/null
	step "upstream selftest sources" "$ROOT/tools/upstream-selftests.sh" --unpack
	# klpc build runs on the host for a headers package installed there
	if dpkg-query -W "linux-headers-$kver" >/dev/null 2>&1; then
		step "klpc build's source" "$ROOT/klp-build/klpc-build" --prepare \
			-k "$kver" >/dev/null
	fi
}

main() {
	[ $# -gt 0 ] || die "usage: $0 TARGET..."
	for t in "$@"; do
		prefetch "$t"
	done
}

main "$@"
