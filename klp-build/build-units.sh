# shellcheck shell=sh
# klpc build, step 3b: compile what the diff changes, before and after.
#
# Each translation unit the diff changes is compiled twice, once before
# and once after the diff is applied, with -ffunction-sections
# -fdata-sections: every function and object then has a section of its
# own, so the objects can be compared function by function (compare
# step) and a function's code taken out whole (emit step). Which units:
# reach.sh (every configured unit a changed file reaches through its
# includes), less those whose preprocessed text the diff leaves as it was.
#
# The compiles run in a scratch tree, WORK/tree, that is a farm of
# symbolic links to the prepared tree: a directory of its own for each
# directory a unit or a changed file is in (and those above), every other
# entry a link.  Making it takes milliseconds, where a copy of the 1.5 GB
# tree took seconds, and the prepared tree is only ever read: the outputs
# land in the farm's own directories.  The commands are Kbuild's own,
# read from the directory's Kbuild file by cmds.mk without a walk of the
# tree (a walk costs seconds even with nothing to do), and run as they
# are, objtool included (the prepared tree's).  A unit that does not
# compile that way (one that needs a file Kbuild generates first) falls
# back to Kbuild itself, in a hard-linked copy of the tree.
#
# Sourced by klp-build/klpc-build; uses TGT_* and SRC_TREE (prepare.sh).

# shellcheck source=klp-build/farm.sh
. "$KLPC_BUILD_DIR/farm.sh"

KLPC_FIX_LINES=${KLPC_FIX_LINES:-$KLPC_BUILD_DIR/lines/klpc-fix-lines}

# The flags every unit is compiled with, before and after.
KLPC_BUILD_KCFLAGS='-ffunction-sections -fdata-sections'

# kmake DIR TARGET...: the kernel's make in DIR, as the target was built.
kmake() {
	_dir=$1
	shift
	make -C "$_dir" -j"$JOBS" ARCH=x86 CC="$TGT_CC" \
		KERNELRELEASE="$TGT_KVER" "$@"
}

# diff_files FIX: the files the diff changes (its "+++ b/..." names, less
# the first component, as patch -p1 reads them), one per line.
diff_files() {
	sed -n 's/^+++ [^/]*\/\([^[:space:]]*\).*$/\1/p' "$1" | sort -u
}

# unlink_outputs UNIT: the unit's object, command and dependency files in
# the scratch tree, which are hard links to the cache's if it has any:
# the compiler and Kbuild rewrite them in place.
unlink_outputs() {
	_d=$WORK/tree/$(dirname "$1")
	_b=$(basename "$1")
	rm -f "$WORK/tree/$1" "$_d/.$_b.cmd" "$_d/.$_b.d"
}

# cache_put FILE DEST: FILE into the unit cache as DEST, renamed into place:
# builds side by side (klpc build runs one per core in make vm-test) read
# a unit whole or not at all; the object goes in after its command, so an
# object there always has its command.
cache_put() {
	cp "$1" "$2.$$" && mv -f "$2.$$" "$2"
}

# kbuild_units OUTDIR UNIT...: compile UNITS with Kbuild in the scratch
# tree (make -k: one that is not configured stops nothing), keep each
# object and its command in OUTDIR and in the cache (UNIT_CACHE), and mark
# the ones not configured there; prints the units built.  A unit is marked
# only when Kbuild passed it by or named it in an error: a make that
# stopped elsewhere (the tree's own tools, say) says nothing about the
# units, and a mark would refuse them in every build after this one; its
# first error goes into WORK/kbuild.err instead.
kbuild_units() {
	_out=$1
	shift
	for _u in "$@"; do
		unlink_outputs "$_u"
	done
	_st=0
	kmake "$WORK/tree" -k KCFLAGS="$KLPC_BUILD_KCFLAGS" "$@" \
		>"$WORK/kbuild.log" 2>&1 || _st=$?
	cat "$WORK/kbuild.log" >>"$WORK/build.log"
	for _u in "$@"; do
		mkdir -p "$UNIT_CACHE/$(dirname "$_u")"
		if [ -f "$WORK/tree/$_u" ]; then
			keep_unit "$_out" "$_u"
		elif [ "$_st" -eq 0 ] ||
			grep -q "^make.*\*\*\* .*[[ ]$_u\] Error" "$WORK/kbuild.log"; then
			: >"$UNIT_CACHE/$_u.none"
		else
			grep -m 1 -e '\*\*\*' -e 'error:' "$WORK/kbuild.log" >"$WORK/kbuild.err" ||
				echo "make exited $_st" >"$WORK/kbuild.err"
		fi
	done
}

# keep_unit OUTDIR UNIT: the unit Kbuild just compiled, with its command,
# into OUTDIR and the cache; prints it.
keep_unit() {
	mkdir -p "$1/$(dirname "$2")"
	mv "$WORK/tree/$2" "$1/$2"
	cp "$WORK/tree/$(dirname "$2")/.$(basename "$2").cmd" "$1/$2.cmd"
	cache_put "$1/$2.cmd" "$UNIT_CACHE/$2.cmd"
	cache_put "$1/$2" "$UNIT_CACHE/$2"
	echo "$2"
}

# orig_units UNIT...: WORK/orig: each configured unit's object before the
# diff, from the cache (the prepared tree never changes) or compiled in
# the farm with Kbuild's command (JOBS at a time), or, when that fails,
# by Kbuild; WORK/units lists the configured units.  A unit Kbuild had to
# compile (UNIT.kbuild in the cache: it needs a file Kbuild generates) is
# never taken from the cache: its patched compile needs the generated
# file as much, and only a Kbuild run in the copy of the tree makes it.
orig_units() {
	: >"$WORK/units"
	: >"$WORK/todo"
	for _u in "$@"; do
		if [ -f "$UNIT_CACHE/$_u.none" ]; then
			continue
		elif [ -f "$UNIT_CACHE/$_u" ] && [ -f "$UNIT_CACHE/$_u.cmd" ] &&
			[ ! -f "$UNIT_CACHE/$_u.kbuild" ]; then
			mkdir -p "$WORK/orig/$(dirname "$_u")"
			cp "$UNIT_CACHE/$_u" "$UNIT_CACHE/$_u.cmd" "$WORK/orig/$(dirname "$_u")/"
			echo "$_u" >>"$WORK/units"
		else
			echo "$_u" >>"$WORK/todo"
		fi
	done
	[ -s "$WORK/todo" ] || return 0
	: >"$WORK/kbuild.todo"
	# shellcheck disable=SC2046 # a list of object names
	kbuild_cmds $(cat "$WORK/todo")
	# shellcheck disable=SC2046 # a list of object names
	each_in_parallel "before the diff" orig_unit $(cat "$WORK/todo")
	[ ! -s "$WORK/kbuild.todo" ] || orig_units_kbuild
}

# orig_unit UNIT: UNIT compiled before the diff with the command
# kbuild_cmds found, into WORK/orig with its .cmd (and the symbol
# versions Kbuild adds to it: compare.sh checks them) and into the cache;
# added to WORK/units, or to WORK/kbuild.todo when it does not compile so
orig_unit() {
	_c=$WORK/tree/$(target_cmd "$1")
	_k=$WORK/orig/$1.kcmd
	mkdir -p "$WORK/orig/$(dirname "$1")" "$UNIT_CACHE/$(dirname "$1")"
	[ ! -f "$_c" ] || mv "$_c" "$_k"
	_cmd=$(cmd_file_command "$_k" 2>/dev/null) || _cmd=
	unlink_outputs "$1"
	if [ -z "$_cmd" ] || ! run_in_tree "$_cmd"; then
		echo "$1" >>"$WORK/kbuild.todo"
		return 0
	fi
	head -n 1 "$_k" >"$WORK/orig/$1.cmd"
	# Makefile.build's gen_symversions: a unit that exports symbols
	_sym=$(sed -n '2s/^klpc_symversions := //p' "$_k" | cmd_text)
	if [ -n "$_sym" ] && nm "$WORK/tree/$1" 2>/dev/null | grep -q __ksymtab; then
		run_in_tree "$_sym >>'$WORK/orig/$1.cmd'"
	fi
	rm -f "$_k"
	mv "$WORK/tree/$1" "$WORK/orig/$1"
	cache_put "$WORK/orig/$1.cmd" "$UNIT_CACHE/$1.cmd"
	cache_put "$WORK/orig/$1" "$UNIT_CACHE/$1"
	echo "$1" >>"$WORK/units"
}

# orig_units_kbuild: the units of WORK/kbuild.todo compiled by Kbuild,
# in a copy of the tree, JOBS * 4 a walk (a walk costs seconds), with a
# line of progress between batches
orig_units_kbuild() {
	full_tree
	while read -r _u; do
		mkdir -p "$UNIT_CACHE/$(dirname "$_u")"
		: >"$UNIT_CACHE/$_u.kbuild"
	done <"$WORK/kbuild.todo"
	_total=$(grep -c . "$WORK/kbuild.todo") || true
	_batch=$((JOBS * 4))
	_done=0
	_t0=$(date +%s)
	while [ "$_done" -lt "$_total" ]; do
		# shellcheck disable=SC2046 # a list of object names
		kbuild_units "$WORK/orig" $(sed -n "$((_done + 1)),$((_done + _batch))p" "$WORK/kbuild.todo") \
			>>"$WORK/units"
		_done=$((_done + _batch))
		[ "$_done" -lt "$_total" ] || break
		units_progress "before the diff (Kbuild)" "$_done" "$_total" "$_t0"
	done
}

# units_progress WHAT DONE TOTAL T0: "compiled N of M units", with an
# estimate of the time left from the time taken since T0
units_progress() {
	_el=$(($(date +%s) - $4))
	progress "compiled $2 of $3 units $1 (~$((_el * ($3 - $2) / $2)) s left)"
}

# cmd_file_command CMDFILE: the command a Kbuild .cmd file records (its
# first line), as the shell runs it
cmd_file_command() {
	sed -n '1s/^cmd_[^ ]* := //p' "$1" | cmd_text
}

# cmd_text: a command as a .cmd file holds it (Kbuild's make-cmd: each
# $ doubled, each # written $(pound)) as the shell runs it
cmd_text() {
	# shellcheck disable=SC2016 # make's text, not the shell's
	sed 's/\$\$/\x01/g; s/\$(pound)/#/g; s/\x01/$/g'
}

# unit_command UNIT: the command Kbuild compiled UNIT with (compiler,
# flags, then objtool after a ';')
unit_command() {
	cmd_file_command "$WORK/orig/$1.cmd"
}

# klpc_include: klpc's headers, this tree's (a clone) or the installed
# ones; KLPC_CPATH, where the patched units find kpatch's header names,
# klpc.h, and upstream/ (headers of later kernels: searched after the
# kernel's own, so a kernel that has one uses it)
klpc_include() {
	KLPC_INCLUDE=${KLPC_INCLUDE:-$KLPC_BUILD_DIR/../include}
	[ -f "$KLPC_INCLUDE/klpc.h" ] || KLPC_INCLUDE=/usr/share/klpc/include
	KLPC_CPATH=$KLPC_INCLUDE/kpatch:$KLPC_INCLUDE:$KLPC_INCLUDE/upstream
}

# patched_unit UNIT: compile UNIT after the diff with the very command
# Kbuild used before it (its .cmd: compiler, flags, objtool), run in the
# scratch tree, again if it read a file through a ".." out of a linked
# directory (farm_deps_ok).  CPATH (searched after the -I list,
# -nostdinc or not) finds kpatch's header names, which a diff written for
# kpatch-build includes, and klpc.h they use.
patched_unit() {
	_cmd=$(unit_command "$1")
	[ -n "$_cmd" ] || return 1
	klpc_include
	for _try in 1 2 3 4; do
		unlink_outputs "$1"
		run_in_tree "$_cmd" "$KLPC_CPATH" || return 1
		! farm_deps_ok "$(dirname "$1")/.$(basename "$1").d" || break
		[ "$_try" != 4 ] || return 1
	done
	mkdir -p "$WORK/patched/$(dirname "$1")"
	mv "$WORK/tree/$1" "$WORK/patched/$1"
}

# preprocess_before UNIT...: WORK/pp/UNIT.sum, each unit's preprocessed
# text before the diff (a checksum), and WORK/pp/UNIT.i.cmd, Kbuild's
# command for its dir/x.i (kbuild_cmds), run again after the diff by
# preprocess_changed.  A unit without one is counted as changed.
preprocess_before() {
	progress "preprocessing $# unit(s) the diff reaches through its headers"
	_targets=
	for _u in "$@"; do
		_targets="$_targets ${_u%.o}.i"
	done
	# shellcheck disable=SC2086 # a list of targets
	kbuild_cmds $_targets
	each_in_parallel "" preprocess_sum "$@"
}

# preprocess_sum UNIT: UNIT's preprocessed text before the diff, summed
preprocess_sum() {
	_i=${1%.o}.i
	_c=$WORK/tree/$(target_cmd "$_i")
	_cmd=$(cmd_file_command "$_c" 2>/dev/null) || _cmd=
	[ -n "$_cmd" ] || return 0
	rm -f "$WORK/tree/$_i"
	run_in_tree "$_cmd" || return 0
	mkdir -p "$WORK/pp/$(dirname "$1")"
	sha256sum <"$WORK/tree/$_i" >"$WORK/pp/$1.sum"
	mv "$_c" "$WORK/pp/$1.i.cmd"
	rm -f "$WORK/tree/$_i"
}

# preprocess_changed UNIT...: of the units preprocess_before saw, those
# whose preprocessed text the applied diff changed, and those it could
# not preprocess (nothing tells they are the same), one a line
preprocess_changed() {
	each_in_parallel "" preprocess_unit "$@"
}

# preprocess_unit UNIT: UNIT, if the applied diff changed its
# preprocessed text (or it cannot be told)
preprocess_unit() {
	_cmd=$(cmd_file_command "$WORK/pp/$1.i.cmd" 2>/dev/null) || _cmd=
	_i=${1%.o}.i
	_same=0
	for _try in 1 2 3 4; do
		[ -n "$_cmd" ] || break
		rm -f "$WORK/tree/$_i"
		run_in_tree "$_cmd" || break
		farm_deps_ok "$(target_cmd "$_i" | sed 's/\.cmd$/.d/')" || continue
		! sha256sum <"$WORK/tree/$_i" | cmp -s - "$WORK/pp/$1.sum" || _same=1
		break
	done
	if [ "$_same" = 1 ]; then
		verbose "${1%.o}.c: its preprocessed text is the same (left out)" >&2
	else
		echo "$1"
	fi
	rm -f "$WORK/tree/$_i"
}

# each_in_parallel WHAT FUNC ITEM...: FUNC ITEM for each ITEM, JOBS at a
# time; with WHAT, a line of progress between batches past the first few
# (a header change brings in hundreds)
each_in_parallel() {
	_what=$1
	_func=$2
	shift 2
	_running=0
	_done=0
	_t0=$(date +%s)
	for _item in "$@"; do
		"$_func" "$_item" &
		_running=$((_running + 1))
		[ "$_running" -ge "$JOBS" ] || continue
		wait
		_done=$((_done + _running))
		_running=0
		if [ -n "$_what" ] && [ "$((_done % (JOBS * 4)))" = 0 ] && [ "$_done" -lt $# ]; then
			units_progress "$_what" "$_done" $# "$_t0"
		fi
	done
	wait
}

# apply_diff FIX: the diff applied to the scratch tree (patch(1) writes
# each file anew, never through the tree's hard links), and each changed
# C file's unchanged lines given back their old numbers (klpc-fix-lines:
# a diff that adds lines above a WARN() moves no __LINE__, and changes no
# function it does not touch)
apply_diff() {
	for _f in $(diff_files "$1"); do
		farm_file "$_f"
	done
	patch -p1 -d "$WORK/tree" -f -s --fuzz=0 <"$1" >>"$WORK/build.log" 2>&1 ||
		fail "$FIX_LABEL did not apply in the scratch tree ($WORK/build.log)"
	for _f in $(diff_files "$1" | grep -E '\.[ch]$'); do
		[ -f "$SRC_TREE/$_f" ] || continue
		"$KLPC_FIX_LINES" "$SRC_TREE/$_f" "$WORK/tree/$_f" >>"$WORK/build.log" 2>&1 ||
			fail "klpc-fix-lines failed on $_f ($WORK/build.log)"
	done
}

# unapply_diff FIX: the scratch tree as it was before apply_diff: each
# file the diff changed linked to the prepared tree's again (or removed,
# if the diff made it)
unapply_diff() {
	for _f in $(diff_files "$1"); do
		rm -f "$WORK/tree/$_f"
		[ ! -f "$SRC_TREE/$_f" ] || ln "$SRC_TREE/$_f" "$WORK/tree/$_f"
	done
}

# affected_units FIX: WORK/affected.units, the units the diff changes,
# one a line: the configured units it reaches (reach.sh), less those it
# reaches through a header whose preprocessed text stays the same.  The
# diff is applied in the scratch tree when this returns.
affected_units() {
	reached_units "$1" >"$WORK/reached.units"
	[ -s "$WORK/reached.units" ] ||
		fail "$FIX_LABEL changes nothing that $TGT_KVER's configuration builds"
	_n=$(grep -c . "$WORK/reached.units")
	[ "$OPT_MAX_UNITS" = 0 ] || [ "$_n" -le "$OPT_MAX_UNITS" ] ||
		fail "$FIX_LABEL reaches $_n units the configuration builds, more than --max-units $OPT_MAX_UNITS"
	diff_files "$1" | sed -n 's/\.[cS]$/.o/p' >"$WORK/direct.units"
	grep -vxF -f "$WORK/direct.units" "$WORK/reached.units" >"$WORK/via.units" || true
	# shellcheck disable=SC2046 # a list of object names
	[ ! -s "$WORK/via.units" ] || preprocess_before $(cat "$WORK/via.units")
	apply_diff "$1"
	{
		grep -xF -f "$WORK/direct.units" "$WORK/reached.units" || true
		# shellcheck disable=SC2046 # a list of object names
		[ ! -s "$WORK/via.units" ] || preprocess_changed $(cat "$WORK/via.units")
	} | sort -u >"$WORK/affected.units"
}

# build_units FIX: WORK/orig and WORK/patched hold each unit's object
# before and after the diff; UNITS lists them.
build_units() {
	affected_units "$1"
	_cand=$(cat "$WORK/affected.units")
	[ -n "$_cand" ] ||
		fail "$FIX_LABEL changes nothing in the preprocessed source of the $(grep -c . "$WORK/reached.units") unit(s) it reaches: nothing to patch"
	_n=$(echo "$_cand" | grep -c .)
	unapply_diff "$1"
	progress "compiling $_n unit(s) before the diff (or from the cache)"
	# shellcheck disable=SC2086 # a list of object names
	orig_units $_cand
	[ ! -s "$WORK/kbuild.err" ] ||
		fail "Kbuild failed in the scratch tree ($WORK/build.log): $(cat "$WORK/kbuild.err")"
	UNITS=$(sort "$WORK/units")
	[ -n "$UNITS" ] ||
		fail "$FIX_LABEL changes nothing that $TGT_KVER's configuration builds"
	apply_diff "$1"
	progress "compiling $(echo "$UNITS" | grep -c .) unit(s) after the diff"
	patched_units
	verbose "units: $(echo "$UNITS" | paste -sd' ')"
}

# patched_units: every unit of UNITS compiled after the diff, JOBS at a
# time
patched_units() {
	# shellcheck disable=SC2086 # a list of object names
	each_in_parallel "after the diff" patched_unit_marked $UNITS
	for _u in $UNITS; do
		[ ! -e "$WORK/failed.$(echo "$_u" | tr / _)" ] ||
			fail "the patched ${_u%.o}.c does not compile: $(grep -E 'error:' "$WORK/build.log" | head -n 3)"
	done
}

# patched_unit_marked UNIT: patched_unit, a failure marked in WORK
patched_unit_marked() {
	patched_unit "$1" || : >"$WORK/failed.$(echo "$1" | tr / _)"
}

# unit_object UNIT: the object a unit is linked into: vmlinux, or the
# module named by KBUILD_MODNAME when it was compiled with -DMODULE.
unit_object() {
	_cmd=$WORK/orig/$1.cmd
	if grep -q -- '-DMODULE\b' "$_cmd"; then
		sed -n 's/.*-DKBUILD_MODNAME=.\{0,2\}"\([^"\\]*\).*/\1/p' "$_cmd" | head -n 1
	else
		echo vmlinux
	fi
}
