#!/bin/sh
# was t-29-stall-reverse-overflow
# klpc.stall_reverse_secs=17179870: times HZ (250) that overflows 32 bits
# to about 0.8 s.  A stalled transition must not be reversed after a
# few seconds.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

! is_loaded klpc || unload klpc
load klpc stall_reverse_secs=17179870
assert_file_eq /sys/module/klpc/parameters/stall_reverse_secs 17179870
load klpc-cm-target
start_sleeper
sleeper=$SLEEPER
dmesg_mark
load klpc-cm-patch
d=$(patch_dir klpc_cm_patch)
sleep 3
if dmesg_since_mark | grep -q "reversing"; then
	die "a stall limit of 17179870 s reversed the transition within 3 s: $(dmesg_since_mark | grep "klpc_cm_patch" | tr '\n' ';')"
fi
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/transition" 1
tasks_blocking | grep -q "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "the sleeper does not block any more: $(blocking_summary)"

write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition_within klpc_cm_patch 10
assert_file_eq "$d/enabled" 1
expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 0
wait_transition_within klpc_cm_patch 10
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
