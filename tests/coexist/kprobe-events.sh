#!/bin/sh
# was t-4a-coexist-kprobe-events
# kprobes and kretprobes made through tracefs's kprobe_events on the
# functions klpc patches (they use ftrace without IPMODIFY: both work): the
# probes first, klpc first, and during a transition a sleeper holds. The
# probes keep firing whichever version runs, the patched code runs, a
# probe on the new function fires only while the patch is enabled, a
# kretprobe sees the new function return, and the caller/callee pair the
# transition changes counts no mismatch. (A kprobe with a post handler,
# which takes IPMODIFY: parity/kprobe-post-handler and
# parity/kprobe-post-handler-stacked.)
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-coexist.sh
. "${0%/*}/../lib-coexist.sh"

orig=$(cat /proc/cmdline)
read_cmdline='cat /proc/cmdline'
klpc_core_load
coexist_setup

# the probes first
probe_add 'p:klpc_kp cmdline_proc_show' "r:klpc_krp cmdline_proc_show \$retval"
assert_probes_fire 1 "$read_cmdline" klpc_kp klpc_krp
load klpc-sample
wait_transition klpc_sample
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "patched under the probes"
echo >$T/trace
assert_probes_fire 3 "$read_cmdline; $read_cmdline; $read_cmdline" klpc_kp klpc_krp
# $retval prints as 0x0 on 6.1, as 0 on 6.12 (typed from BTF there)
grep -Eq 'klpc_krp: \(seq_read_iter\+[0-9a-fx/]* <- cmdline_proc_show\) arg1=(0x0|0)$' $T/trace ||
	die "no kretprobe event for the patched function: $(grep klpc_krp $T/trace | tail -n 2)"
disable_patch klpc_sample
assert_eq "$orig" "$(cat /proc/cmdline)" "unpatched under the probes"
assert_probes_fire 1 "$read_cmdline" klpc_kp klpc_krp
probes_clear

# klpc first; a probe on the new function too
enable_patch klpc_sample
probe_add 'p:klpc_kp cmdline_proc_show' 'r:klpc_krp cmdline_proc_show' \
	'p:klpc_kpnew klpc_sample:klpc_sample_cmdline_proc_show'
assert_probes_fire 2 "$read_cmdline; $read_cmdline" klpc_kp klpc_krp klpc_kpnew
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "patched with the probes added"
disable_patch klpc_sample
assert_probes_fire 1 "$read_cmdline" klpc_kp klpc_krp
h=$(probe_hits klpc_kpnew)
cat /proc/cmdline >/dev/null
assert_eq "$h" "$(probe_hits klpc_kpnew)" "the new function's probe while disabled"
enable_patch klpc_sample
assert_probes_fire 1 "$read_cmdline" klpc_kpnew
probes_clear
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "patched after the probes went"
disable_patch klpc_sample
unload klpc-sample

# during a transition: probes on the pair it changes and on the
# function the sleeper holds, added, firing and removed meanwhile
load_cm_patch_blocked
sleeper=$SLEEPER
probe_add 'p:klpc_kpc klpc_cm_target:klpc_cm_caller' \
	"r:klpc_krpc klpc_cm_target:klpc_cm_callee \$retval" \
	'p:klpc_kps klpc_cm_target:klpc_cm_sleeper'
assert_probes_fire 100 'cat /proc/klpc_cm' klpc_kpc klpc_krpc
assert_eq 0 "$(cm_mismatches)" "mismatches under the probes, in transition"
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "the sleeper no longer blocks: $(tasks_blocking)"
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
assert_probes_fire 1 'cat /proc/klpc_cm_sleep' klpc_kps
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "the sleeper's function under a probe"
assert_probes_fire 100 'cat /proc/klpc_cm' klpc_kpc klpc_krpc
# a reversal with the probes on
start_sleeper
sleeper=$SLEEPER
expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 0
sleep 1
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
assert_probes_fire 100 'cat /proc/klpc_cm' klpc_kpc klpc_krpc
expect_write_ok "$(patch_dir klpc_cm_patch)/enabled" 1
wait_transition klpc_cm_patch
probes_clear
assert_eq 0 "$(cm_mismatches)" "mismatches at the end"
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
