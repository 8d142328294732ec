# shellcheck shell=sh
# klpc build, step 5: the patch module.
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

# c_string TEXT: TEXT as a C string literal's contents.
c_string() {
	printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n' ' '
}

# hook_objects: the objects the patch has functions or callbacks for
hook_objects() {
	cut -d' ' -f1 "$WORK/module/funcs" "$WORK/module/callbacks" | sort -u
}

# hook_object OBJ: OBJ's klpc_func table; its klpc_object entry, callbacks
# included, is added to HOOK_OBJS
hook_object() {
	echo
	echo "static struct klpc_func klpc_funcs_$1[] = {"
	awk -v o="$1" '$1 == o && $4 == 0 { print "\t{ .old_name = \"" $2 "\", .new_func = " $3 " }," }
		$1 == o && $4 != 0 { print "\t{ .old_name = \"" $2 "\", .new_func = " $3 ", .old_sympos = " $4 " }," }' \
		"$WORK/module/funcs"
	echo "	{ }"
	echo "};"
	_name=NULL
	[ "$1" = vmlinux ] || _name="\"$1\""
	_cb=$(awk -v o="$1" '$1 == o { print "\t  .callbacks." $2 " = " $3 "," }' \
		"$WORK/module/callbacks")
	[ -z "$_cb" ] || _cb="$_cb
"
	HOOK_OBJS="$HOOK_OBJS	{ .name = $_name, .funcs = klpc_funcs_$1,
$_cb	},
"
}

# emit_hook: WORK/module/klpc-hook.c, the patch's klpc_patch, from the
# "OBJECT KNAME ALIAS SYMPOS" lines of WORK/module/funcs, the "OBJECT KIND ALIAS"
# lines of WORK/module/callbacks and the lines of
# WORK/module/annots (unexported symbols whose object or position, sympos,
# the relocation must name: "OBJECT NAME POS").
emit_hook() {
	HOOK_OBJS=
	for _o in $(hook_objects); do
		hook_object "$_o"
	done >"$WORK/module/tables"
	{
		echo "// SPDX-License-Identifier: GPL-2.0"
		echo "/* made by klpc build from $FIX_LABEL */"
		echo "#include <linux/module.h>"
		echo "#include <klpc.h>"
		echo
		awk '{ print "extern void " $3 "(void);" }' "$WORK/module/funcs"
		awk '$2 == "pre_patch" { print "extern int " $3 "(struct klpc_object *);" }
		     $2 != "pre_patch" { print "extern void " $3 "(struct klpc_object *);" }' \
			"$WORK/module/callbacks"
		awk '{ print "KLPC_SYMBOL(" $2 ", \"" $1 "\", " $3 ");" }' "$WORK/module/annots"
		cat "$WORK/module/tables"
		echo
		echo "static struct klpc_object klpc_objs[] = {"
		printf '%s' "$HOOK_OBJS"
		echo "	{ }"
		echo "};"
		cat <<'EOF'

static struct klpc_patch klpc_patch = {
	.mod = THIS_MODULE,
	.objs = klpc_objs,
EOF
		# cumulative by default: loading it retires the patches before
		[ "$OPT_REPLACE" = 0 ] || printf '\t.replace = true,\n'
		cat <<'EOF'
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
	} >"$WORK/module/klpc-hook.c"
}

# unexported UNITOBJ: the symbols UNITOBJ leaves undefined that the kernel
# does not export
unexported() {
	nm -u "$1" | awk '{ print $2 }' | while read -r _s; do
		grep -q "^0x[0-9a-f]*	$_s	" "$TGT_KDIR/Module.symvers" "$KLPC_SYMVERS" ||
			echo "$_s"
	done
}

# module_annots OBJ UNITOBJ: an "OBJ NAME 0" line for each unexported
# symbol UNITOBJ uses.  A module's code can only have used exported
# symbols and its own: the others are OBJ's, and klpc-convert must look
# for them there, not in vmlinux.
module_annots() {
	unexported "$2" | sed "s/^/$1 /; s/\$/ 0/"
}

# emit_kallsyms: KALLSYMS, the target's symbol list: KLPC_KALLSYMS (the
# tests' dump of a guest's), else the one read from the same image as the
# build ID (image.sh)
emit_kallsyms() {
	KALLSYMS=${KLPC_KALLSYMS:-}
	[ -n "$KALLSYMS" ] || image_kallsyms
}

# vmlinux_facts UNIT UNITOBJ FUNCS: WORK/module/ranked, one pass of
# klp-build/kallsyms.awk over the target's symbols for the names vmlinux
# units need ranked: the replaced functions (the first word of each line
# of FUNCS) and the unexported symbols UNITOBJ uses (WORK/module/unexported)
vmlinux_facts() {
	unexported "$2" >"$WORK/module/unexported"
	cut -d' ' -f1 "$3" | cat - "$WORK/module/unexported" >"$WORK/module/want"
	nm --defined-only "$WORK/orig/$1" | awk '{ print $3 }' >"$WORK/module/anchors"
	awk -f "$KLPC_BUILD_DIR/kallsyms.awk" "$WORK/module/want" \
		"$WORK/module/anchors" "$KALLSYMS" >"$WORK/module/ranked"
}

# vmlinux_annots UNIT: a "vmlinux NAME POS" line for each unexported
# symbol the unit's cut object uses that vmlinux has several of: the
# livepatch relocation must say which (sympos, its rank in kallsyms'
# address order).  Refused when which is UNIT's cannot be told.
# After vmlinux_facts.
vmlinux_annots() {
	awk 'NR == FNR { u[$1] = 1; next } $1 in u' "$WORK/module/unexported" \
		"$WORK/module/ranked" >"$WORK/module/ranked.syms"
	_bad=$(awk '$2 > 1 && $3 == "?" { print $1 " (" $2 " in vmlinux)" }' "$WORK/module/ranked.syms" | head -n 1)
	[ -z "$_bad" ] ||
		fail "${1%.o}.c: the patched code uses $_bad, and which is this unit's cannot be told"
	awk '$2 > 1 { print "vmlinux", $1, $3 }' "$WORK/module/ranked.syms"
}

# vmlinux_funcs UNIT FUNCS: the "KNAME ALIAS" lines of FUNCS as "vmlinux
# KNAME ALIAS POS", POS the replaced function's sympos; and the check that
# the source reproduces the running kernel: each replaced function as
# compiled here (before the diff) must fill the running one's place, its
# size to the next symbol less at most 63 bytes of padding.  Another
# source or compiler almost always changes a function's size.  After
# vmlinux_facts.
vmlinux_funcs() {
	nm -S --defined-only "$WORK/orig/$1" | awk 'NF == 4 { print $4, $2 }' >"$WORK/module/sizes"
	_unit=$1
	while read -r _f _alias; do
		_facts=$(awk -v f="$_f" '$1 == f { print $2, $3, $4 }' "$WORK/module/ranked")
		[ -n "$_facts" ] ||
			fail "${_unit%.o}.c: $_f is not in $TGT_KVER's vmlinux: the source does not match it"
		_count=${_facts%% *}
		_pos=${_facts#* }
		_gap=${_pos#* }
		_pos=${_pos%% *}
		[ "$_pos" != "?" ] ||
			fail "${_unit%.o}.c: vmlinux has $_count functions named $_f, and which is this unit's cannot be told"
		_size=$(awk -v f="$_f" '$1 == f { print $2; exit }' "$WORK/module/sizes")
		_size=$(printf '%d' "0x${_size:-0}")
		if [ "$_gap" = "?" ] || [ "$_gap" -lt "$_size" ] || [ "$_gap" -ge $((_size + 64)) ]; then
			fail "${_unit%.o}.c: $_f compiles to $_size bytes here, the running one takes $_gap: the source or compiler does not match $TGT_KVER"
		fi
		echo "vmlinux $_f $_alias $_pos"
	done <"$2"
}

# emit_objects: WORK/module/uN.o_shipped per changed unit, and the funcs,
# callbacks and annots lists emit_hook reads
emit_objects() {
	_n=0
	: >"$WORK/module/funcs"
	: >"$WORK/module/callbacks"
	: >"$WORK/module/annots.all"
	EMIT_OBJS=
	EMIT_OBJS_SHIPPED=
	# shellcheck disable=SC2013 # unit names are words
	for _u in $(cut -d' ' -f2 "$WORK/changes" | sort -u); do
		_obj=$(unit_object "$_u")
		awk -v u="$_u" '$2 == u { $1 = ""; $2 = ""; sub(/^  /, ""); print }' \
			"$WORK/changes" >"$WORK/module/u$_n.changes"
		_out=$("$KLPC_EMIT" "$WORK/patched/$_u" "$WORK/module/u$_n.changes" \
			"klpc_new_u$_n" "$WORK/module/u$_n.o_shipped" 2>&1) ||
			fail "$(echo "$_out" | sed "s|$WORK/patched/||")"
		echo "$_out" | sed -n "s/^callback /$_obj /p" >>"$WORK/module/callbacks"
		if [ "$_obj" = vmlinux ]; then
			echo "$_out" | sed -n 's/^func //p' >"$WORK/module/u$_n.funcs"
			vmlinux_facts "$_u" "$WORK/module/u$_n.o_shipped" "$WORK/module/u$_n.funcs"
			vmlinux_funcs "$_u" "$WORK/module/u$_n.funcs" >>"$WORK/module/funcs"
			vmlinux_annots "$_u" >>"$WORK/module/annots.all"
		else
			echo "$_out" | sed -n "s/^func \(.*\)/$_obj \1 0/p" >>"$WORK/module/funcs"
			module_annots "$_obj" "$WORK/module/u$_n.o_shipped" >>"$WORK/module/annots.all"
		fi
		# modpost reads each object's .cmd (for CRCs of what it
		# exports: nothing here)
		echo "cmd_u$_n.o := klpc-emit" >"$WORK/module/.u$_n.o.cmd"
		EMIT_OBJS="$EMIT_OBJS u$_n.o"
		EMIT_OBJS_SHIPPED="$EMIT_OBJS_SHIPPED u$_n.o_shipped"
		_n=$((_n + 1))
	done
	# less what the patch's own units define (a new function of the diff)
	# shellcheck disable=SC2086 # a list of object names
	(cd "$WORK/module" && nm --defined-only $EMIT_OBJS_SHIPPED) |
		awk 'NF == 3 { print $3 }' | sort -u >"$WORK/module/defined"
	awk 'NR == FNR { d[$1] = 1; next } !($2 in d)' "$WORK/module/defined" \
		"$WORK/module/annots.all" >"$WORK/module/annots"
	_dup=$(sort -u "$WORK/module/annots" | cut -d' ' -f2 | uniq -d | head -n 1)
	[ -z "$_dup" ] || fail "two units use two different symbols named $_dup"
	_dup=$(cut -d' ' -f1,2 "$WORK/module/callbacks" | sort | uniq -d | head -n 1)
	[ -z "$_dup" ] || fail "two ${_dup#* } callbacks for ${_dup%% *}: one of each kind per object"
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
	[ -s "$WORK/module/funcs" ] || [ -s "$WORK/module/callbacks" ] ||
		fail "$FIX_LABEL changes no function the kernel calls: nothing to patch"
	emit_hook
	_mod=$(echo "$OPT_NAME" | tr - _)
	printf 'obj-m := %s.o\n%s-y := klpc-hook.o%s\nccflags-y += -I%s\n' \
		"$_mod" "$_mod" "$EMIT_OBJS" "$KLPC_INCLUDE" >"$WORK/module/Kbuild"
	progress "linking $_mod.ko"
	make -C "$TGT_KDIR" M="$WORK/module" KBUILD_MODPOST_WARN=1 \
		KBUILD_EXTRA_SYMBOLS="$KLPC_SYMVERS" modules \
		>"$WORK/module/build.log" 2>&1 ||
		fail "the module does not link: $(grep -E 'error|ERROR' "$WORK/module/build.log" | head -n 3)"
	_replaces=$(awk '$4 == 0 { print "-r " $1 ":" $2 } $4 != 0 { print "-r " $1 ":" $2 "," $4 }' \
		"$WORK/module/funcs")
	# the target's modules: their symbols checked, their build IDs recorded
	_mdir=${KLPC_MODULE_DIR:-/lib/modules/$TGT_KVER/kernel}
	[ ! -d "$_mdir" ] || _replaces="$_replaces --module-dir $_mdir"
	progress "converting (livepatch relocations, build record)"
	# shellcheck disable=SC2086 # options are words
	_out=$("$KLPC_CONVERT" -s "$TGT_KDIR/Module.symvers" -s "$KLPC_SYMVERS" \
		--vmlinux-id "$_vmlinux_id" $_replaces \
		-o "$WORK/module/converted.ko" "$WORK/module/$_mod.ko" 2>&1) ||
		fail "$_out"
	mv "$WORK/module/converted.ko" "$OPT_OUT.tmp"
	mv "$OPT_OUT.tmp" "$OPT_OUT"
}
