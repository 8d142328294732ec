#!/bin/sh
# was t-60-shadow-api
# The shadow variable API scenario of upstream's selftest: the test module
# runs it from its init and logs every call with symbolic names; the log
# must be exactly this transcript and the load must succeed (the module
# fails it when a result is wrong).  Nothing may be left for klpc.ko to
# report when it unloads.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-shadow.sh
. "${0%/*}/../lib-shadow.sh"

expected_log() {
	cat <<'LOG'
get(obj0, 0x1234) = NULL
ctor(obj0): sv1 -> char0
get_or_alloc(obj0, 0x1234, 8, GFP_KERNEL, ctor, char0) = sv1
ctor(obj0): sv2 -> int0
alloc(obj0, 0x1235, 8, GFP_KERNEL, ctor, int0) = sv2
ctor(obj1): sv3 -> char1
alloc(obj1, 0x1234, 8, GFP_KERNEL, ctor, char1) = sv3
ctor(obj1): sv4 -> int1
alloc(obj1, 0x1235, 8, GFP_KERNEL, ctor, int1) = sv4
ctor(obj2): sv5 -> char2
get_or_alloc(obj2, 0x1234, 8, GFP_KERNEL, ctor, char2) = sv5
ctor(obj2): sv6 -> int2
alloc(obj2, 0x1235, 8, GFP_KERNEL, ctor, int2) = sv6
get(obj0, 0x1234) = sv1
get(obj0, 0x1235) = sv2
get(obj1, 0x1234) = sv3
get(obj1, 0x1235) = sv4
get(obj2, 0x1234) = sv5
get(obj2, 0x1235) = sv6
get_or_alloc(obj0, 0x1234, 8, GFP_KERNEL, ctor, int0) = sv1
get_or_alloc(obj1, 0x1234, 8, GFP_KERNEL, ctor, int1) = sv3
get_or_alloc(obj2, 0x1234, 8, GFP_KERNEL, ctor, int2) = sv5
dtor(obj0, sv1)
free(obj0, 0x1234, dtor)
get(obj0, 0x1234) = NULL
dtor(obj1, sv3)
free(obj1, 0x1234, dtor)
get(obj1, 0x1234) = NULL
dtor(obj2, sv5)
free(obj2, 0x1234, dtor)
get(obj2, 0x1234) = NULL
get(obj0, 0x1235) = sv2
get(obj1, 0x1235) = sv4
get(obj2, 0x1235) = sv6
free_all(0x1235): 3 destructor calls
get(obj0, 0x1235) = NULL
get(obj1, 0x1235) = NULL
get(obj2, 0x1235) = NULL
all checks passed
LOG
}

klpc_core_load
dmesg_mark
load klpc-test-shadow
assert_same_text "$(expected_log)" "$(module_log klpc-test-shadow)" \
	"the scenario's kernel log"
assert_eq "" "$(klpc_shadow_lines)" "klpc's shadow variable messages"
unload klpc-test-shadow
unload klpc
assert_eq "" "$(klpc_shadow_lines)" "klpc's messages at unload"
