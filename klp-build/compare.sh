# shellcheck shell=sh
# klpc build, step 3: which functions the diff changed, unit by unit.
#
# klpc-compare (klp-build/compare/, C over libelf) compares each unit's
# two objects function by function and refuses what cannot be
# live-patched; this step runs it on every unit and gathers its lines,
# each prefixed with the object (vmlinux or a module) the unit is linked
# into, into WORK/changes:
#
#	OBJECT UNIT changed|new|new-data SYMBOL
#
# Sourced by klp-build/klpc-build; uses WORK and UNITS (build-units.sh).

KLPC_COMPARE=${KLPC_COMPARE:-$KLPC_BUILD_DIR/compare/klpc-compare}

# compare_units FIX: WORK/changes; refuses a diff that changes no code.
compare_units() {
	[ -x "$KLPC_COMPARE" ] ||
		fail "$KLPC_COMPARE is missing: build it (make klp-build/compare/klpc-compare)"
	: >"$WORK/changes"
	for _u in $UNITS; do
		_obj=$(unit_object "$_u")
		_out=$("$KLPC_COMPARE" "$WORK/orig/$_u" "$WORK/patched/$_u" 2>&1) ||
			fail "$(echo "$_out" | sed "s|$WORK/patched/||" | head -n 5)"
		echo "$_out" | sed '/^$/d' | sed "s|^|$_obj $_u |" >>"$WORK/changes"
	done
	[ -s "$WORK/changes" ] ||
		fail "$1 changes nothing in the object code of $TGT_KVER: nothing to patch"
	while read -r _obj _u _what _sym; do
		progress "$_what function: $_sym ($_obj, ${_u%.o}.c)"
	done <"$WORK/changes"
}
