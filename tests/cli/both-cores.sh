#!/bin/sh
# was t-88-e-cli-both-cores
# klpc list/status show the built-in livepatch's patches too, and flag a
# function that patches of both cores claim (klpc-sample registered but
# disabled, the built-in sample enabled on the same function); klpc's
# commands refuse a built-in patch by name, and report the core's refusal
# to enable a function the built-in owns.
# klpc-timeout: 300
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

builtin_done() {
	[ "$(cat /sys/kernel/livepatch/klp_builtin_sample/transition)" = 0 ]
}

cli 0 load "$(ko klpc-sample)"
cli 0 disable klpc_sample
load klp-builtin-sample
wait_until 30 builtin_done || die "the built-in patch's transition did not end"

cli 0 list -v
out_has '^klpc_sample +klpc +disabled'
out_has '^klp_builtin_sample +livepatch +enabled'
out_has '^    vmlinux: cmdline_proc_show,1 \(object patched: 0\)  \[patched by livepatch too\]$'
out_has '^    vmlinux: cmdline_proc_show,1 \(object patched: 1\)  \[patched by klpc too\]$'
cli 0 list -v --json
assert_json patches.# 2
assert_json patches.name=klp_builtin_sample.core livepatch
assert_json patches.name=klp_builtin_sample.enabled true
assert_json patches.name=klp_builtin_sample.functions.0.both_cores true
assert_json patches.name=klpc_sample.functions.0.both_cores true
assert_json patches.name=klpc_sample.functions.0.object_patched false
cli 0 status
out_has 'klp_builtin_sample \(livepatch\): enabled'
cli 0 status --json
assert_json patches.name=klp_builtin_sample.core livepatch
assert_json livepatch_transition null

cli 3 enable klp_builtin_sample
out_has "'klp_builtin_sample' is a patch of the kernel's built-in livepatch, not of klpc"
cli 3 enable klpc_sample
out_has "cannot enable 'klpc_sample': Device or resource busy"
out_has "kernel: klpc: .*'cmdline_proc_show' is already redirected"
