#!/bin/sh
# was t-88-a-cli-basics
# The klpc command without the core: help, usage errors, status/list/
# blocking with klpc.ko not loaded (exit 3), every root-only command
# refused to a user, klpc.ko missing; the refusals are logged.
# klpc-timeout: 300
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

! is_loaded klpc || die "klpc.ko is loaded at the start"
sample=$(ko klpc-sample)

cli 0 --help
out_has '^usage: klpc COMMAND'
out_has 'status \[--json\]'
cli 0 load --help
out_has '^usage: klpc COMMAND'
cli 0 --version
out_has '^klpc [0-9]'
cli 3
cli 3 frobnicate
out_has "unknown command 'frobnicate'"
cli 3 load
out_has 'load: which patch'
cli 3 load "$sample" --wait soon
out_has "'soon' is not a number of seconds"
cli 3 load "$sample" "$sample"
out_has 'one patch at a time'
cli 3 status --bogus
out_has "unknown argument '--bogus'"

# no core: status 3, in text and JSON; list works; blocking cannot
cli 3 status
out_has '^core: +klpc.ko is not loaded'
out_has '^state: +no-core'
cli 3 status --json
assert_json state no-core
assert_json exit 3
assert_json core.loaded false
assert_json patches.# 0
assert_json transition null
cli 0 list
out_has 'klpc.ko is not loaded'
cli 0 list --json -v
assert_json core_loaded false
assert_json patches.# 0
cli 3 blocking
out_has 'klpc.ko is not loaded'
cli 3 blocking --json
cli 3 enable klpc_sample
out_has "no patch 'klpc_sample': klpc.ko is not loaded"
cli 3 info klpc_nosuch
out_has "no patch 'klpc_nosuch'"

# a user: read-only commands work, the others say they need root
cli_nobody 3 status
grep -q '^state: *no-core' "$OUT" || die "status as nobody: $(cat "$OUT")"
for args in "load $sample" "unload klpc_sample" "enable klpc_sample" \
	"disable klpc_sample" "force klpc_sample --yes" "install $sample" \
	"uninstall klpc_sample" "boot"; do
	# shellcheck disable=SC2086 # the arguments are words
	cli_nobody 3 $args
	grep -q "'klpc ${args%% *}' needs root: run it with sudo" "$OUT" ||
		die "klpc $args as nobody: $(cat "$OUT")"
done
! is_loaded klpc || die "a refused command loaded klpc.ko"

# klpc.ko missing: a wrong KLPC_CORE, and no klpc module anywhere
dmesg_mark
core=$KLPC_CORE
KLPC_CORE=/nonexistent/klpc.ko
cli 3 load "$sample"
out_has 'klpc.ko is missing: /nonexistent/klpc.ko does not exist'
klog_has 'action=load patch=klpc_sample result=failed detail="klpc.ko is missing'
KLPC_CORE=
cli 3 load "$sample"
out_has "klpc.ko is missing: no klpc module for kernel $KVER_RE"
out_has 'install klpc-dkms'
! is_loaded klpc || die "klpc.ko got loaded"
! is_loaded klpc_sample || die "klpc_sample got loaded"
KLPC_CORE=$core
