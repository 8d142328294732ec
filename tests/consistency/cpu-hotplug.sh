#!/bin/sh
# was t-39-cpu-hotplug
# CPUs that are possible but not online (maxcpus=, a CPU taken offline)
# have idle tasks that never run: they must not block a transition.  Also
# a CPU going offline and coming online during a transition.  Needs more
# possible than online CPUs: the test guests boot three CPUs with maxcpus=2.
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

CPU1=/sys/devices/system/cpu/cpu1/online

# count_cpus LIST: how many CPUs a list like "0-1,3" names.
count_cpus() {
	echo "$1" | tr ',' '\n' |
		awk -F- 'NF { n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n + 0 }'
}

cpu1() {
	expect_write_ok "$CPU1" "$1"
	assert_file_eq "$CPU1" "$1"
}

cleanup() {
	release_sleeper
	[ "$(cat "$CPU1" 2>/dev/null)" = 0 ] || return 0
	write_sysfs 1 "$CPU1" || echo "cannot bring cpu1 back online" >&2
}

possible=$(cat /sys/devices/system/cpu/possible)
online=$(cat /sys/devices/system/cpu/online)
info "possible CPUs $possible, online $online"
if [ "$(count_cpus "$possible")" -le "$(count_cpus "$online")" ]; then
	die "needs more possible than online CPUs (vm/run.sh boots test guests with -smp 3 and maxcpus=2): possible $possible, online $online"
fi
[ -w "$CPU1" ] || die "cpu1 cannot be taken offline ($CPU1)"
assert_file_eq "$CPU1" 1
trap cleanup EXIT
trap 'exit 1' INT TERM
orig=$(cat /proc/cmdline)

klpc_core_load
# a transition with a possible CPU that never came online
load klpc-sample
wait_transition_within klpc_sample 10
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline patched"

# one with a CPU taken offline before it
cpu1 0
expect_write_ok "$(patch_dir klpc_sample)/enabled" 0
wait_transition_within klpc_sample 10
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
unload klpc-sample

# a CPU coming online, going offline and online again during a transition
# that started with it offline
load klpc-cm-target
start_sleeper
trap cleanup EXIT
sleeper=$SLEEPER
dmesg_mark
load klpc-cm-patch
sleep 1
[ "$(cat "$(patch_dir klpc_cm_patch)/transition")" = 1 ] ||
	die "the sleeper did not block the transition: stats: $(tr '\n' ' ' </proc/klpc/stats); sleeper's stack: $(tr '\n' ' ' <"/proc/$sleeper/stack"); kernel log: $(dmesg_since_mark | tr '\n' ';')"
cpu1 1
sleep 0.5
cpu1 0
sleep 0.5
cpu1 1
sleep 0.5
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition_within klpc_cm_patch 10
assert_eq 0 "$(cm_mismatches)" "mismatches"

# and back, with every CPU that can be online online
expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 0
wait_transition_within klpc_cm_patch 10
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
