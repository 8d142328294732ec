# shellcheck shell=sh
# klpc build, step 4: which functions the diff changed, unit by unit.
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

# unit_symvers UNIT: the "#SYMVER NAME CRC" lines of the patched UNIT, by
# genksyms over its preprocessed source as Kbuild makes them: the compile
# command (from the unit's .cmd) with -E -D__GENKSYMS__ in place of -c -o.
unit_symvers() {
	_cc=$(unit_command "$1" | sed 's/;.*//')
	_src=${1%.o}.c
	_cc=$(echo "$_cc" | sed "s| -c -o $1 $_src *\$||; s| -Wp,-MMD,[^ ]*||")
	klpc_include
	(cd "$WORK/tree" &&
		CPATH=$KLPC_CPATH sh -c "$_cc -E -D__GENKSYMS__ $_src" |
		scripts/genksyms/genksyms -r /dev/null) 2>>"$WORK/build.log"
}

# compare_symvers: refuse a diff that changes the version (CRC) of a
# symbol a unit exports: modules built against the running kernel check
# those CRCs, and one patched function cannot change an interface they use.
compare_symvers() {
	for _u in $UNITS; do
		grep -q '^#SYMVER ' "$WORK/orig/$_u.cmd" || continue
		grep '^#SYMVER ' "$WORK/orig/$_u.cmd" | sort >"$WORK/symvers.orig"
		unit_symvers "$_u" | grep '^#SYMVER ' | sort >"$WORK/symvers.patched"
		[ -s "$WORK/symvers.patched" ] ||
			fail "genksyms failed on the patched ${_u%.o}.c ($WORK/build.log)"
		_d=$(diff "$WORK/symvers.orig" "$WORK/symvers.patched" | sed -n 's/^> #SYMVER \([^ ]*\) .*/\1/p' | head -n 3 | paste -sd' ')
		[ -z "$_d" ] ||
			fail "${_u%.o}.c: the symbol versions of $_d change (Module.symvers would disagree): an exported interface cannot be live-patched"
	done
}

# compare_units FIX: WORK/changes; refuses a diff that changes no code.
compare_units() {
	[ -x "$KLPC_COMPARE" ] ||
		fail "$KLPC_COMPARE is missing: build it (make klp-build/compare/klpc-compare)"
	compare_symvers
	: >"$WORK/changes"
	for _u in $UNITS; do
		_obj=$(unit_object "$_u")
		_out=$("$KLPC_COMPARE" "$WORK/orig/$_u" "$WORK/patched/$_u" 2>&1) ||
			fail "$(echo "$_out" | sed "s|$WORK/patched/||" | head -n 5)"
		echo "$_out" | sed '/^$/d' | sed "s|^|$_obj $_u |" >>"$WORK/changes"
	done
	[ -s "$WORK/changes" ] ||
		fail "$FIX_LABEL changes nothing in the object code of $TGT_KVER: nothing to patch"
	while read -r _obj _u _what _sym _; do
		case $_what in
		twin) ;;
		*-data) progress "$_what: $_sym ($_obj, ${_u%.o}.c)" ;;
		*) progress "$_what function: $_sym ($_obj, ${_u%.o}.c)" ;;
		esac
	done <"$WORK/changes"
}
