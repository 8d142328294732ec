#!/bin/sh
# make check: checkpatch (--strict) on our C sources, a W=1 sparse build
# without warnings, shellcheck on our shell scripts.
# Each step prints PASS or FAIL; the last line is "check: N passed, N failed".
# Env: KLPC_KDIR (kernel build tree), KLPC_CACHE (checkpatch cache).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

C_DIRS="klp-core include sample-patches tests/modules bench examples"
SH_DIRS="vm tests .ci tools bench cli examples packaging klp-convert klp-build"
LOGDIR=$ROOT/build/check
PASSED=0
FAILED=0

# step_result NAME STATUS SECONDS
step_result() {
	if [ "$2" -eq 0 ]; then
		echo "PASS: $1 ($3 s)"
		PASSED=$((PASSED + 1))
	else
		echo "FAIL: $1 ($3 s)"
		FAILED=$((FAILED + 1))
	fi
}

# c_sources: our *.c and *.h (not the *.mod.c kbuild generates).
c_sources() {
	for d in $C_DIRS; do
		[ -d "$ROOT/$d" ] || continue
		find "$ROOT/$d" -type f \( -name '*.c' -o -name '*.h' \) \
			! -name '*.mod.c'
	done | sort
}

# shell_scripts: *.sh files and files whose first line names sh or bash.
# (The loop must not end on a failing test: under set -e that would end
# the listing at the first directory whose last file found is no script.)
shell_scripts() {
	for d in $SH_DIRS; do
		[ -d "$ROOT/$d" ] || continue
		find "$ROOT/$d" -type f ! -name '*.ko' ! -name '*.o' | while read -r f; do
			case $f in
			*.sh) echo "$f" ;;
			*) if head -n 1 "$f" | grep -Eq '^#!.*[/ ](ba)?sh( |$)'; then
				echo "$f"
			fi ;;
			esac
		done
	done | sort
}

# checkpatch_dir: checkpatch.pl and its data files, extracted once from
# the linux-source-6.1 tarball into the cache.
checkpatch_dir() {
	tarball=/usr/src/linux-source-6.1.tar.xz
	[ -f "$tarball" ] || ensure_pkgs linux-source-6.1 xz-utils
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo local)
	dir=$KLPC_CACHE/checkpatch/$ver
	if [ ! -x "$dir/checkpatch.pl" ]; then
		msg "extracting checkpatch.pl from $tarball"
		mkdir -p "$dir.tmp"
		tar -xJf "$tarball" -C "$dir.tmp" --strip-components=2 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# checkpatch_files CHECKPATCH IGNORE: checkpatch --strict each file named
# on stdin (IGNORE: its --ignore list, or NONE), one perl per core; prints
# the complaints, fails if any.
checkpatch_files() {
	# shellcheck disable=SC2016 # the $N are sh -c's arguments
	xargs -P "$(nproc)" -I{} sh -c 'out=$(perl "$1" --strict --no-tree \
		--terse --show-types --ignore "$2" -f "$3" 2>&1) ||
		{ echo "$out"; exit 1; }' checkpatch "$1" "$2" {}
}

do_checkpatch() {
	files=$(c_sources)
	[ -n "$files" ] || {
		echo "no C sources"
		return 1
	}
	cp=$(checkpatch_dir)/checkpatch.pl
	rc=0
	# shellcheck disable=SC2086 # a list of paths without blanks
	printf '%s\n' $files | checkpatch_files "$cp" NONE || rc=1
	# klpc-convert, klpc-compare, klpc-emit and klpc-kallsyms are user
	# space over libelf: their types are libelf's
	printf '%s\n' "$ROOT"/kelf/*.[ch] "$ROOT"/klp-convert/*.[ch] "$ROOT"/klp-build/compare/*.[ch] \
		"$ROOT"/klp-build/emit/*.[ch] "$ROOT"/klp-build/image/*.[ch] |
		checkpatch_files "$cp" \
			CAMELCASE,PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO ||
		rc=1
	echo "checkpatch: $(echo "$files" | wc -l) file(s) checked, and kelf/, klp-convert/, klp-build/compare/, klp-build/emit/, klp-build/image/"
	return $rc
}

# kbuild LOG ARGS...: a clean kbuild run with ARGS, output in LOG.
kbuild() {
	log=$1
	shift
	make -C "$KDIR" M="$ROOT" clean >/dev/null 2>&1 || true
	# what the tree is now built against (see 'modules' in the Makefile)
	mkdir -p "$ROOT/build"
	echo "$KDIR" >"$ROOT/build/kbuild-kdir"
	make -C "$KDIR" M="$ROOT" -j"$(nproc)" KBUILD_MODPOST_WARN=1 "$@" modules >"$log" 2>&1
}

# converted_re: modpost's warning of an undefined symbol in a module that
# klpc-convert converts (*/klpc-convert.list): those call unexported
# functions by name, as the Makefile's build allows (KBUILD_MODPOST_WARN=1;
# tools/convert-modules.sh refuses one in any other module).
converted_re() {
	for list in "$ROOT"/*/klpc-convert.list; do
		sed 's/#.*//' "$list" | awk -v d="$(dirname "$list")" 'NF { sub(/^[?]/, "", $1); print d "/" $1 ".ko" }'
	done | sed 's/[.]/[.]/g' | paste -sd '|' |
		sed 's/^\(.*\)$/^WARNING: modpost: "[^"]+" \\[(\1)\\] undefined!$/'
}

# kbuild_clean NAME REGEX FLAGS...: a clean build with FLAGS must succeed
# and print no line matching REGEX (case-insensitive).
kbuild_clean() {
	_name=$1
	_re=$2
	shift 2
	_log=$LOGDIR/$_name.log
	if ! kbuild "$_log" "$@"; then
		tail -n 40 "$_log"
		echo "$_name build failed (log: $_log)"
		return 1
	fi
	if grep -Ei "$_re" "$_log" | grep -Ev "$(converted_re)"; then
		echo "$_name build reports problems (log: $_log)"
		return 1
	fi
}

# one build for both (the compiler's warnings and sparse's come in one
# log): a build of every module less
do_w1_sparse() {
	kbuild_clean w1-sparse '(warning|error):' W=1 C=2
}

# The compat sample must be an upstream patch module but for one line: with
# that line swapped for <linux/livepatch.h> it builds for the built-in
# livepatch as well.
do_compat() {
	src=$ROOT/sample-patches/klpc-compat-sample.c
	dir=$LOGDIR/compat-upstream
	rm -rf "$dir"
	mkdir -p "$dir"
	sed 's|#include <klpc-compat.h>|#include <linux/livepatch.h>|' "$src" \
		>"$dir/compat-upstream.c"
	grep -n 'klpc_' "$dir/compat-upstream.c" | grep -v -E ':( \*|/\*|//)' &&
		{ echo "klpc_ names outside comments"; return 1; }
	echo 'obj-m += compat-upstream.o' >"$dir/Kbuild"
	make -C "$KDIR" M="$dir" W=1 modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log"; return 1; }
	if grep -E '(warning|error):' "$dir/build.log"; then
		return 1
	fi
	echo "builds against <linux/livepatch.h> as well"
}

do_shellcheck() {
	files=$(shell_scripts)
	# shellcheck disable=SC2086 # a list of paths without blanks
	# one shellcheck per core, a share of the scripts each
	echo "$files" | (cd "$ROOT" && xargs -P "$(nproc)" -n 24 shellcheck -x) ||
		return 1
	echo "shellcheck: $(echo "$files" | wc -l) script(s) checked"
}

# The command as klpc-tools installs it (make install-tools) finds its
# functions in the share directory, and the patch fragment finds klpc.h.
do_installed() {
	dest=$LOGDIR/install-tools
	rm -rf "$dest"
	make -s -C "$ROOT" install-tools DESTDIR="$dest" || return 1
	KLPC_SHARE=$dest/usr/share/klpc "$dest/usr/sbin/klpc" --help | grep -q '^usage: klpc' ||
		{ echo "the installed klpc does not run"; return 1; }
	# shellcheck disable=SC2016 # $(KLPC_INCLUDE) is make's
	inc=$(make -s -f "$dest/usr/share/klpc/klpc-patch.mk" \
		--eval 'klpc-show-include: ; @echo $(KLPC_INCLUDE)' klpc-show-include)
	[ "$inc" = "$dest/usr/share/klpc/include" ] ||
		{ echo "klpc-patch.mk does not find the installed klpc.h"; return 1; }
	echo "installed into $dest: klpc runs, klpc-patch.mk finds klpc.h"
}

# klpc symvers reads from klpc.ko the CRCs kbuild wrote into Module.symvers,
# and the example patch builds out of tree with klpc-patch.mk from them
# without a modpost warning (after the builds above, klpc.ko is there).
do_patch_build() {
	[ -f "$ROOT/klpc.ko" ] || { echo "no klpc.ko: the builds above failed?"; return 1; }
	"$ROOT/cli/klpc" symvers "$ROOT/klpc.ko" | cut -f1,2 | sort >"$LOGDIR/symvers.cli"
	awk -F'\t' '$3 ~ /\/klpc$/ { print $1 "\t" $2 }' "$ROOT/Module.symvers" | sort \
		>"$LOGDIR/symvers.kbuild"
	if [ ! -s "$LOGDIR/symvers.kbuild" ] ||
		! cmp -s "$LOGDIR/symvers.cli" "$LOGDIR/symvers.kbuild"; then
		diff "$LOGDIR/symvers.kbuild" "$LOGDIR/symvers.cli"
		echo "klpc symvers differs from Module.symvers"
		return 1
	fi
	# as DKMS installs it where the kernel's modules are compressed
	# (Debian 13's: klpc.ko.xz)
	xz -c "$ROOT/klpc.ko" >"$LOGDIR/klpc.ko.xz"
	"$ROOT/cli/klpc" symvers "$LOGDIR/klpc.ko.xz" | cut -f1,2 | sort >"$LOGDIR/symvers.xz"
	cmp -s "$LOGDIR/symvers.cli" "$LOGDIR/symvers.xz" ||
		{ echo "klpc symvers of klpc.ko.xz differs from that of klpc.ko"; return 1; }
	dir=$ROOT/examples/loadavg-fix
	make -C "$dir" KLPC_MK="$ROOT/cli/klpc-patch.mk" KDIR="$KDIR" \
		KLPC_KO="$ROOT/klpc.ko" clean >/dev/null 2>&1 || true
	make -C "$dir" KLPC_MK="$ROOT/cli/klpc-patch.mk" KDIR="$KDIR" \
		KLPC_KO="$ROOT/klpc.ko" KLPC_VMLINUX_ID=0123456789abcdef \
		KLPC_REPLACES=vmlinux:loadavg_proc_show W=1 >"$LOGDIR/patch-build.log" 2>&1 ||
		{ cat "$LOGDIR/patch-build.log"; return 1; }
	if grep -E '(WARNING|warning|error):' "$LOGDIR/patch-build.log"; then
		return 1
	fi
	"$ROOT/klp-convert/klpc-convert" --show "$dir/klpc-loadavg-fix.ko" | grep -q '^build-id vmlinux ' ||
		{ echo "klpc-patch.mk did not convert the patch"; return 1; }
	echo "klpc symvers matches Module.symvers ($(wc -l <"$LOGDIR/symvers.cli") symbols, also from klpc.ko.xz); examples/loadavg-fix builds with klpc-patch.mk"
}

# README names only make targets and klpc commands that exist, and the
# check sees a name that does not (a copy of README with one of each).
do_readme() {
	"$ROOT/tools/check-readme.sh" || return 1
	sed -e 's/make vm-demo /make vm-no-such-target /' \
		-e 's/klpc status/klpc no-such-command/' \
		"$ROOT/README.md" >"$LOGDIR/README-broken.md"
	out=$("$ROOT/tools/check-readme.sh" "$LOGDIR/README-broken.md") &&
		{ echo "a README naming no-such targets passed"; return 1; }
	for want in 'make vm-no-such-target: no such target' \
		'klpc no-such-command: cli/klpc has no such command'; do
		echo "$out" | grep -q "$want" ||
			{ echo "not reported: '$want' in: $out"; return 1; }
	done
	echo "a broken copy is refused: $(echo "$out" | wc -l) line(s)"
}

# klpc-convert builds warning-free (-Wall -Wextra -Werror) and passes its
# host tests (klp-convert/check-convert.sh: conversions and refusals).
do_convert() {
	rm -f "$ROOT/klp-convert/klpc-convert"
	make -s -C "$ROOT" klp-convert/klpc-convert || return 1
	"$ROOT/klp-convert/check-convert.sh" "$KDIR" "$LOGDIR/convert"
}

# klpc build's comparison (klpc-compare) builds warning-free and tells
# what changed in small units compiled as the kernel is
# (klp-build/compare/check-compare.sh).
do_compare() {
	rm -f "$ROOT/klp-build/compare/klpc-compare"
	make -s -C "$ROOT" klp-build/compare/klpc-compare || return 1
	"$ROOT/klp-build/compare/check-compare.sh" "$LOGDIR/compare"
}

# klpc build's emit step (klpc-emit) builds warning-free and places each
# name of a patch in the running kernel once, or refuses
# (klp-build/emit/check-emit.sh).
do_emit() {
	rm -f "$ROOT/klp-build/emit/klpc-emit"
	make -s -C "$ROOT" klp-build/emit/klpc-emit || return 1
	"$ROOT/klp-build/emit/check-emit.sh" "$LOGDIR/emit"
}

# klpc build's symbols of a kernel it does not run on (klpc-kallsyms)
# build warning-free and are, read from Debian's vmlinuz, those a guest
# booted on it showed in /proc/kallsyms (vm/kallsyms.sh's dump; the
# image is fetched as the guests' is) (klp-build/image/check-kallsyms.sh).
do_kallsyms() {
	rm -f "$ROOT/klp-build/image/klpc-kallsyms"
	make -s -C "$ROOT" klp-build/image/klpc-kallsyms || return 1
	kver=$(kdir_kver "$KDIR")
	dump=$KLPC_CACHE/kernel/$kver/kallsyms
	if [ ! -s "$dump" ]; then
		echo "skipped: no $dump (vm/kallsyms.sh boots a guest on $kver and dumps it)"
		return 0
	fi
	image=$(KLPC_KDIR=$KDIR "$ROOT/vm/kernel.sh" "$kver") || return 1
	"$ROOT/klp-build/image/check-kallsyms.sh" "$image" "$dump" "$LOGDIR/kallsyms"
}

# klpc build's #line directives (klpc-fix-lines): a diff that only moves
# lines compiles as before (klp-build/lines/check-lines.sh).
do_lines() {
	"$ROOT/klp-build/lines/check-lines.sh" "$LOGDIR/lines"
}

# build_target_kver: kver, the release of KDIR's headers, when klpc
# build can target it (an installed Debian headers package: its source
# and tools installed now); else false, saying the step is skipped
build_target_kver() {
	kver=${KDIR##*/linux-headers-}
	if [ "$kver" = "$KDIR" ] || ! dpkg-query -W "linux-headers-$kver" >/dev/null 2>&1; then
		echo "skipped: $KDIR is not an installed Debian headers package"
		return 1
	fi
	ensure_pkgs linux-source-6.1 xz-utils patch
}

# klpc build's refusals on real diffs of the target's source
# (klp-build/check-build.sh), for the installed headers package.
do_build_refusals() {
	build_target_kver || return 0
	make -s -C "$ROOT" klp-build/compare/klpc-compare klp-build/emit/klpc-emit \
		klp-convert/klpc-convert klp-build/image/klpc-kallsyms || return 1
	"$ROOT/klp-build/check-build.sh" "$kver"
}

# the units klpc build finds for a diff: through a directory's -I, a .c
# another .c includes (klp-build/check-reach.sh)
do_build_reach() {
	build_target_kver || return 0
	"$ROOT/klp-build/check-reach.sh" "$kver"
}

# Debian's -rt flavour (PREEMPT_RT): building klpc.ko alone, as klpc-dkms
# does, against its headers must stop at once with Kbuild's reason.
do_rt_refused() {
	ensure_pkgs linux-headers-rt-amd64
	rt=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-rt-amd64' | sort -V | tail -n 1)
	[ -n "$rt" ] || {
		echo "no linux-headers-*-rt-amd64 in /usr/src"
		return 1
	}
	grep -q '^CONFIG_PREEMPT_RT=y' "$rt/.config" || {
		echo "$rt: CONFIG_PREEMPT_RT is not set"
		return 1
	}
	tmp=$(mktemp -d)
	cp -r "$ROOT/Kbuild" "$ROOT/klp-core" "$ROOT/include" "$tmp/"
	mrc=0
	make -C "$rt" M="$tmp" modules >"$tmp/log" 2>&1 || mrc=$?
	grep -m1 'does not support PREEMPT_RT' "$tmp/log" || true
	if [ "$mrc" -eq 0 ] || ! grep -q 'does not support PREEMPT_RT' "$tmp/log"; then
		echo "the build against ${rt##*/} was not refused for PREEMPT_RT (make exited $mrc):"
		tail -n 5 "$tmp/log"
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "$tmp"
}

# step NAME FUNCTION: run a step, indenting its output.
step() {
	echo "== $1"
	rc=0
	t0=$(date +%s)
	"$2" >"$LOGDIR/$2.out" 2>&1 || rc=$?
	sed 's/^/    /' "$LOGDIR/$2.out"
	step_result "$1" "$rc" "$(($(date +%s) - t0))"
}

main() {
	ensure_pkgs perl sparse shellcheck make gcc
	KDIR=${KLPC_KDIR:-$("$ROOT/tools/kdir.sh")}
	[ -d "$KDIR" ] || die "no kernel build tree at '$KDIR'"
	mkdir -p "$LOGDIR"
	step "checkpatch --strict" do_checkpatch
	step "W=1 and sparse (C=2) build without warnings" do_w1_sparse
	step "compat sample is upstream source" do_compat
	step "shellcheck" do_shellcheck
	step "klpc-convert and its host tests" do_convert
	step "klpc-compare and its host tests" do_compare
	step "klpc-emit places each name once" do_emit
	step "klpc-fix-lines and its host tests" do_lines
	step "klpc-kallsyms reads a guest's /proc/kallsyms from its image" do_kallsyms
	step "klpc build refuses what it cannot patch" do_build_refusals
	step "klpc build finds every unit a diff reaches" do_build_reach
	step "klpc-tools as installed" do_installed
	step "a patch built out of tree (klpc-patch.mk)" do_patch_build
	step "PREEMPT_RT refused" do_rt_refused
	step "README names what exists" do_readme
	echo "check: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

main "$@"
