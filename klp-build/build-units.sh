# shellcheck shell=sh
# klpc build, step 2: compile what the diff touches, before and after.
#
# In a scratch copy of the prepared tree (hard links: the copy costs a few
# seconds, and patch(1) writes a new file for each one it changes, so the
# cached tree is never modified), each translation unit the diff changes
# is compiled twice, once before and once after the diff is applied, with
# -ffunction-sections -fdata-sections: every function and object then has
# a section of its own, so the objects can be compared function by
# function (compare step) and a function's code taken out whole (emit
# step). A changed header brings in every configured unit that includes
# it, directly or through other headers.
#
# Sourced by klp-build/klpc-build; uses TGT_* and SRC_TREE (prepare.sh).

# Past this many units a header change is refused: each unit compiles
# twice, about 6 s each on one core of the 2-core machine this was
# measured on, so 40 units are ~4 minutes; a header used that widely is
# also one whose change reaches data layouts, which cannot be live-patched.
KLPC_BUILD_MAX_UNITS=${KLPC_BUILD_MAX_UNITS:-40}

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

# check_diff FIX: it applies to the target's source, and changes only C.
check_diff() {
	_files=$(diff_files "$1")
	[ -n "$_files" ] || fail "$1: not a unified diff (no '+++' lines)"
	for _f in $_files; do
		case $_f in
		*.c | *.h) ;;
		*) fail "$1: changes $_f: only C sources and headers can be live-patched" ;;
		esac
	done
	_out=$(patch -p1 -d "$SRC_TREE" --dry-run -f --fuzz=0 <"$1" 2>&1) ||
		fail "$1 does not apply to the source of $TGT_KVER: $(echo "$_out" | grep -v '^checking' | head -n 3)"
}

# scratch_tree: WORK/tree, a hard-linked copy of the prepared tree, less
# tools/, which is copied.  Kbuild rewrites a file it rebuilds in place,
# and a hard link carries that write into the cache and into every build
# running beside this one.  The units' outputs are unlinked before each
# compile (unlink_outputs) and the tree was prepared with the units' flags
# (prepare.sh), so Kbuild rebuilds nothing else of it; but objtool and
# resolve_btfids record absolute paths, so each scratch tree builds them
# again, into its own copy, and the syscall check of every make writes
# its dependency file again.
scratch_tree() {
	progress "copying the prepared tree"
	if ! cp -al "$SRC_TREE" "$WORK/tree" || ! rm -rf "$WORK/tree/tools" ||
		! cp -a "$SRC_TREE/tools" "$WORK/tree/tools"; then
		fail "cannot copy $SRC_TREE into $WORK"
	fi
	rm -f "$WORK/tree/.missing-syscalls.d"
}

# includes_of PATHS: the files of the scratch tree that include one of
# the headers PATHS (a list of paths in the tree), one line each.  An
# include is followed as the compiler would: "x.h" relative to the
# including file first, then <x.h> and "x.h" under the include
# directories; so fs/proc/internal.h is fs/proc/'s "internal.h", not
# mm/'s.
includes_of() {
	_re=$(echo "$1" | xargs -n 1 basename | sort -u | sed 's/[.]/\\./g' | paste -sd'|')
	(cd "$WORK/tree" && grep -rHoE --include='*.[ch]' \
		"^#[[:space:]]*include[[:space:]]*[<\"]([^>\"]*/)?($_re)[>\"]" . 2>/dev/null) |
		awk -v paths="$1" '
		function norm(p,   n, i, part, out, k) {
			n = split(p, part, "/")
			k = 0
			for (i = 1; i <= n; i++) {
				if (part[i] == "." || part[i] == "")
					continue
				if (part[i] == ".." && k > 0)
					k--
				else
					out[++k] = part[i]
			}
			p = out[1]
			for (i = 2; i <= k; i++)
				p = p "/" out[i]
			return p
		}
		BEGIN {
			n = split(paths, h, "\n")
			for (i = 1; i <= n; i++)
				want[h[i]] = 1
			split("include arch/x86/include include/uapi arch/x86/include/uapi", dirs, " ")
		}
		{
			f = substr($0, 3, index($0, ":") - 3)
			t = $0
			sub(/^[^<"]*[<"]/, "", t)
			sub(/[>"]$/, "", t)
			d = f
			sub(/\/[^\/]*$/, "", d)
			hit = index($0, "\"") && (norm(d "/" t) in want)
			for (i = 1; i <= 4 && !hit; i++)
				hit = (dirs[i] "/" t) in want
			if (hit)
				print f
		}' | sort -u
}

# includers HEADER: the .c files that include HEADER, directly or through
# headers that do, to a depth of 3 (one line each).
includers() {
	_paths=$1
	_seen=$_paths
	_depth=0
	while [ "$_depth" -lt 3 ] && [ -n "$_paths" ]; do
		_hits=$(includes_of "$_paths")
		echo "$_hits" | grep '\.c$' || true
		_paths=$(echo "$_hits" | grep '\.h$' | grep -vxF "$_seen" || true)
		_seen=$(printf '%s\n%s\n' "$_seen" "$_paths")
		_depth=$((_depth + 1))
	done
}

# candidate_units FIX: the object files that may change (dir/file.o).
candidate_units() {
	for _f in $(diff_files "$1"); do
		case $_f in
		*.c) echo "${_f%.c}.o" ;;
		*.h) includers "$_f" | sed 's/\.c$/.o/' ;;
		esac
	done | sort -u
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
# diff, from the cache (the prepared tree never changes) or compiled once;
# prints the configured units.
orig_units() {
	_todo=
	for _u in "$@"; do
		if [ -f "$UNIT_CACHE/$_u.none" ]; then
			continue
		elif [ -f "$UNIT_CACHE/$_u" ] && [ -f "$UNIT_CACHE/$_u.cmd" ]; then
			mkdir -p "$WORK/orig/$(dirname "$_u")"
			cp "$UNIT_CACHE/$_u" "$UNIT_CACHE/$_u.cmd" "$WORK/orig/$(dirname "$_u")/"
			echo "$_u"
		else
			_todo="$_todo $_u"
		fi
	done
	# shellcheck disable=SC2086 # a list of object names
	[ -z "$_todo" ] || kbuild_units "$WORK/orig" $_todo
}

# unit_command UNIT: the command Kbuild compiled UNIT with (its .cmd's
# first line: compiler, flags, then objtool after a ';')
unit_command() {
	sed -n '1s/^cmd_[^ ]* := //p' "$WORK/orig/$1.cmd" | sed 's/\$\$/$/g'
}

# klpc_include: klpc's headers, this tree's (a clone) or the installed ones
klpc_include() {
	KLPC_INCLUDE=${KLPC_INCLUDE:-$KLPC_BUILD_DIR/../include}
	[ -f "$KLPC_INCLUDE/klpc.h" ] || KLPC_INCLUDE=/usr/share/klpc/include
}

# patched_unit UNIT: compile UNIT after the diff with the very command
# Kbuild used before it (its .cmd: compiler, flags, objtool), run in the
# scratch tree: no Kbuild walk of the tree for it.  CPATH (searched after
# the -I list, -nostdinc or not) finds kpatch's header names, which a diff
# written for kpatch-build includes, and klpc.h they use.
patched_unit() {
	_cmd=$(unit_command "$1")
	[ -n "$_cmd" ] || return 1
	unlink_outputs "$1"
	klpc_include
	(cd "$WORK/tree" && CPATH=$KLPC_INCLUDE/kpatch:$KLPC_INCLUDE sh -c "$_cmd") \
		>>"$WORK/build.log" 2>&1 || return 1
	mkdir -p "$WORK/patched/$(dirname "$1")"
	mv "$WORK/tree/$1" "$WORK/patched/$1"
}

# build_units FIX: WORK/orig and WORK/patched hold each unit's object
# before and after the diff; UNITS lists them.
build_units() {
	_cand=$(candidate_units "$1")
	_n=$(echo "$_cand" | grep -c .)
	[ "$_n" -le "$KLPC_BUILD_MAX_UNITS" ] ||
		fail "$1 reaches $_n translation units (more than $KLPC_BUILD_MAX_UNITS) through the headers it changes: $(diff_files "$1" | grep '\.h$' | paste -sd' ')"
	progress "compiling $_n unit(s) before the diff (or from the cache)"
	# shellcheck disable=SC2086 # a list of object names
	UNITS=$(orig_units $_cand | sort)
	[ ! -s "$WORK/kbuild.err" ] ||
		fail "Kbuild failed in the scratch tree ($WORK/build.log): $(cat "$WORK/kbuild.err")"
	[ -n "$UNITS" ] ||
		fail "$1 changes nothing that $TGT_KVER's configuration builds"
	patch -p1 -d "$WORK/tree" -f -s --fuzz=0 <"$1" >>"$WORK/build.log" 2>&1 ||
		fail "$1 did not apply in the scratch tree ($WORK/build.log)"
	progress "compiling $(echo "$UNITS" | grep -c .) unit(s) after the diff"
	patched_units
	verbose "units: $(echo "$UNITS" | paste -sd' ')"
}

# patched_units: every unit of UNITS compiled after the diff, JOBS at a
# time (a header change brings in dozens)
patched_units() {
	_running=0
	for _u in $UNITS; do
		_mark=$WORK/failed.$(echo "$_u" | tr / _)
		(patched_unit "$_u" || : >"$_mark") &
		_running=$((_running + 1))
		if [ "$_running" -ge "$JOBS" ]; then
			wait
			_running=0
		fi
	done
	wait
	for _u in $UNITS; do
		[ ! -e "$WORK/failed.$(echo "$_u" | tr / _)" ] ||
			fail "the patched ${_u%.o}.c does not compile: $(grep -E 'error:' "$WORK/build.log" | head -n 3)"
	done
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
