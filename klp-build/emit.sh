# shellcheck shell=sh
# klpc build, step 5: the patch module.
#
# klpc-emit (emit/, C over libelf) cuts each changed unit's patched object
# down to the functions the comparison named and what they need, places
# every name the patch's code has of the running kernel once (vmlinux's
# sympos from the target's kallsyms, a module's own symbols, what is
# exported), checks that the source reproduces the running kernel, and
# writes the lists of the fixed hook module (hook/klpc-hook.c).  Kbuild
# links the hook and the cut-down objects against the target's headers,
# as any patch module is built; klpc-convert then rewrites every
# reference to a symbol the kernel does not export into a livepatch
# relocation and writes the build record (vmlinux's build ID, the
# replaced functions).
#
# Sourced by klp-build/klpc-build; uses WORK, TGT_* and WORK/changes.

KLPC_EMIT=${KLPC_EMIT:-$KLPC_BUILD_DIR/emit/klpc-emit}
# this tree's (a clone), else the installed ones (klpc-tools: /usr/bin)
KLPC_CONVERT=${KLPC_CONVERT:-$KLPC_BUILD_DIR/../klp-convert/klpc-convert}
[ -x "$KLPC_CONVERT" ] || KLPC_CONVERT=klpc-convert

# klpc's own symbol versions and headers: this tree's, else the installed.
emit_klpc_files() {
	KLPC_SYMVERS=${KLPC_SYMVERS:-}
	if [ -z "$KLPC_SYMVERS" ] && [ -f "$KLPC_BUILD_DIR/../Module.symvers" ]; then
		KLPC_SYMVERS=$KLPC_BUILD_DIR/../Module.symvers
	fi
	[ -n "$KLPC_SYMVERS" ] ||
		KLPC_SYMVERS=/var/lib/dkms/klpc/kernel-$TGT_KVER-x86_64/Module.symvers
	grep -q 'klpc_enable_patch' "$KLPC_SYMVERS" 2>/dev/null ||
		fail "no Module.symvers of klpc.ko for $TGT_KVER at $KLPC_SYMVERS: install klpc-dkms, or set KLPC_SYMVERS"
	klpc_include
}

# vmlinux's build ID, for the record: KLPC_VMLINUX_ID (the tests'), else
# the target image's (image.sh: /boot's, else the one fetched).
emit_vmlinux_id() {
	if [ -n "${KLPC_VMLINUX_ID:-}" ]; then
		echo "$KLPC_VMLINUX_ID"
	else
		echo "$TGT_IMAGE_ID"
	fi
}

# emit_kallsyms: KALLSYMS, the target's symbol list: KLPC_KALLSYMS (the
# tests' dump of a guest's), else the one read from the same image as the
# build ID (image.sh)
emit_kallsyms() {
	KALLSYMS=${KLPC_KALLSYMS:-}
	[ -n "$KALLSYMS" ] || image_kallsyms
}

# emit_layout: EMIT_LAYOUT, the target's entry size of each special
# section (klpc-emit's probe of their types compiled against the target's
# headers: emit/layout.c), kept beside the prepared tree until it or
# klpc-emit is newer
emit_layout() {
	EMIT_LAYOUT=$KLPC_CACHE/build/$TGT_KVER/layout
	[ -z "$(find "$EMIT_LAYOUT" -newer "${EMIT_LAYOUT%/*}/prepared" \
		-newer "$KLPC_EMIT" 2>/dev/null)" ] || return 0
	mkdir -p "$WORK/layout"
	_objs=$("$KLPC_EMIT" --layout-probe "$WORK/layout") || fail "$_objs"
	# a type the target lacks fails alone: its section gets no size
	# shellcheck disable=SC2086 # object names
	make -k -C "$TGT_KDIR" M="$WORK/layout" -j"$JOBS" $_objs \
		>"$WORK/layout/make.log" 2>&1 || :
	objdump -h "$WORK/layout"/*.o 2>/dev/null |
		awk '$2 ~ /^\.klpc_layout\./ { print substr($2, 14), $3 }' |
		while read -r _sec _hex; do printf '%s %d\n' "$_sec" "0x$_hex"; done \
		>"$EMIT_LAYOUT.$$"
	[ -s "$EMIT_LAYOUT.$$" ] ||
		fail "the special sections' entry sizes of $TGT_KVER: $(grep -m 1 'error' "$WORK/layout/make.log")"
	mv -f "$EMIT_LAYOUT.$$" "$EMIT_LAYOUT"
}

# emit_objects: WORK/module/uN.o_shipped per changed unit, klpc-hook.h
# (the hook's lists) and replaces (the replaced functions), by klpc-emit
emit_objects() {
	set -- --kallsyms "$KALLSYMS" -s "$TGT_KDIR/Module.symvers" \
		-s "$KLPC_SYMVERS" --kver "$TGT_KVER" --label "$FIX_LABEL" \
		--desc "$OPT_DESC"
	for _c in $OPT_CVES; do
		set -- "$@" --cve "$_c"
	done
	[ "$OPT_REPLACE" != 0 ] || set -- "$@" --no-replace
	emit_layout
	_st=0
	_out=$("$KLPC_EMIT" --layout "$EMIT_LAYOUT" "$@" "$WORK/orig" "$WORK/patched" "$WORK/changes" \
		"$WORK/module" 2>&1) || _st=$?
	[ "$_st" != 3 ] ||
		fail "$FIX_LABEL changes no function the kernel calls: nothing to patch"
	[ "$_st" = 0 ] ||
		fail "$(echo "$_out" | sed "s|$WORK/patched/||")"
	EMIT_OBJS=
	for _o in "$WORK"/module/u*.o_shipped; do
		_o=$(basename "$_o" .o_shipped)
		# modpost reads each object's .cmd (for CRCs of what it
		# exports: nothing here)
		echo "cmd_$_o.o := klpc-emit" >"$WORK/module/.$_o.o.cmd"
		EMIT_OBJS="$EMIT_OBJS $_o.o"
	done
}

# emit_module: OPT_OUT, the converted patch module
emit_module() {
	emit_klpc_files
	# the image unless the tests give both what is read from it
	if [ -z "${KLPC_VMLINUX_ID:-}" ] || [ -z "${KLPC_KALLSYMS:-}" ]; then
		target_image
	fi
	_vmlinux_id=$(emit_vmlinux_id)
	mkdir -p "$WORK/module"
	emit_kallsyms
	emit_objects
	cp "$KLPC_BUILD_DIR/hook/klpc-hook.c" "$WORK/module/"
	_mod=$(echo "$OPT_NAME" | tr - _)
	printf 'obj-m := %s.o\n%s-y := klpc-hook.o%s\nccflags-y += -I%s\n' \
		"$_mod" "$_mod" "$EMIT_OBJS" "$KLPC_INCLUDE" >"$WORK/module/Kbuild"
	progress "linking $_mod.ko"
	make -C "$TGT_KDIR" M="$WORK/module" KBUILD_MODPOST_WARN=1 \
		KBUILD_EXTRA_SYMBOLS="$KLPC_SYMVERS" modules \
		>"$WORK/module/build.log" 2>&1 ||
		fail "the module does not link: $(grep -E 'error|ERROR' "$WORK/module/build.log" | head -n 3)"
	_replaces=$(sed 's/^/-r /' "$WORK/module/replaces")
	# the target's modules: their symbols checked, their build IDs recorded
	_mdir=${KLPC_MODULE_DIR:-/lib/modules/$TGT_KVER/kernel}
	[ ! -d "$_mdir" ] || _replaces="$_replaces --module-dir $_mdir"
	progress "converting (livepatch relocations, build record)"
	# shellcheck disable=SC2086 # options are words
	_out=$("$KLPC_CONVERT" -s "$TGT_KDIR/Module.symvers" -s "$KLPC_SYMVERS" \
		--annotated --vmlinux-id "$_vmlinux_id" $_replaces \
		-o "$WORK/module/converted.ko" "$WORK/module/$_mod.ko" 2>&1) ||
		fail "$_out"
	mv "$WORK/module/converted.ko" "$OPT_OUT.tmp"
	mv "$OPT_OUT.tmp" "$OPT_OUT"
}
