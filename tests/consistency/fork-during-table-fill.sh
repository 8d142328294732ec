#!/bin/sh
# was t-3b-fork-fill
# Tasks created while the table is being filled: with 3,000 sleeping
# threads the fill takes a while, and meanwhile children are forked that
# call klpc_cm's patched caller/callee pair at once.  A child whose parent
# the fill has not reached must get the initial state, not the target one
# (which it got before the start gate, free to run one new and one old
# function).  50 disable/enable cycles: no mismatch, no lost entry (a lost
# one would refuse a reversal or a start with ENOMEM).
# klpc-timeout: 900
# klpc-weight: 720
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

CYCLES=50
THREADS=3000
SECONDS_LOAD=36000

klpc_core_load
load klpc-cm-target
load klpc-cm-patch
wait_transition klpc_cm_patch

"$KLPC_TASKS" threads "$THREADS" "$SECONDS_LOAD" &
threads=$!
pids=
for _ in 1 2; do
	"$KLPC_HAMMER" fork-read /proc/klpc_cm "$SECONDS_LOAD" >/dev/null &
	pids="$pids $!"
done
# shellcheck disable=SC2086 # lists of pids
trap 'kill $pids $threads 2>/dev/null || true' EXIT
sleep 3

start=$(ms_now)
i=0
while [ $i -lt $CYCLES ]; do
	disable_patch klpc_cm_patch 60
	[ $i -ne 0 ] || info "entries during the first transition's end: $(klpc_stat entries)"
	enable_patch klpc_cm_patch 60
	i=$((i + 1))
	[ $((i % 10)) -ne 0 ] || info "$i cycles at $(($(ms_now) - start)) ms: $(cat /proc/klpc_cm)"
done
figure "fork-fill: $CYCLES disable/enable cycles with $THREADS threads and fork storms in $(($(ms_now) - start)) ms"

for pid in $pids $threads; do
	kill "$pid" 2>/dev/null || true
done
for pid in $pids $threads; do
	wait "$pid" 2>/dev/null || true
done
case $(cat /proc/klpc_cm) in
*" mismatches=0") ;;
*) die "mismatch: $(cat /proc/klpc_cm)" ;;
esac
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
