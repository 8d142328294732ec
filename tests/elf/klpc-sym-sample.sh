#!/bin/sh
# was t-80-syms-sample
# The klpc_sym sample: patched code calls uptime_proc_show(), a static
# function of vmlinux, through an address klpc resolved before enabling.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

version=$(cat /proc/version)
klpc_core_load
load klpc-sample-syms
wait_transition klpc_sample_syms
line=$(cat /proc/version)
info "/proc/version: $line"
echo "$line" | grep -Eq '^klpc-sample-syms: uptime [0-9]+\.[0-9]+ [0-9]+\.[0-9]+$' ||
	die "/proc/version does not show the uptime: '$line'"
disable_patch klpc_sample_syms
assert_eq "$version" "$(cat /proc/version)" "/proc/version after disable"
unload klpc-sample-syms
