#!/bin/sh
# was t-87-a-build-cmdline
# klpc build: a module made from tests/fixes/cmdline.patch (a diff of
# fs/proc/cmdline.c) loads with 'klpc load', is checked against the
# running kernel, patches /proc/cmdline, and unloading restores it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

ko=$KLPC_MODDIR/klpc-build-cmdline.ko
[ -f "$ko" ] || skip "no klpc-build-cmdline.ko: klpc build targets installed Debian headers only (tools/build-patches.sh)"
orig=$(cat /proc/cmdline)
klpc_core_load
load klpc-build-cmdline
wait_transition klpc_build_cmdline
assert_eq "klpc build: $orig" "$(cat /proc/cmdline)" "/proc/cmdline"
assert_file_eq "$KLPC_SYSFS/klpc_build_cmdline/checked" yes
assert_file_eq "$KLPC_SYSFS/klpc_build_cmdline/vmlinux/patched" 1
modinfo -F klpc_desc "$ko" | grep -q '^proc: /proc/cmdline says it was patched by klpc build$' ||
	die "the description is not the diff's Subject: $(modinfo -F klpc_desc "$ko")"
disable_patch klpc_build_cmdline
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after disable"
unload klpc-build-cmdline
