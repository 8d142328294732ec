# shellcheck shell=sh
# klpc build, step 3b's scratch tree and Kbuild's commands (sourced by
# build-units.sh).
#
# WORK/tree is a farm of links to the prepared tree: a real directory for
# each directory something is written into or changed in, and above it;
# every other entry a symbolic link.  A compile run in it reads the
# prepared tree through the links and writes its outputs into the farm's
# own directories, so the prepared tree is never written, and nothing is
# copied.  One thing differs from a real tree: a path that climbs out of
# a linked directory with ".." climbs in the prepared tree, where a
# changed file is the old one.  farm_deps_ok finds such a path in what a
# compile read, makes the directories it climbed out of real, and the
# compile is run again.
#
# The compile commands are Kbuild's, made by cmds.mk from the
# directory's Kbuild file with the variables the top Makefile exports
# (KBUILD_ENV, captured once per prepared tree), without Kbuild's walk.

# scratch_tree: WORK/tree, the farm: its top a real directory of links
scratch_tree() {
	FULL_TREE=0
	mkdir -p "$WORK/tree"
	farm_links .
	ensure_kbuild_env
}

# farm_links DIR: a link in WORK/tree/DIR to every entry of the prepared
# tree's DIR
farm_links() {
	find "$SRC_TREE/$1" -mindepth 1 -maxdepth 1 \
		-exec ln -s -t "$WORK/tree/$1" {} + ||
		fail "cannot link $SRC_TREE/$1 into $WORK/tree"
}

# farm_dir DIR: WORK/tree/DIR (relative, no ".."), and every directory
# above it, a real directory: the links in it replaced by the prepared
# tree's entries, as links; a directory the prepared tree lacks made.
farm_dir() {
	_fp=
	for _c in $(echo "$1" | tr / ' '); do
		[ "$_c" != . ] || continue
		_fp=${_fp:+$_fp/}$_c
		if [ -L "$WORK/tree/$_fp" ]; then
			rm "$WORK/tree/$_fp"
			mkdir "$WORK/tree/$_fp"
			[ ! -d "$SRC_TREE/$_fp" ] || farm_links "$_fp"
		elif [ ! -d "$WORK/tree/$_fp" ]; then
			mkdir "$WORK/tree/$_fp"
		fi
	done
}

# farm_file FILE: FILE of WORK/tree a copy of its own (a diff changes it:
# patch(1) must not follow a link into the prepared tree)
farm_file() {
	farm_dir "$(dirname "$1")"
	[ -L "$WORK/tree/$1" ] || return 0
	rm "$WORK/tree/$1"
	cp "$SRC_TREE/$1" "$WORK/tree/$1"
}

# farm_deps_ok DEPFILE: true when every file a compile read (its -MMD
# dependency file) is the one a real tree would have given; else the
# directories a ".." climbed out of are made real (the compile must run
# again), and false.
farm_deps_ok() {
	[ "$FULL_TREE" = 0 ] && [ -f "$WORK/tree/$1" ] || return 0
	_ok=0
	# shellcheck disable=SC2013 # a dependency file's paths are words
	for _p in $(awk '{ for (i = 1; i <= NF; i++) print $i }' "$WORK/tree/$1" |
		grep -v -e '^/' -e ':$' | grep -e '/\.\./' -e '^\.\./' | sort -u); do
		_phys=$(cd "$WORK/tree" && realpath -m -- "$_p")
		_logi=$(realpath -m -- "$(realpath -m -s -- "$WORK/tree/$_p")")
		[ "$_phys" != "$_logi" ] || continue
		farm_climbs "$_p"
		_ok=1
	done
	return "$_ok"
}

# farm_climbs PATH: each directory PATH climbs out of with "..", real
farm_climbs() {
	_cp=
	for _c in $(echo "$1" | tr / ' '); do
		if [ "$_c" = .. ] && [ -n "$_cp" ]; then
			_d=$(realpath -m -s --relative-to="$WORK/tree" "$WORK/tree/$_cp")
			case $_d in .. | ../*) ;; *) farm_dir "$_d" ;; esac
		fi
		_cp=${_cp:+$_cp/}$_c
	done
}

# full_tree: WORK/tree a hard-linked copy of the prepared tree, for
# Kbuild (the fallback), less tools/, which is copied.  Kbuild rewrites
# a file it rebuilds in place, and a hard link carries that write into
# the cache and into every build running beside this one.  The units'
# outputs are unlinked before each compile (unlink_outputs) and the tree
# was prepared with the units' flags (prepare.sh), so Kbuild rebuilds
# nothing else of it; but objtool and resolve_btfids record absolute
# paths, so each such tree builds them again, into its own copy, and the
# syscall check of every make writes its dependency file again.
full_tree() {
	[ "$FULL_TREE" = 0 ] || return 0
	progress "copying the prepared tree (for Kbuild)"
	rm -rf "$WORK/tree"
	if ! cp -al "$SRC_TREE" "$WORK/tree" || ! rm -rf "$WORK/tree/tools" ||
		! cp -a "$SRC_TREE/tools" "$WORK/tree/tools"; then
		fail "cannot copy $SRC_TREE into $WORK"
	fi
	rm -f "$WORK/tree/.missing-syscalls.d"
	FULL_TREE=1
}

# kbuild_env_capture DIR: what the top Makefile of the prepared tree DIR
# exports to Kbuild's per-directory makes, as sh(1) reads it (cmds.mk)
kbuild_env_capture() {
	env -i PATH="$PATH" HOME="${HOME:-/}" make -s -C "$1" -f Makefile \
		-f "$KLPC_BUILD_DIR/cmds.mk" ARCH=x86 CC="$TGT_CC" \
		KERNELRELEASE="$TGT_KVER" KCFLAGS="$KLPC_BUILD_KCFLAGS" klpc-env
}

# ensure_kbuild_env: KBUILD_ENV, captured now in the farm if the prepared
# tree predates it (under the tree's lock: builds side by side share it);
# empty when it cannot be (every unit then goes to Kbuild)
ensure_kbuild_env() {
	KBUILD_ENV=${SRC_TREE%/src}/kbuild.env
	[ ! -s "$KBUILD_ENV" ] || return 0
	exec 9>"${SRC_TREE%/src}.lock"
	flock 9
	if [ ! -s "$KBUILD_ENV" ] &&
		kbuild_env_capture "$WORK/tree" >"$KBUILD_ENV.$$" 2>>"$WORK/build.log" &&
		grep -q '^export KBUILD_CFLAGS=' "$KBUILD_ENV.$$"; then
		mv -f "$KBUILD_ENV.$$" "$KBUILD_ENV"
	fi
	rm -f "$KBUILD_ENV.$$"
	flock -u 9
	[ -s "$KBUILD_ENV" ] || KBUILD_ENV=
}

# unit_kdir UNIT: the directory Kbuild builds UNIT from (the one whose
# Kbuild file lists it: fs/xfs for fs/xfs/libxfs/xfs_bit.o), as reach.sh
# found it
unit_kdir() {
	awk -v u="$1" '$1 == u { print $2; exit }' "$WORK/units.kdir"
}

# kbuild_cmds TARGET...: Kbuild's command for each TARGET (dir/x.o, or
# dir/x.i for the preprocessor) in WORK/tree/dir/.x.o.cmd (cmds.mk): one
# make per Kbuild directory, JOBS at a time; a target without one gets
# no command
kbuild_cmds() {
	[ -n "$KBUILD_ENV" ] || return 0
	rm -rf "$WORK/kdirs"
	mkdir -p "$WORK/kdirs"
	for _t in "$@"; do
		_kd=$(unit_kdir "${_t%.?}.o")
		[ -n "$_kd" ] || continue
		farm_dir "$(dirname "$_t")"
		rm -f "$WORK/tree/$(dirname "$_t")/.$(basename "$_t").cmd"
		echo "$_t" >>"$WORK/kdirs/$(echo "$_kd" | tr / :)"
	done
	# shellcheck disable=SC2046 # directory names are words
	each_in_parallel "" kdir_cmds $(ls "$WORK/kdirs")
}

# kdir_cmds KEY: cmds.mk for the targets listed in WORK/kdirs/KEY
kdir_cmds() {
	# shellcheck disable=SC2046,SC2016 # object names are words; the
	# inner shell's arguments
	(cd "$WORK/tree" && env -i PATH="$PATH" HOME="${HOME:-/}" \
		abs_srctree="$WORK/tree" abs_objtree="$WORK/tree" \
		sh -c '. "$1" && shift && exec make -n -k -rR --no-print-directory "$@"' \
		sh "$KBUILD_ENV" -f "$KLPC_BUILD_DIR/cmds.mk" obj="$(echo "$1" | tr : /)" \
		need-builtin=1 need-modorder=1 $(cat "$WORK/kdirs/$1")) \
		>/dev/null 2>>"$WORK/build.log" || true
}

# target_cmd TARGET: the .cmd file kbuild_cmds wrote for TARGET, relative
# to WORK/tree
target_cmd() {
	echo "$(dirname "$1")/.$(basename "$1").cmd"
}

# run_in_tree CMD [CPATH]: the shell command CMD run in WORK/tree (with
# CPATH, for the patched units: an empty one would add the current
# directory to the include path), its output into the log
run_in_tree() {
	if [ -n "${2:-}" ]; then
		(cd "$WORK/tree" && CPATH=$2 sh -c "$1") >>"$WORK/build.log" 2>&1
	else
		(cd "$WORK/tree" && sh -c "$1") >>"$WORK/build.log" 2>&1
	fi
}
