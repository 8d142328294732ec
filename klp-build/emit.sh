# shellcheck shell=sh
# klpc build, step 4: the patch module.
#
# Each changed unit's patched object is cut down by klpc-emit (emit/, C
# over libelf) to the functions the comparison named and what they need;
# a generated hook lists them in a klpc_patch (one klpc_object per object,
# one klpc_func per changed function) and enables it at init.  Kbuild links
# the hook and the cut-down objects against the target's headers, as any
# patch module is built; klpc-convert then turns every reference to a
# symbol the kernel does not export into a livepatch relocation and writes
# the build record (vmlinux's build ID, the replaced functions).
#
# Sourced by klp-build/klpc-build; uses WORK, TGT_* and WORK/changes.

KLPC_EMIT=${KLPC_EMIT:-$KLPC_BUILD_DIR/emit/klpc-emit}
# this tree's (a clone), else the installed ones (klpc-tools: /usr/bin)
KLPC_CONVERT=${KLPC_CONVERT:-$KLPC_BUILD_DIR/../klp-convert/klpc-convert}
[ -x "$KLPC_CONVERT" ] || KLPC_CONVERT=klpc-convert
KLPC_BUILD_ID=${KLPC_BUILD_ID:-$KLPC_BUILD_DIR/../klp-convert/klpc-build-id}
[ -x "$KLPC_BUILD_ID" ] || KLPC_BUILD_ID=klpc-build-id

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
	KLPC_INCLUDE=${KLPC_INCLUDE:-$KLPC_BUILD_DIR/../include}
	[ -f "$KLPC_INCLUDE/klpc.h" ] || KLPC_INCLUDE=/usr/share/klpc/include
}

# vmlinux's build ID, for the record: KLPC_VMLINUX_ID, else the image's.
emit_vmlinux_id() {
	if [ -n "${KLPC_VMLINUX_ID:-}" ]; then
		echo "$KLPC_VMLINUX_ID"
	elif [ -f "/boot/vmlinuz-$TGT_KVER" ]; then
		"$KLPC_BUILD_ID" "/boot/vmlinuz-$TGT_KVER"
	else
		fail "no /boot/vmlinuz-$TGT_KVER to read its build ID from: set KLPC_VMLINUX_ID"
	fi
}

# c_string TEXT: TEXT as a C string literal's contents.
c_string() {
	printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n' ' '
}

# emit_hook FUNCS: WORK/module/klpc-hook.c from the "OBJECT KNAME ALIAS"
# lines of FUNCS.
emit_hook() {
	_h=$WORK/module/klpc-hook.c
	{
		echo "// SPDX-License-Identifier: GPL-2.0"
		echo "/* made by klpc build from $(basename "$OPT_FIX") */"
		echo "#include <linux/module.h>"
		echo "#include <klpc.h>"
		echo
		awk '{ print "extern void " $3 "(void);" }' "$1"
		# shellcheck disable=SC2013 # object names are words
		for _o in $(cut -d' ' -f1 "$1" | sort -u); do
			echo
			echo "static struct klpc_func klpc_funcs_${_o}[] = {"
			awk -v o="$_o" '$1 == o { print "\t{ .old_name = \"" $2 "\", .new_func = " $3 " }," }' "$1"
			echo "	{ }"
			echo "};"
		done
		echo
		echo "static struct klpc_object klpc_objs[] = {"
		# shellcheck disable=SC2013 # object names are words
		for _o in $(cut -d' ' -f1 "$1" | sort -u); do
			if [ "$_o" = vmlinux ]; then
				echo "	{ .name = NULL, .funcs = klpc_funcs_$_o },"
			else
				echo "	{ .name = \"$_o\", .funcs = klpc_funcs_$_o },"
			fi
		done
		echo "	{ }"
		echo "};"
		cat <<'EOF'

static struct klpc_patch klpc_patch = {
	.mod = THIS_MODULE,
	.objs = klpc_objs,
};

static int __init klpc_build_init(void)
{
	return klpc_enable_patch(&klpc_patch);
}

static void __exit klpc_build_exit(void)
{
}

module_init(klpc_build_init);
module_exit(klpc_build_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
EOF
		echo "MODULE_DESCRIPTION(\"klpc build: $(c_string "$OPT_DESC")\");"
		echo "KLPC_PATCH_DESC(\"$(c_string "$OPT_DESC")\");"
		for _c in $OPT_CVES; do
			echo "KLPC_PATCH_CVE(\"$(c_string "$_c")\");"
		done
	} >"$_h"
}

# emit_objects: WORK/module/uN.o_shipped per changed unit, WORK/module/funcs
emit_objects() {
	_n=0
	: >"$WORK/module/funcs"
	EMIT_OBJS=
	# shellcheck disable=SC2013 # unit names are words
	for _u in $(cut -d' ' -f2 "$WORK/changes" | sort -u); do
		_obj=$(unit_object "$_u")
		[ "$_obj" = vmlinux ] ||
			fail "${_u%.o}.c is built into the module $_obj: patches of module code are not supported yet"
		awk -v u="$_u" '$2 == u { $1 = ""; $2 = ""; sub(/^  /, ""); print }' \
			"$WORK/changes" >"$WORK/module/u$_n.changes"
		_out=$("$KLPC_EMIT" "$WORK/patched/$_u" "$WORK/module/u$_n.changes" \
			"klpc_new_u$_n" "$WORK/module/u$_n.o_shipped" 2>&1) ||
			fail "$(echo "$_out" | sed "s|$WORK/patched/||")"
		echo "$_out" | sed -n "s/^func /$_obj /p" >>"$WORK/module/funcs"
		# modpost reads each object's .cmd (for CRCs of what it
		# exports: nothing here)
		echo "cmd_u$_n.o := klpc-emit" >"$WORK/module/.u$_n.o.cmd"
		EMIT_OBJS="$EMIT_OBJS u$_n.o"
		_n=$((_n + 1))
	done
}

# emit_module: OPT_OUT, the converted patch module
emit_module() {
	emit_klpc_files
	# fail() in a command substitution would only end the subshell
	_vmlinux_id=$(emit_vmlinux_id) || exit 1
	mkdir -p "$WORK/module"
	emit_objects
	[ -s "$WORK/module/funcs" ] ||
		fail "$OPT_FIX changes no function the kernel calls: nothing to patch"
	emit_hook "$WORK/module/funcs"
	_mod=$(echo "$OPT_NAME" | tr - _)
	printf 'obj-m := %s.o\n%s-y := klpc-hook.o%s\nccflags-y += -I%s\n' \
		"$_mod" "$_mod" "$EMIT_OBJS" "$KLPC_INCLUDE" >"$WORK/module/Kbuild"
	progress "linking $_mod.ko"
	make -C "$TGT_KDIR" M="$WORK/module" KBUILD_MODPOST_WARN=1 \
		KBUILD_EXTRA_SYMBOLS="$KLPC_SYMVERS" modules \
		>"$WORK/module/build.log" 2>&1 ||
		fail "the module does not link: $(grep -E 'error|ERROR' "$WORK/module/build.log" | head -n 3)"
	_replaces=$(awk '{ print "-r " $1 ":" $2 }' "$WORK/module/funcs")
	progress "converting (livepatch relocations, build record)"
	# shellcheck disable=SC2086 # options are words
	_out=$("$KLPC_CONVERT" -s "$TGT_KDIR/Module.symvers" -s "$KLPC_SYMVERS" \
		--vmlinux-id "$_vmlinux_id" $_replaces \
		-o "$WORK/module/converted.ko" "$WORK/module/$_mod.ko" 2>&1) ||
		fail "$_out"
	mv "$WORK/module/converted.ko" "$OPT_OUT.tmp"
	mv "$OPT_OUT.tmp" "$OPT_OUT"
}
