#!/bin/sh
# was t-64-shadow-patch
# A patch in use: klpc-shadow-patch gives klpc_shadow_target's objects a
# poke counter in a shadow variable.  Counters are per object, start at 0
# for objects created or poked first after the patch, go with their object
# (a new object never inherits one), and are all freed when the patch is
# disabled, or with the objects when the target module unloads.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-shadow.sh
. "${0%/*}/../lib-shadow.sh"

T=/proc/klpc_shadow_target
LIVE=/sys/module/klpc_shadow_patch/parameters/live_vars

cmd() {
	expect_write_ok "$T" "$1"
}

# objects EXPECTED...: what the target shows, one argument per line.
objects() {
	assert_eq "$(printf '%s\n' "$@")" "$(cat "$T")" "$T"
}

klpc_core_load
load klpc-shadow-target
cmd add
cmd add
cmd "poke 1"
objects "obj 1: plain" "obj 2: plain"
expect_write_error "$T" "poke 9" ENOENT

load klpc-shadow-patch
wait_transition klpc_shadow_patch
objects "obj 1: pokes=0" "obj 2: pokes=0"
assert_file_eq "$LIVE" 0
for c in "poke 1" "poke 1" "poke 2" "poke 1"; do
	cmd "$c"
done
objects "obj 1: pokes=3" "obj 2: pokes=1"
assert_file_eq "$LIVE" 2

# a deleted object's counter goes with it; the next object (likely at the
# same address) starts without one
cmd "del 1"
assert_file_eq "$LIVE" 1
cmd add
objects "obj 2: pokes=1" "obj 3: pokes=0"
cmd "poke 3"
objects "obj 2: pokes=1" "obj 3: pokes=1"
assert_file_eq "$LIVE" 2

# disabling frees every counter; enabling again starts from 0
disable_patch klpc_shadow_patch
objects "obj 2: plain" "obj 3: plain"
assert_file_eq "$LIVE" 0
enable_patch klpc_shadow_patch
objects "obj 2: pokes=0" "obj 3: pokes=0"
cmd "poke 2"
objects "obj 2: pokes=1" "obj 3: pokes=0"
assert_file_eq "$LIVE" 1

# the target goes with its objects: the patched release frees the counter
unload klpc-shadow-target
assert_file_eq "$LIVE" 0
assert_file_eq "$(patch_dir klpc_shadow_patch)/klpc_shadow_target/patched" 0
disable_patch klpc_shadow_patch
unload klpc-shadow-patch
dmesg_mark
unload klpc
assert_eq "" "$(klpc_shadow_lines)" "klpc's messages at unload"
