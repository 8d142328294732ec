#!/bin/sh
# Guest side of 'make vm-try PATCH=x.ko [SCRIPT=s]': load the patch with
# 'klpc load', run the script (or show 'klpc status' and 'klpc list -v'),
# show 'klpc info' and the kernel log, and end with KLPC-TRY: OK or
# KLPC-TRY: FAILED (a failed load or script; the host fails the run too
# on a line of vm/kernel-bad.txt in the console log).
set -eu

TRY=${KLPC_DIR:-/klpc}/try
FAILED=0

heading() {
	printf '\n===== %s\n' "$*"
}

# run CMD...: show it, run it; a non-zero status fails the try.
run() {
	echo "# $*"
	_rc=0
	"$@" || _rc=$?
	[ $_rc -eq 0 ] || {
		echo "KLPC-TRY: '$*' exited with status $_rc"
		FAILED=1
	}
}

main() {
	patch=$(ls "$TRY"/*.ko)
	heading "klpc load $(basename "$patch") on $(uname -r)"
	run klpc load "$patch" --wait 120
	if [ -f "$TRY/script" ]; then
		heading "script"
		run "$TRY/script"
	else
		heading "status"
		run klpc status
		heading "list -v"
		run klpc list -v
	fi
	heading "info"
	klpc info "$patch" || true
	heading "kernel log"
	name=$(modinfo -F name "$patch" | tr - _)
	dmesg | grep -E "klpc|$name" || true
}

main "$@" || FAILED=1
if [ "$FAILED" -eq 0 ]; then
	echo "KLPC-TRY: OK"
else
	echo "KLPC-TRY: FAILED"
	exit 1
fi
