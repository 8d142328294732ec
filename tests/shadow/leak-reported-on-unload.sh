#!/bin/sh
# was t-63-shadow-leak-unload
# Shadow variables a patch module never frees are reported when klpc.ko
# unloads: one warning with their count (and no WARNING splat); a klpc.ko
# loaded afterwards starts empty.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-shadow.sh
. "${0%/*}/../lib-shadow.sh"

klpc_core_load
load klpc-test-shadow-bad leak=5
expect_fail rmmod klpc
unload klpc-test-shadow-bad
dmesg_mark
unload klpc
lines=$(klpc_shadow_lines)
info "$lines"
assert_eq 1 "$(count_lines "$lines")" "klpc's lines at unload"
printf '%s\n' "$lines" | grep -Eq '^klpc: 5 shadow variable\(s\) never freed' ||
	die "no warning with the count 5: $lines"

# a new klpc.ko starts empty: it reports 2 at unload, not 7
klpc_core_load
load klpc-test-shadow-bad leak=2
unload klpc-test-shadow-bad
dmesg_mark
unload klpc
lines=$(klpc_shadow_lines)
assert_eq 1 "$(count_lines "$lines")" "klpc's lines at the second unload"
printf '%s\n' "$lines" | grep -Eq '^klpc: 2 shadow variable\(s\) never freed' ||
	die "no warning with the count 2: $lines"
