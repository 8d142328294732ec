#!/bin/sh
# was t-33-table
# The per-task table: every task has an entry during a transition, forked
# tasks get one (fork hook) and lose it when they are freed (free hook),
# pids reused while the transition is blocked do not disturb the blocked
# task or mix versions, and the table is gone once the transition ends.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
assert_eq 0 "$(klpc_stat entries)" "entries outside a transition"
load_cm_patch_blocked
sleeper=$SLEEPER
entries=$(klpc_stat entries)
threads=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
info "entries $entries, processes $threads, buckets $(klpc_stat buckets)"
[ "$entries" -ge "$threads" ] || die "fewer entries ($entries) than processes ($threads)"
assert_eq 1 "$(klpc_stat pending)" "pending: only the sleeper"

# fork churn with pids forced to wrap: entries come and go, the sleeper
# stays blocked and nothing runs mixed versions.  Past pid_max, pids start
# again at 300 (RESERVED_PIDS): a window of 64 pids above the current ones
# (or above 300) wraps every ~30 forks; at least 100 forks and one wrap.
old_pid_max=$(cat /proc/sys/kernel/pid_max)
first=$(sh -c 'echo $$')
base=$first
[ "$base" -ge 300 ] || base=300
echo $((base + 64)) >/proc/sys/kernel/pid_max
prev=$first
wraps=0
i=0
while [ $i -lt 100 ] || { [ $wraps -eq 0 ] && [ $i -lt 400 ]; }; do
	pid=$(sh -c 'cat /proc/klpc_cm >/dev/null; echo $$')
	[ "$pid" -gt "$prev" ] || wraps=$((wraps + 1))
	prev=$pid
	i=$((i + 1))
done
echo "$old_pid_max" >/proc/sys/kernel/pid_max
info "$i forks, pids wrapped $wraps times (from $first, pid_max $((base + 64)))"
[ "$wraps" -ge 1 ] || die "pids did not wrap in $i forks (from $first)"
sleep 1
after=$(klpc_stat entries)
[ "$after" -le $((entries + 16)) ] || die "entries of exited tasks stay: $entries then $after"
assert_eq 1 "$(klpc_stat pending)" "pending after the churn"
tasks_blocking | grep -q "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "sleeper lost: $(tasks_blocking)"
case $(cat /proc/klpc_cm) in
*" mismatches=0") ;;
*) die "mismatch: $(cat /proc/klpc_cm)" ;;
esac

write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch 10
assert_eq 0 "$(klpc_stat entries)" "entries after completion"
assert_eq "" "$(tasks_blocking)" "/proc/klpc/tasks after completion"

disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
