#!/bin/sh
# was t-4b-coexist-tracers
# The function and function_graph tracers on the functions klpc patches
# (ftrace without IPMODIFY: both work): the tracer first, klpc first, and
# during a transition a sleeper holds, the tracer switched and every
# function traced for a moment. The old function's entry is traced
# whichever version runs, the new function is traced only while the patch
# is enabled, the patched text is what /proc/cmdline shows, and the
# caller/callee pair the transition changes counts no mismatch.
# klpc-timeout: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-coexist.sh
. "${0%/*}/../lib-coexist.sh"

orig=$(cat /proc/cmdline)
read_cmdline='cat /proc/cmdline'
new=klpc_sample_cmdline_proc_show
klpc_core_load
coexist_setup

for tracer in function function_graph; do
	info "tracer $tracer first"
	tracer_set $tracer cmdline_proc_show
	load klpc-sample
	wait_transition klpc_sample
	assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "patched under $tracer"
	assert_traced cmdline_proc_show "$read_cmdline"
	disable_patch klpc_sample
	assert_eq "$orig" "$(cat /proc/cmdline)" "unpatched under $tracer"
	assert_traced cmdline_proc_show "$read_cmdline"
	tracer_off

	info "klpc first, then $tracer"
	enable_patch klpc_sample
	tracer_set $tracer cmdline_proc_show $new
	assert_traced $new "$read_cmdline"
	assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "patched, then $tracer"
	disable_patch klpc_sample
	assert_not_traced $new "$read_cmdline"
	assert_traced cmdline_proc_show "$read_cmdline"
	enable_patch klpc_sample
	assert_traced $new "$read_cmdline"
	tracer_off
	assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "patched after $tracer"
	disable_patch klpc_sample
	unload klpc-sample
done

info "during a transition"
load_cm_patch_blocked
sleeper=$SLEEPER
pair='klpc_cm_caller klpc_cm_callee klpc_cm_caller_v2 klpc_cm_callee_v2'
for tracer in function function_graph; do
	# shellcheck disable=SC2086 # a list of function names
	tracer_set $tracer $pair klpc_cm_sleeper
	assert_traced klpc_cm_caller 'cat /proc/klpc_cm'
	assert_eq 0 "$(cm_mismatches)" "mismatches under $tracer, in transition"
done
info "every function traced, in transition"
tracer_set function
cat /proc/klpc_cm >/dev/null
tracer_off
assert_eq 0 "$(cm_mismatches)" "mismatches with every function traced"
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "the sleeper no longer blocks: $(tasks_blocking)"
# shellcheck disable=SC2086
tracer_set function_graph $pair klpc_cm_sleeper klpc_cm_sleeper_v2
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
assert_traced klpc_cm_caller_v2 'cat /proc/klpc_cm'
assert_traced klpc_cm_sleeper_v2 'cat /proc/klpc_cm_sleep'
tracer_off
assert_eq 0 "$(cm_mismatches)" "mismatches at the end"
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
