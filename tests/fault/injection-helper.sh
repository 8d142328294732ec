#!/bin/sh
# was t-83-fail-inject
# The fault-injection helper klpc-test-fail: the nth call of a function
# returns the given value without running the function; 'hits' and
# 'injected' count; removing the helper stops it.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

P=/sys/module/klpc_test_fail/parameters

load klpc-cm-target

# the 3rd call of klpc_cm_callee() returns -12 instead of x + 1
load klpc-test-fail func=klpc_cm_callee nth=3 err=-12
assert_file_eq "$P/hits" 0
assert_eq "calls=100 mismatches=1" "$(cat /proc/klpc_cm)" "/proc/klpc_cm"
assert_file_eq "$P/hits" 100
assert_file_eq "$P/injected" 1
assert_eq "calls=200 mismatches=1" "$(cat /proc/klpc_cm)" "/proc/klpc_cm again"
assert_file_eq "$P/hits" 200
assert_file_eq "$P/injected" 1
unload klpc-test-fail
assert_eq "calls=300 mismatches=1" "$(cat /proc/klpc_cm)" "/proc/klpc_cm without the helper"

# times=-1: every call from the nth on
load klpc-test-fail func=klpc_cm_callee nth=51 times=-1 err=0
assert_eq "calls=400 mismatches=51" "$(cat /proc/klpc_cm)" "/proc/klpc_cm with times=-1"
assert_file_eq "$P/injected" 50
unload klpc-test-fail

# what cannot be probed fails the load
expect_load_fail klpc-test-fail func=klpc_no_such_function
expect_load_fail klpc-test-fail
unload klpc-cm-target
