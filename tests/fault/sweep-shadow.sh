#!/bin/sh
# was t-85-5-fault-shadow
# Fault sweep (lib-fault.sh): a shadow variable's allocation, by the
# patched klpc_shadow_target_poke() of klpc-shadow-patch. Every
# allocation fails in turn: the object then has no counter (it shows 0 and
# none is live), or it has one that counted the poke.
# klpc-timeout: 600
# klpc-weight: 100
# klpc-group: fault
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-fault.sh
. "${0%/*}/../lib-fault.sh"

T=/proc/klpc_shadow_target
LIVE=/sys/module/klpc_shadow_patch/parameters/live_vars

klpc_core_load
load klpc-shadow-target
load klpc-shadow-patch
wait_transition klpc_shadow_patch
expect_write_ok "$T" add
echo 1 >"$KLPC_TMP/id"

fault_op() {
	write_sysfs "poke $(cat "$KLPC_TMP/id")" "$T"
}

# a fresh object for the next try
next_object() {
	_id=$(cat "$KLPC_TMP/id")
	expect_write_ok "$T" "del $_id"
	expect_write_ok "$T" add
	echo $((_id + 1)) >"$KLPC_TMP/id"
	assert_file_eq "$LIVE" 0
}

fault_check_done() {
	_id=$(cat "$KLPC_TMP/id")
	case "$(cat "$LIVE") $(cat "$T")" in
	"1 obj $_id: pokes=1") ;;
	"0 obj $_id: pokes=0") [ "$FAULT_INJ" -gt 0 ] || die "the poke was lost with nothing injected" ;;
	*) die "live_vars and $T disagree: $(cat "$LIVE"), $(cat "$T")" ;;
	esac
	next_object
}

fault_check_before() {
	die "the poke failed: $FAULT_ERR"
}

fault_sweep "shadow-alloc" klpc_shadow_get_or_alloc
disable_patch klpc_shadow_patch
unload klpc-shadow-patch
unload klpc-shadow-target
