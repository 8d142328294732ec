# shellcheck shell=sh
# klpc build, step 3a: the units a diff reaches.
#
# A changed .c file is a unit; a changed header (or a .c file another .c
# includes, as kernel/sched/build_policy.c includes rt.c) reaches every
# unit that includes it, through any number of other headers and through
# any directory's -I.  The reach is computed over the tree's include
# index (made once, at --prepare: every #include line and the -I list of
# every Makefile) by reach.awk, a safe superset of what the compiler
# would include; of those units, the ones the configuration builds are
# kept (Kbuild's answer, objs.mk); and of those, a unit whose
# preprocessed text the diff does not change is dropped before any
# compile.  Nothing is left out by a count or a depth: a unit the diff
# may change is compiled, or the diff refused, never skipped in silence.
#
# Sourced by klp-build/klpc-build; uses TGT_*, SRC_TREE, UNIT_CACHE and
# WORK (prepare.sh, build-units.sh).

# The include index's first line: an index of another form is made again.
KLPC_INDEX_FORM='# klpc include index 2'

# include_index TREE: the include index of TREE (reach.awk's INDEX).
include_index() {
	echo "$KLPC_INDEX_FORM"
	(cd "$1" && grep -rHE --include='*.[chS]' --exclude-dir=tools \
		--exclude-dir=Documentation --exclude-dir=scripts \
		'^[[:space:]]*#[[:space:]]*(include|define[[:space:]]+[A-Za-z0-9_]+)[[:space:]]*[<"][^>" ]*[>"]' .) |
		awk '{
			f = $0
			sub(/:.*/, "", f)
			l = substr($0, length(f) + 2)
			sub(/^\.\//, "", f)
			if (!match(l, /[<"][^>" ]*[>"]/))
				next
			n = substr(l, RSTART + 1, RLENGTH - 2)
			if (l !~ /^[[:space:]]*#[[:space:]]*define/)
				print f, (substr(l, RSTART, 1) == "<" ? "a" : "q"), n
			else if (n ~ /\.[ch]$/)
				print f, "d", n
		}'
	include_dirs "$1"
}

# include_dirs TREE: "- I DIR MK" for each directory a Makefile of TREE
# (in directory MK) puts on the include path (-I, -iquote, -idirafter),
# its variables expanded where the Makefile assigns them plainly; "- W
# MK" for a Makefile whose directories still name a variable klpc cannot
# read (any directory may be one).
include_dirs() {
	_mks=$(cd "$1" && find . \( -path ./tools -o -path ./Documentation -o -path ./scripts \) \
		-prune -o \( -name Makefile -o -name Kbuild -o -name '*.mk' \) -type f \
		-exec grep -l -E -e '-I|-iquote|-idirafter' {} +)
	# shellcheck disable=SC2086 # Makefile paths have no blanks
	(cd "$1" && awk -v arch="$TGT_SRCARCH" -f "$KLPC_BUILD_DIR/idirs.awk" $_mks $_mks) |
		sort -u
}

# ensure_include_index: INCLUDE_INDEX, made now if the prepared tree
# predates it (under the tree's lock: builds side by side share it)
ensure_include_index() {
	INCLUDE_INDEX=${SRC_TREE%/src}/includes
	[ "$(head -n 1 "$INCLUDE_INDEX" 2>/dev/null)" != "$KLPC_INDEX_FORM" ] || return 0
	exec 9>"${SRC_TREE%/src}.lock"
	flock 9
	if [ "$(head -n 1 "$INCLUDE_INDEX" 2>/dev/null)" != "$KLPC_INDEX_FORM" ]; then
		progress "indexing the includes of $SRC_TREE (once)"
		include_index "$SRC_TREE" >"$INCLUDE_INDEX.tmp" &&
			mv "$INCLUDE_INDEX.tmp" "$INCLUDE_INDEX"
	fi
	flock -u 9
	[ -s "$INCLUDE_INDEX" ] || fail "cannot index the includes of $SRC_TREE"
}

# forced_includes: the headers Kbuild puts in front of every unit
# (-include in the top Makefile and scripts/Makefile.lib)
forced_includes() {
	# shellcheck disable=SC2016 # make's $(srctree), read as text
	sed -n 's/.*-include \$(srctree)\/\([^ )]*\).*/\1/p' \
		"$SRC_TREE/Makefile" "$SRC_TREE/scripts/Makefile.lib" | sort -u
}

# reached_files FIX: the files that include one the diff changes,
# through any chain of includes, with the changed ones (one a line).
# A diff reaching a header every unit includes is refused: it changes
# the whole kernel.
reached_files() {
	ensure_include_index
	diff_files "$1" >"$WORK/changed"
	reach_quick ||
		awk -f "$KLPC_BUILD_DIR/reach.awk" "$WORK/changed" "$INCLUDE_INDEX" |
		sort -u >"$WORK/reached"
	_all=$(forced_includes | grep -xF -f - "$WORK/reached" | head -n 1) || true
	[ -z "$_all" ] ||
		fail "$FIX_LABEL changes $_all, which Kbuild includes in every unit (-include): it cannot be live-patched unit by unit"
	cat "$WORK/reached"
}

# reach_quick: WORK/reached, reach.awk's answer from a part of the index
# (reading all of it costs seconds): the -I lines and the lines whose
# name ends in the name of a file reached so far.  reach.awk only ever
# looks at those (a line naming x.h cannot include y.h), so once a round
# reaches no file whose name the part left out, the answer is the
# whole index's.  False after a few rounds (a header included far and
# wide), when reach.awk reads the whole index.
reach_quick() {
	cp "$WORK/changed" "$WORK/reached"
	for _round in 1 2 3 4; do
		sed 's|.*/||' "$WORK/reached" | sort -u >"$WORK/reach.names"
		{
			echo '- I '
			echo '- W '
			sed 's|^|/|' "$WORK/reach.names"
			sed 's|^| |' "$WORK/reach.names"
		} >"$WORK/reach.grep"
		grep -F -f "$WORK/reach.grep" "$INCLUDE_INDEX" |
			awk 'NR == FNR { n[$1] = 1; next }
				{ b = $3; sub(/.*\//, "", b) }
				$1 == "-" || b in n' "$WORK/reach.names" - >"$WORK/reach.part"
		awk -f "$KLPC_BUILD_DIR/reach.awk" "$WORK/changed" "$WORK/reach.part" |
			sort -u >"$WORK/reached"
		if ! sed 's|.*/||' "$WORK/reached" | sort -u |
			comm -13 "$WORK/reach.names" - | grep -q .; then
			return 0
		fi
	done
	return 1
}

# kbuild_dir DIR: objs.mk's three lines for DIR of the prepared tree,
# read in the scratch copy (make's compiler probes write temporary files
# where they run) and cached per tree (the configuration never changes
# under it).  A make
# that fails is no answer: the build stops, and nothing is cached.
kbuild_dir() {
	_f=$UNIT_CACHE/.dirs/d:$(echo "$1" | tr / :)
	if [ ! -f "$_f" ]; then
		mkdir -p "$UNIT_CACHE/.dirs"
		if ! env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -r -C "$WORK/tree" \
			-f "$KLPC_BUILD_DIR/objs.mk" obj="$1" srctree=. objtree=. \
			SRCARCH="$TGT_SRCARCH" ARCH="$TGT_SRCARCH" CC="$TGT_CC" \
			ARCH_LIB="$(arch_lib)" klpc-objs >"$_f.$$" 2>>"$WORK/build.log" ||
			[ "$(grep -c '^[ymd]\( \|$\)' "$_f.$$")" != 3 ]; then
			rm -f "$_f.$$"
			fail "Kbuild cannot list the objects of $1 ($WORK/build.log)"
		fi
		mv -f "$_f.$$" "$_f"
	fi
	cat "$_f"
}

# arch_lib: the library directories the top Makefile hands the top
# Kbuild file (libs-y: lib/ and the architecture's)
arch_lib() {
	sed -n 's/^libs-y[[:space:]]*[:+]\{0,1\}=[[:space:]]*//p' "$SRC_TREE/Makefile" \
		"$SRC_TREE/arch/$TGT_SRCARCH/Makefile" | tr '\n' ' '
}

# dirs_above FILE...: the directories FILES are in and every one above
# them to the tree's top ("."), one a line
dirs_above() {
	awk '{
		d = $0
		while (sub(/\/[^\/]*$/, "", d))
			print d
		print "."
	}' | sort -u
}

# configured UNITS-FILE: the units of UNITS-FILE (dir/x.o, one a line)
# the configuration builds: some directory at or above the unit lists it
# (a module's parts may be listed one directory up, as fs/xfs lists
# libxfs/), and Kbuild descends there from the top.  Reads kbuild_dir's
# lists of every directory above the units; WORK/units.kdir gets a
# "UNIT DIR" line for each, DIR the one that lists it (where Kbuild
# builds it from: farm.sh).
configured() {
	dirs_above <"$1" >"$WORK/dirs"
	while read -r _d; do
		kbuild_dir "$_d" >/dev/null
	done <"$WORK/dirs"
	while read -r _d; do
		sed "s|^|$_d |" "$UNIT_CACHE/.dirs/d:$(echo "$_d" | tr / :)"
	done <"$WORK/dirs" >"$WORK/dirs.lists"
	awk -v kdirs="$WORK/units.kdir" '
		# "DIR y|m|d WORD..." lines, then the units
		NR == FNR {
			for (i = 3; i <= NF; i++)
				if ($2 == "d")
					parent[$i] = $1
				else
					lister[$i] = lister[$i] " " $1
			next
		}
		function up(d) { return sub(/\/[^\/]*$/, "", d) ? d : "." }
		function descended(d) {
			while (d != ".") {
				if (!(d in parent))
					return 0
				d = parent[d]
			}
			return 1
		}
		function listed(u, d,    n, i, l) {
			n = split(lister[u], l, " ")
			for (i = 1; i <= n; i++)
				if (l[i] == d)
					return 1
			return 0
		}
		{
			for (d = up($0); ; d = up(d)) {
				if (listed($0, d) && descended(d)) {
					print
					print $0, d >kdirs
					break
				}
				if (d == ".")
					break
			}
		}' "$WORK/dirs.lists" "$1"
}

# reached_units FIX: the units (dir/x.o) the diff may change that the
# configuration builds, one a line; each reached one it does not build
# is named with --verbose.
reached_units() {
	reached_files "$1" >"$WORK/reached.files"
	sed -n 's/\.[cS]$/.o/p' "$WORK/reached.files" >"$WORK/reached.all"
	configured "$WORK/reached.all" | sort >"$WORK/reached.conf"
	if [ "$OPT_VERBOSE" = 1 ]; then
		sort "$WORK/reached.all" | comm -23 - "$WORK/reached.conf" |
			sed "s|^\(.*\)\.o$|klpc build: \1: not built by $TGT_KVER's configuration (left out)|" >&2
	fi
	cat "$WORK/reached.conf"
}
