#!/bin/sh
# was t-81-syms-table
# klpc_sym tables: a static function picked by sympos and static data
# of a module are reached from patched code; an ambiguous or missing
# symbol fails the load, or refuses the load of a module patched later,
# with one message naming the patch and the symbol.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-target
assert_eq 7 "$(target_field secret)" "klpc_target's secret"

load klpc-test-syms sym=klpc_target_dup sympos=2
wait_transition klpc_test_syms
assert_eq sym=2 "$(target_field message)" "static function at sympos 2"
disable_patch klpc_test_syms
unload klpc-test-syms

load klpc-test-syms sym=klpc_target_secret data=1
wait_transition klpc_test_syms
assert_eq sym=7 "$(target_field message)" "static data"
disable_patch klpc_test_syms
unload klpc-test-syms

dmesg_mark
expect_load_error EINVAL klpc-test-syms sym=klpc_target_dup
assert_dmesg_has "klpc: patch 'klpc_test_syms': object 'klpc_target': symbol 'klpc_target_dup' is ambiguous, set its sympos \(-22\)"
expect_load_error ENOENT klpc-test-syms sym=klpc_target_dup sympos=3
assert_dmesg_has "symbol 'klpc_target_dup' not found at that sympos \(-2\)"
expect_load_error ENOENT klpc-test-syms sym=klpc_no_such_symbol
assert_dmesg_has "klpc: patch 'klpc_test_syms': object 'klpc_target': symbol 'klpc_no_such_symbol' not found \(-2\)"
assert_not_exists "$(patch_dir klpc_test_syms)"
assert_eq original "$(target_field message)" "after failed loads"

# the module loads later: its load is refused, the patch stays as it was
unload klpc-target
load klpc-test-syms sym=klpc_no_such_symbol
wait_transition klpc_test_syms
dmesg_mark
expect_load_fail klpc-target
assert_dmesg_has "symbol 'klpc_no_such_symbol' not found"
assert_dmesg_has "klpc: patch 'klpc_test_syms' failed for module 'klpc_target', refusing to load module 'klpc_target'"
assert_file_eq "$(patch_dir klpc_test_syms)/enabled" 1
assert_file_eq "$(patch_dir klpc_test_syms)/klpc_target/patched" 0
disable_patch klpc_test_syms
unload klpc-test-syms
load klpc-target
assert_eq original "$(target_field message)" "after the refused load"
unload klpc-target
