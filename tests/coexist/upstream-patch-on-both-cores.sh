#!/bin/sh
# was t-84-upstream-both-cores
# One upstream livepatch source (sample-patches/klp-upstream-sample.c),
# built as it is and with <klpc-compat.h> in place of <linux/livepatch.h>,
# both converted by klpc-convert, loaded in one boot: first on the
# kernel's built-in livepatch (whose module loader must accept the
# converted layout and apply its .klp.rela.vmlinux section), then, the
# built-in patch disabled (6.1 then frees it; its module stays loaded:
# one ftrace owner per function), on klpc. Both make /proc/version read the same.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

LP=/sys/kernel/livepatch/klp_upstream_sample
want='^upstream-sample: uptime [0-9]+\.[0-9]+ [0-9]+\.[0-9]+$'
version=$(cat /proc/version)

builtin_done() {
	[ "$(cat $LP/transition)" = 0 ]
}

builtin_gone() {
	[ ! -e $LP ]
}

# check_version CORE: /proc/version as the sample makes it
check_version() {
	_line=$(cat /proc/version)
	info "$1: /proc/version: $_line"
	echo "$_line" | grep -Eq "$want" || die "$1: /proc/version: '$_line'"
}

for m in klp-upstream-sample klpc-upstream-sample; do
	ko=$KLPC_MODDIR/$m.ko
	[ "$(modinfo -F livepatch "$ko")" = Y ] || die "$ko: no livepatch=Y"
done

# the built-in livepatch
load klp-upstream-sample
wait_until 60 builtin_done || die "the built-in patch's transition did not end"
assert_file_eq $LP/enabled 1
assert_exists /sys/module/klp_upstream_sample/sections/.klp.rela.vmlinux..text
check_version livepatch
echo 0 >$LP/enabled
wait_until 60 builtin_gone || die "the built-in patch was not freed after its disable"
assert_eq "$version" "$(cat /proc/version)" "/proc/version after the built-in disable"

# klpc, with the built-in one still loaded
klpc_core_load
load klpc-upstream-sample
wait_transition klpc_upstream_sample
assert_exists /sys/module/klpc_upstream_sample/sections/.klp.rela.vmlinux..text
is_loaded klp_upstream_sample || die "klp_upstream_sample is no longer loaded"
check_version klpc
disable_patch klpc_upstream_sample
assert_eq "$version" "$(cat /proc/version)" "/proc/version after the klpc disable"
unload klpc-upstream-sample
unload klp-upstream-sample
