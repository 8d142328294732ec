#!/bin/sh
# was t-2b-contain-sysfs
# Containment of klpc's writable files: nobody, root of a user namespace
# (made by a user or by root, with or without its own sysfs mount) and a
# root without CAP_SYS_MODULE cannot write 'enabled', 'force' or klpc's
# module parameters, with a patch settled and during a transition: the
# write fails with EACCES or EPERM and nothing changes. Where klpc itself
# refuses (the file's owner without the capability), one kernel log line
# names the patch and the file.
# klpc-timeout: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-contain.sh
. "${0%/*}/../lib-contain.sh"

params=/sys/module/klpc/parameters

# refuse_all PATCH VALUE...: every context fails to write each VALUE to
# PATCH's enabled and force, and to the module parameters
refuse_all() {
	_p=$(patch_dir "$1")
	shift
	for ctx in $KLPC_CONTEXTS; do
		for v in "$@"; do
			expect_ctx_refused "$ctx" "$_p/enabled" "$v"
			expect_ctx_refused "$ctx" "$_p/force" "$v"
		done
		expect_ctx_refused "$ctx" "$params/signal_secs" 3
		expect_ctx_refused "$ctx" "$params/stall_reverse_secs" 3
	done
}

# klpc_refusals: how many refusals klpc logged since the mark
klpc_refusals() {
	dmesg_since_mark | grep -c "klpc: .* without CAP_SYS_MODULE" || true
}

klpc_core_load
load klpc-sample
wait_transition klpc_sample
d=$(patch_dir klpc_sample)
sig=$(cat $params/signal_secs)

# settled
dmesg_mark
refuse_all klpc_sample 0 1
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/transition" 0
assert_file_eq "$d/forced" 0
assert_file_eq $params/signal_secs "$sig"
assert_file_eq $params/stall_reverse_secs 0
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline after the refused writes"
n=$(klpc_refusals)
info "klpc logged $n refusals"
[ "$n" -gt 0 ] || die "klpc logged no refusal: $(dmesg_since_mark | tail -n 5)"
bad=$(dmesg_since_mark | grep "without CAP_SYS_MODULE" |
	grep -Ev "klpc: (patch 'klpc_sample': '(enabled|force)'|parameter '(signal_secs|stall_reverse_secs)'): written by " || true)
[ -z "$bad" ] || die "refusal lines that name no patch or file: $bad"
disable_patch klpc_sample
refuse_all klpc_sample 1
assert_file_eq "$d/enabled" 0
assert_eq "$(cat /sys/kernel/klpc/klpc_sample/vmlinux/patched)" 0 "patched after the refused enables"
unload klpc-sample

# during a transition a sleeper holds: neither force nor reverse
load_cm_patch_blocked
sleeper=$SLEEPER
refuse_all klpc_cm_patch 0 1
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
assert_file_eq "$(patch_dir klpc_cm_patch)/enabled" 1
assert_file_eq "$(patch_dir klpc_cm_patch)/forced" 0
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "the sleeper no longer blocks: $(tasks_blocking)"
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "the patch completed"
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
