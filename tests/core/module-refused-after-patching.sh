#!/bin/sh
# was t-17-coming-refused
# A module whose load a later COMING notifier refuses, after klpc patched
# it, must not stay patched: the object is unbound again, and the next load
# of that module is patched anew.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

REFUSED=/sys/module/klpc_test_refuse/parameters/refused

klpc_core_load
! is_loaded klpc-target || die "klpc_target is loaded already"
load klpc-sample-mod
wait_transition_within klpc_sample_mod 10
d=$(patch_dir klpc_sample_mod)
assert_file_eq "$d/klpc_target/patched" 0

load klpc-test-refuse target=klpc_target
dmesg_mark
expect_load_error EBUSY klpc-target
assert_file_eq "$REFUSED" 1
assert_dmesg_has "klpc_test_refuse: refusing module 'klpc_target'"
info "kernel log of the refused load:"
dmesg_since_mark | grep -E 'klpc|refus' || true
assert_file_eq "$d/klpc_target/patched" 0
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/transition" 0

# loaded again (no more refusals), the module is patched as it loads
dmesg_mark
load klpc-target
assert_file_eq "$REFUSED" 1
assert_dmesg_has "klpc: applying patch 'klpc_sample_mod' to loading module 'klpc_target'"
assert_file_eq "$d/klpc_target/patched" 1
assert_eq "patched by klpc" "$(target_field message)" "klpc_target patched"

expect_write_ok "$(patch_dir klpc_sample_mod)/enabled" 0
wait_transition_within klpc_sample_mod 10
assert_file_eq "$d/klpc_target/patched" 0
assert_eq original "$(target_field message)" "klpc_target after disable"
unload klpc-target
unload klpc-test-refuse
unload klpc-sample-mod
unload klpc
