#!/bin/sh
# was t-87-f-build-cumulative
# klpc build makes cumulative patches by default (atomic replace, as
# kpatch's and upstream klp-build's are): klpc-build-cmdline
# (tests/fixes/cmdline.patch) loaded, then klpc-build-cumulative
# (tests/fixes/cumulative.series: the same fix and one of /proc/version,
# two diffs built into one module) over it.  The first is retired
# (enabled 0; its module can go while the second stays), both fixes are
# live, and disabling the cumulative patch gives back the original
# /proc/cmdline and /proc/version.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

one=klpc_build_cmdline
cum=klpc_build_cumulative
for m in klpc-build-cmdline klpc-build-cumulative; do
	[ -f "$KLPC_MODDIR/$m.ko" ] ||
		skip "no $m.ko: klpc build targets installed Debian headers only (tools/build-patches.sh)"
done
cmdline=$(cat /proc/cmdline)
version=$(cat /proc/version)

# fixes CMDLINE VERSION WHEN: /proc/cmdline and /proc/version read so
fixes() {
	assert_eq "$1" "$(cat /proc/cmdline)" "/proc/cmdline $3"
	assert_eq "$2" "$(cat /proc/version)" "/proc/version $3"
}

klpc_core_load
load klpc-build-cmdline
wait_transition $one
fixes "klpc build: $cmdline" "$version" "with the first fix"
modinfo -F klpc_desc "$KLPC_MODDIR/klpc-build-cumulative.ko" |
	grep -q '(and 1 more)$' ||
	die "the cumulative module's description does not count its second diff"

load klpc-build-cumulative
wait_transition $cum
assert_file_eq "$(patch_dir $one)/enabled" 0
assert_file_eq "$(patch_dir $cum)/enabled" 1
fixes "klpc build: $cmdline" "klpc build, cumulative: $version" "with the cumulative patch"

# the retired patch goes; the cumulative one keeps both fixes
unload klpc-build-cmdline
fixes "klpc build: $cmdline" "klpc build, cumulative: $version" "after the first patch's module went"

disable_patch $cum
fixes "$cmdline" "$version" "after disabling the cumulative patch"
unload klpc-build-cumulative
