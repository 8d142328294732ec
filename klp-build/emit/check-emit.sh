#!/bin/sh
# Host tests of klpc-emit's placing (klp-build/emit/place.c, kallsyms.c):
# small units compiled as the kernel compiles them for klpc build, a
# kernel's symbols written for each case, and what klpc-emit decides
# about the running kernel checked in the hook's tables (klpc-hook.h,
# replaces) or its refusal.
# Usage: klp-build/emit/check-emit.sh [WORKDIR]
# Prints one line per case and "emit: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
EMIT=$ROOT/klp-build/emit/klpc-emit
DIR=${1:-$ROOT/build/check/emit}
CFLAGS='-O2 -ffunction-sections -fdata-sections -pg -mfentry -mrecord-mcount -fno-pic -mcmodel=kernel -fno-asynchronous-unwind-tables'

# unit NAME K [CODE]: NAME.o, whose changed f calls the unit's static
# helper() and multiplies by K, after CODE
unit() {
	cat >"$DIR/$1.c" <<EOF
static __attribute__((noinline)) int helper(int v) { return v + 1; }
extern int vmexp(int v), modexp(int v);
int f(int v) { ${3:-} return helper(v) * $2; }
int g(int v) { return v - 1; }
EOF
	# shellcheck disable=SC2086 # a list of flags
	gcc $CFLAGS -c -o "$DIR/$1.o" "$DIR/$1.c"
}

# size16 OBJ SYM: SYM's size in OBJ, rounded up to 16 (its place in a
# kernel, padding included)
size16() {
	_s=$(nm -S "$1" | awk -v s="$2" '$4 == s { print $2 }')
	echo $((((0x$_s + 15) / 16) * 16))
}

# syms GAP HELPERS: a kernel's symbols: f, then GAP bytes on, g; HELPERS
# is where helper() is: "mine" (after f, and a foreign one elsewhere),
# "foreign" (two, neither next to the unit's symbols) or "none"
syms() {
	_f=$((0x81001000))
	{
		printf 'ffffffff81000000 T other1\n'
		[ "$2" = none ] || printf 'ffffffff81000100 t helper\n'
		printf 'ffffffff81000200 T other2\n'
		[ "$2" != foreign ] || printf 'ffffffff81000300 t helper\n'
		printf 'ffffffff81000400 T other3\n'
		printf 'ffffffff%x T f\n' "$_f"
		if [ "$2" = mine ]; then
			printf 'ffffffff%x t helper\n' $((_f + $1))
		else
			printf 'ffffffff%x t other5\n' $((_f + $1))
		fi
		printf 'ffffffff%x T g\n' $((_f + $1 + 64))
		printf 'ffffffff81002000 T other4\n'
		printf 'ffffffffc0000000 t modsym\t[somemod]\n'
	} >"$DIR/kallsyms"
}

# run_emit DIR: klpc-emit over DIR/orig, DIR/patched and DIR/changes
# into DIR/out, with the kernel's symbols in WORKDIR/kallsyms, its
# special sections' sizes, and __fentry__, vmexp and __SCK__vmkey
# exported by vmlinux, modexp by the module somemod; status in ST,
# messages in OUT
run_emit() {
	mkdir -p "$1/out"
	for _s in __fentry__:vmlinux vmexp:vmlinux __SCK__vmkey:vmlinux \
		modexp:drivers/misc/somemod; do
		printf '0x00000000\t%s\t%s\tEXPORT_SYMBOL\t\n' "${_s%%:*}" "${_s#*:}"
	done >"$1/symvers"
	printf '__mcount_loc 8\n.static_call_sites 8\n__jump_table 16\n' >"$1/layout"
	ST=0
	OUT=$("$EMIT" --kallsyms "$DIR/kallsyms" -s "$1/symvers" --kver T \
		--layout "$1/layout" "$1/orig" "$1/patched" "$1/changes" "$1/out" 2>&1) ||
		ST=$?
}

# emit NAME OBJECT: klpc-emit over one unit t.o of OBJECT whose f changed
# (place-a.o before, place-b.o after), in DIR/NAME.d
emit() {
	_d=$DIR/$1.d
	rm -rf "$_d"
	mkdir -p "$_d/orig" "$_d/patched"
	cp "$DIR/place-a.o" "$_d/orig/t.o"
	cp "$DIR/place-b.o" "$_d/patched/t.o"
	echo "$2 t.o changed f" >"$_d/changes"
	run_emit "$_d"
}

# placed NAME OBJECT TEXT...: emit succeeds and klpc-hook.h and replaces
# hold each TEXT
placed() {
	_name=$1
	emit "$1" "$2"
	shift 2
	if [ "$ST" != 0 ]; then
		case_result fail "$_name" "exit $ST: $OUT"
		return 0
	fi
	for _t in "$@"; do
		cat "$DIR/$_name.d/out/klpc-hook.h" "$DIR/$_name.d/out/replaces" |
			grep -qF -- "$_t" && continue
		case_result fail "$_name" "no '$_t' in: $(grep -h 'KLPC_SYMBOL\|old_name\|:' \
			"$DIR/$_name.d/out/klpc-hook.h" "$DIR/$_name.d/out/replaces" | paste -sd' ' -)"
		return 0
	done
	case_result ok "$_name"
}

# refused NAME OBJECT PATTERN: emit fails saying PATTERN
refused() {
	emit "$1" "$2"
	if [ "$ST" != 1 ] || ! echo "$OUT" | grep -q -- "$3"; then
		case_result fail "$1" "exit $ST, '$OUT' does not say '$3'"
	else
		case_result ok "$1"
	fi
}

case_places() {
	unit place-a 2
	unit place-b 3
	_gap=$(size16 "$DIR/place-a.o" f)
	syms "$_gap" mine
	placed place vmlinux 'KLPC_SYMBOL(helper, "vmlinux", 2);' \
		'{ .old_name = "f", .new_func = klpc_new_u0_0, .old_sympos = 0 },' \
		'vmlinux:f'
	syms "$_gap" foreign
	refused ambiguous vmlinux \
		"the patched code uses helper (2 in vmlinux), and which is this unit's cannot be told"
	syms "$_gap" none
	refused missing vmlinux \
		"the patched code uses helper, which T's vmlinux does not have and nothing exports"
	syms $((_gap + 128)) mine
	refused size vmlinux "t.c: f compiles to [0-9]* bytes here, the running one takes $((_gap + 128)): the source or compiler does not match T"
	syms "$_gap" mine
	sed -i '/ T f$/d' "$DIR/kallsyms"
	refused notinvmlinux vmlinux "t.c: f is not in T's vmlinux: the source does not match it"
	placed module somemod 'KLPC_SYMBOL(helper, "somemod", 0);' \
		'.name = "somemod",' 'somemod:f'
}

# a static call site as static_call() makes one: a call to the key's
# trampoline, an entry of the call and the key
static_call() {
	printf '%s' "asm volatile(\"1: call __SCT__$1\\n.pushsection .static_call_sites, \\\"a\\\"\\n.long 1b - .\\n.long __SCK__$1 - .\\n.popsection\");"
}

# a jump label as static_branch_unlikely() makes one: a nop, and an entry
# of the code, the target and the key
jump_label() {
	printf '%s' "asm volatile(\"1: nop\\n2:\\n.pushsection __jump_table, \\\"aw\\\"\\n.balign 8\\n.long 1b - .\\n.long 2b - .\\n.quad $1 - .\\n.popsection\");"
}

# a module unit: a symbol its module exports is the module's (a plain
# relocation would make the patch depend on the module), one vmlinux
# exports stays plain; a static call through the module's own key is
# refused, one through vmlinux's exported key is not
case_module() {
	unit mod-a 2
	unit mod-b 3 'v = vmexp(v) + modexp(v);'
	cp "$DIR/mod-a.o" "$DIR/place-a.o"
	cp "$DIR/mod-b.o" "$DIR/place-b.o"
	emit modexp somemod
	if [ "$ST" != 0 ]; then
		case_result fail modexp "exit $ST: $OUT"
	elif ! grep -qF 'KLPC_SYMBOL(modexp, "somemod", 0);' "$DIR/modexp.d/out/klpc-hook.h" ||
		grep -q 'KLPC_SYMBOL(vmexp' "$DIR/modexp.d/out/klpc-hook.h"; then
		case_result fail modexp "$(grep KLPC_SYMBOL "$DIR/modexp.d/out/klpc-hook.h" | paste -sd' ' -)"
	else
		case_result ok modexp
	fi
	unit mod-b 3 "$(static_call modkey)"
	cp "$DIR/mod-b.o" "$DIR/place-b.o"
	refused modkey somemod "f uses static call key __SCK__modkey of somemod: a static call through a module's key cannot be patched"
	unit mod-b 3 "$(static_call vmkey)"
	cp "$DIR/mod-b.o" "$DIR/place-b.o"
	emit vmkey somemod
	if [ "$ST" != 0 ]; then
		case_result fail vmkey "exit $ST: $OUT"
	else
		case_result ok vmkey
	fi
	# a key that is new data of the patch (a new dynamic debug
	# descriptor) is the patch module's own: linked when it loads
	unit mod-b 3 "$(jump_label ownkey)"
	echo 'char ownkey[16];' >>"$DIR/mod-b.c"
	# shellcheck disable=SC2086 # a list of flags
	gcc $CFLAGS -c -o "$DIR/place-b.o" "$DIR/mod-b.c"
	emit ownkey somemod
	echo 'somemod t.o new-data ownkey' >>"$DIR/ownkey.d/changes"
	run_emit "$DIR/ownkey.d"
	if [ "$ST" != 0 ]; then
		case_result fail ownkey "exit $ST: $OUT"
	else
		case_result ok ownkey
	fi
}

# a new global function of one unit that another's changed f calls is
# the patch's own: neither placed in the kernel nor refused
case_new_global() {
	_d=$DIR/newglobal.d
	rm -rf "$_d"
	mkdir -p "$_d/orig" "$_d/patched"
	_u='int f(int v) { return v * 2; }'
	echo "$_u" >"$DIR/ng-a1.c"
	printf 'extern int newfn(int v);\nint f(int v) { return newfn(v) * 2; }\n' >"$DIR/ng-b1.c"
	echo 'int g(int v) { return v - 1; }' >"$DIR/ng-a2.c"
	printf 'int g(int v) { return v - 1; }\nint newfn(int v) { return v + 7; }\n' >"$DIR/ng-b2.c"
	for _x in a1:orig/a.o b1:patched/a.o a2:orig/b.o b2:patched/b.o; do
		# shellcheck disable=SC2086 # a list of flags
		gcc $CFLAGS -c -o "$_d/${_x#*:}" "$DIR/ng-${_x%:*}.c"
	done
	printf 'vmlinux a.o changed f\nvmlinux b.o new newfn\n' >"$_d/changes"
	syms "$(size16 "$_d/orig/a.o" f)" none
	run_emit "$_d"
	if [ "$ST" != 0 ]; then
		case_result fail newglobal "exit $ST: $OUT"
	elif grep -q 'KLPC_SYMBOL(newfn' "$_d/out/klpc-hook.h"; then
		case_result fail newglobal "newfn is placed in the kernel"
	else
		case_result ok newglobal
	fi
}

main() {
	[ -x "$EMIT" ] || make -s -C "$ROOT" klp-build/emit/klpc-emit
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cases_start "$DIR/cases"
	case_places
	case_module
	case_new_global
	cases_summary emit
}

main "$@"
