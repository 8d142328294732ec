#!/bin/sh
# was t-32-syscall
# Patch a syscall while one process per CPU hammers it, and while CPU-bound
# loops that make no syscalls run: every task moves (the loops on interrupt
# returns), and the time from insmod to transition 0 is printed next to the
# built-in livepatch's, taken in this same boot (a figure, not an assertion).
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
ncpu=$(nproc)
ppid_before=$("$KLPC_HAMMER" ppid 0)
pids=
for _ in $(seq "$ncpu"); do
	"$KLPC_HAMMER" getppid 60 &
	pids="$pids $!"
	"$KLPC_HAMMER" spin 60 &
	pids="$pids $!"
done
sleep 1

start=$(ms_now)
load klpc-test-patch func=__x64_sys_getppid
wait_transition klpc_test_patch 20
end=$(ms_now)
assert_eq 42 "$("$KLPC_HAMMER" ppid 0)" "getppid() patched"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after completion"
disable_patch klpc_test_patch 20
assert_eq "$ppid_before" "$("$KLPC_HAMMER" ppid 0)" "getppid() restored"
unload klpc-test-patch
for pid in $pids; do
	kill "$pid"
done
wait 2>/dev/null || true

# the same figure on an idle guest, for klpc and the built-in livepatch
start_idle=$(ms_now)
load klpc-sample
wait_transition klpc_sample
end_idle=$(ms_now)
disable_patch klpc_sample
unload klpc-sample

bstart=$(ms_now)
load klp-builtin-sample
bdir=/sys/kernel/livepatch/klp_builtin_sample
while [ "$(cat "$bdir/transition")" != 0 ]; do sleep 0.01; done
bend=$(ms_now)
write_sysfs 0 "$bdir/enabled"
while [ -e "$bdir" ]; do sleep 0.1; done
unload klp-builtin-sample
unload klpc

figure "insmod-to-transition-0: klpc idle $((end_idle - start_idle)) ms;" \
	"klpc with getppid+spin load $((end - start)) ms;" \
	"built-in livepatch idle $((bend - bstart)) ms"
