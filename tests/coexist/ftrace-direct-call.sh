#!/bin/sh
# was t-26-direct-call
# A function with an ftrace direct call (a BPF fentry/fexit/fmod_ret
# trampoline; here klpc-test-direct's, which like a BPF trampoline calling
# the original always runs the original body) cannot be patched: the call
# would bypass the patch while its 'enabled' read 1.  The patch fails with
# EBUSY and one log line naming patch and function, leaving nothing
# behind; once the direct call is gone it loads and works.  The other way
# round, with the patch loaded, ftrace itself refuses the direct call
# (EBUSY: register_ftrace_direct() cannot share an IPMODIFY function) and
# the patch stays live.  A disabled patch cannot be enabled again through
# sysfs under a direct call either.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

p=klpc_sample
d=$(patch_dir $p)
orig=$(cat /proc/cmdline)
busy_line="klpc: patch '$p': object 'vmlinux': function 'cmdline_proc_show' has an ftrace direct call"

direct_hits() {
	cat /sys/module/klpc_test_direct/parameters/hits
}

# assert_direct_runs: a read of /proc/cmdline goes through the trampoline
# and shows the original command line.
assert_direct_runs() {
	_before=$(direct_hits)
	assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline under the direct call"
	_after=$(direct_hits)
	[ "$_after" -gt "$_before" ] ||
		die "trampoline hits did not grow on a read of /proc/cmdline: $_before, then $_after"
}

# assert_one_busy_line: exactly one klpc line since the mark names the
# patch and the function.
assert_one_busy_line() {
	_n=$(dmesg_since_mark | grep -c "klpc: patch '$p'.*'cmdline_proc_show'" || true)
	assert_eq 1 "$_n" "klpc lines naming $p and cmdline_proc_show"
	assert_dmesg_has "$busy_line"
}

klpc_core_load

# direct call first, patch second: refused
dmesg_mark
load klpc-test-direct
assert_dmesg_has "klpc_test_direct: direct call attached to 'cmdline_proc_show'"
assert_direct_runs
dmesg_mark
if ! (expect_load_error EBUSY klpc-sample); then
	# say what the patch that should not be there looks like
	die "klpc-sample under a direct call: enabled '$(cat "$d/enabled" 2>&1)', transition '$(cat "$d/transition" 2>&1)', /proc/cmdline '$(cat /proc/cmdline)' (original '$orig'), trampoline hits $(direct_hits)"
fi
assert_one_busy_line
assert_not_exists "$d"
assert_direct_runs
unload klpc-test-direct
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline without the direct call"

# without the direct call the patch works
load klpc-sample
wait_transition $p
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline patched"

# patch first, direct call second: ftrace refuses the direct call
dmesg_mark
expect_load_error EBUSY klpc-test-direct
assert_dmesg_has "klpc_test_direct: cannot attach a direct call to 'cmdline_proc_show' \(-16\)"
assert_file_eq "$d/enabled" 1
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline after the refused direct call"

# a disabled patch is not enabled again under a direct call
disable_patch $p
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
load klpc-test-direct
dmesg_mark
expect_write_error "$d/enabled" 1 EBUSY
assert_one_busy_line
assert_file_eq "$d/enabled" 0
assert_file_eq "$d/transition" 0
assert_direct_runs
unload klpc-test-direct

enable_patch $p
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline enabled again"
disable_patch $p
unload klpc-sample
unload klpc
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline at the end"
