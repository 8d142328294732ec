#!/bin/sh
# was t-88-b-cli-load
# klpc load/disable/enable/unload of klpc-sample: loads klpc.ko first,
# waits for the transition, status/list/info show it (text and JSON), each
# action logs one line; the error cases: a patch already loaded, no such
# patch, a file that is no module, a module that is no klpc patch, a
# built-in livepatch module, a vermagic mismatch, a refusal by the core.
# klpc-timeout: 300
# klpc-weight: 210
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

orig=$(cat /proc/cmdline)
dmesg_mark
cli 0 load "$(ko klpc-sample)"
out_has 'loaded the core'
out_has '^klpc: klpc_sample: enabled$'
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline"
klog_has '^\[[^]]*\] klpc\[[0-9]+\]: user=root uid=0 auid=[^ ]+ action=load-core patch=klpc result=ok'
klog_has 'action=load patch=klpc_sample result=ok$'

cli 0 status
out_has '^core: +loaded \(version [0-9][0-9.]*, srcversion [0-9A-F]{10,},'
out_has 'klpc_sample \(klpc\): enabled'
out_has '^last: +klpc_sample complete'
out_has '^state: +settled'
cli 0 status --json
assert_json state settled
assert_json exit 0
assert_json core.loaded true
assert_json core.signal_secs 15
assert_json core.version "$(cat /sys/module/klpc/version)"
assert_json patches.name=klpc_sample.core klpc
assert_json patches.name=klpc_sample.enabled true
assert_json patches.name=klpc_sample.transition false
assert_json last_transition.patch klpc_sample
assert_json last_transition.end complete
assert_json transition null

cli 0 list -v
out_has '^klpc_sample +klpc +enabled +0 +0'
out_has '^    vmlinux: cmdline_proc_show,1 \(object patched: 1\)$'
cli 0 list --json -v
assert_json patches.# 1
assert_json patches.0.functions.0.function cmdline_proc_show
assert_json patches.0.functions.0.object vmlinux
assert_json patches.0.functions.0.sympos 1
assert_json patches.0.functions.0.both_cores false
cli 0 list --json
assert_json patches.0.functions missing

# info by name (klpc load noted the file) and by file
cli 0 info klpc_sample
out_has '^state: +enabled'
out_has '^cve: +.*CVE-0000-0001'
out_has '^fixes: +/proc/cmdline reads a fixed line'
out_has '^signed: +no'
out_has 'klpc_ref: +https://example.org/klpc/sample'
cli 0 info --json "$(ko klpc-sample)"
assert_json name klpc_sample
assert_json cve.# 2
assert_json cve.0 CVE-0000-0002
assert_json ref.0 https://example.org/klpc/sample
assert_json signed false
assert_json state enabled

# errors
cli 3 load "$(ko klpc-sample)"
out_has "patch 'klpc_sample' is already loaded \(enabled\)"
cli 3 enable klpc_nosuch
out_has "no patch 'klpc_nosuch' \(klpc list shows the patches\)"
cli 3 disable klpc_nosuch
cli 3 unload klpc_nosuch
cli 3 force klpc_nosuch --yes
out_has "no patch 'klpc_nosuch'"
cli 3 load /nonexistent.ko
out_has '/nonexistent.ko: no such file'
echo "not a module" >"$KLPC_TMP/junk.ko"
cli 3 load "$KLPC_TMP/junk.ko"
out_has 'not a kernel module'
cli 3 load "$(ko klpc-target)"
out_has 'is not a klpc patch module'
cli 3 load "$(ko klp-builtin-sample)"
out_has "a patch for the kernel's built-in livepatch, not for klpc: load it with insmod"
fake_vermagic klpc-sample-stack "$KLPC_TMP/stack.ko"
dmesg_mark
cli 3 load "$KLPC_TMP/stack.ko"
out_has "is built for kernel 9\.[^ ]+ \(vermagic '9\..*'\), not for $KVER_RE: rebuild it against linux-headers-$KVER_RE"
klog_has 'action=load patch=klpc_sample_stack result=failed detail=".*is built for kernel 9\.'
! is_loaded klpc_sample_stack || die "a module with another vermagic was loaded"

# disable, enable again, refusals by the core, unload
dmesg_mark
cli 0 disable klpc_sample
out_has '^klpc: klpc_sample: disabled$'
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
klog_has 'action=disable patch=klpc_sample result=ok$'
cli 0 disable klpc_sample
out_has 'already disabled'
# the core refuses a patch above a disabled one: klpc shows its reason,
# also once the kernel's ring buffer is full (it used to count lines)
fill_kernel_log
cli 3 load "$(ko klpc-sample-stack)"
out_has "cannot load .*klpc-sample-stack.ko"
out_has "kernel: klpc: patch 'klpc_sample_stack': cannot enable, patch 'klpc_sample' below it is disabled"
cli 0 enable klpc_sample
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline enabled again"
cli 0 load "$(ko klpc-sample-stack)"
assert_eq "$KLPC_STACK_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline, two patches"
cli 3 disable klpc_sample
out_has "cannot disable 'klpc_sample'"
out_has "kernel: klpc: patch 'klpc_sample': cannot disable, patch 'klpc_sample_stack' above it is enabled"
dmesg_mark
cli 0 unload klpc_sample_stack
out_has 'klpc_sample_stack: unloaded'
klog_has 'action=unload patch=klpc_sample_stack result=ok$'
cli 0 unload klpc_sample
! is_loaded klpc_sample || die "klpc_sample still loaded"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline at the end"
cli 0 status
out_has '^patches: +none'
cli_times
