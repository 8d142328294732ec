#!/bin/sh
# was t-34-unload-under-load
# A patch module removed right after its disable completes, while other
# tasks keep calling the patched functions: no task may still be in, or
# about to return into, the module's code.  20 rounds, dmesg clean.
# klpc-timeout: 300
# klpc-weight: 310
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-cm-target
pids=
for _ in 1 2; do
	"$KLPC_HAMMER" read /proc/klpc_cm 600 &
	pids="$pids $!"
done

i=0
while [ $i -lt 20 ]; do
	load klpc-cm-patch
	wait_transition klpc_cm_patch 30
	disable_patch klpc_cm_patch 30
	unload klpc-cm-patch
	i=$((i + 1))
done

for pid in $pids; do
	kill -0 "$pid" 2>/dev/null || die "a reader died: it saw a mismatch"
	kill "$pid"
done
wait 2>/dev/null || true
case $(cat /proc/klpc_cm) in
*" mismatches=0") ;;
*) die "mismatch: $(cat /proc/klpc_cm)" ;;
esac
unload klpc-cm-target
unload klpc
