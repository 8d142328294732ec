#!/bin/sh
# was t-80-extern-sample
# The klpc-convert sample: patched code calls uptime_proc_show(), a static
# function of vmlinux, by name. klpc-convert made that call a
# .klp.rela.vmlinux..text relocation, which the kernel's own module loader
# resolves and applies at load (6.1); the module carries livepatch=Y and a
# build record naming the running kernel's build ID.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

ko=$KLPC_MODDIR/klpc-sample-extern.ko
[ "$(modinfo -F livepatch "$ko")" = Y ] || die "$ko: no livepatch=Y in its modinfo"
# the build ID in /sys/kernel/notes (owner GNU, type 3): also in the record
kid=$(od -An -v -tx1 /sys/kernel/notes | tr -d ' \n' |
	sed -n 's/.*040000001400000003000000474e5500\([0-9a-f]\{40\}\).*/\1/p')
[ -n "$kid" ] || die "no GNU build ID in /sys/kernel/notes"
od -An -v -tx1 "$ko" | tr -d ' \n' | grep -q "$kid" ||
	die "$ko does not record the running kernel's build ID $kid"
info "record names build ID $kid"

version=$(cat /proc/version)
klpc_core_load
load klpc-sample-extern
[ -e /sys/module/klpc_sample_extern/sections/.klpc.record ] ||
	die "no .klpc.record section in the loaded module"
wait_transition klpc_sample_extern
line=$(cat /proc/version)
info "/proc/version: $line"
echo "$line" | grep -Eq '^klpc-sample-extern: uptime [0-9]+\.[0-9]+ [0-9]+\.[0-9]+$' ||
	die "/proc/version does not show the uptime: '$line'"
disable_patch klpc_sample_extern
assert_eq "$version" "$(cat /proc/version)" "/proc/version after disable"
unload klpc-sample-extern
