#!/bin/sh
# Host tests of klpc-compare: small C units compiled twice as the kernel
# compiles them for klpc build (-ffunction-sections -fdata-sections, an
# fentry call recorded in __mcount_loc, the kernel's inline being notrace),
# each pair compared, its output checked against what a live patch needs.
# The cases named emit_* also cut the patched unit down with klpc-emit, as
# klpc build does, and check what the module would carry.
# Usage: klp-build/compare/check-compare.sh [WORKDIR]
# Prints one line per case and "compare: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
COMPARE=$ROOT/klp-build/compare/klpc-compare
EMIT=$ROOT/klp-build/emit/klpc-emit
DIR=${1:-$ROOT/build/check/compare}
CFLAGS='-O2 -ffunction-sections -fdata-sections -pg -mfentry -mrecord-mcount -fno-pic -mcmodel=kernel -fno-asynchronous-unwind-tables'

# The kernel's own definitions, as far as the comparison sees them.
PRELUDE='#define notrace __attribute__((no_instrument_function))
#define inline inline __attribute__((always_inline)) notrace
#define noinline __attribute__((noinline))
#define __init __attribute__((section(".init.text"))) notrace
extern void __might_sleep(const char *file, int line);
extern void report(int v);
extern int ext(int v);
#define unlikely(x) __builtin_expect(!!(x), 0)
extern __attribute__((cold)) void complain(const char *s, int v);
/* as DO_ONCE_LITE_IF(): the flags share .data.once */
#define complain_once(s, v) ({ static _Bool __attribute__((section(".data.once"))) __already_done; \
	if (unlikely(!__already_done)) { __already_done = 1; complain(s, v); } })'

# unit NAME: NAME.c from standard input (after the prelude), compiled.
unit() {
	{
		echo "$PRELUDE"
		cat
	} >"$DIR/$1.c"
	# shellcheck disable=SC2086 # a list of flags
	gcc $CFLAGS -c -o "$DIR/$1.o" "$DIR/$1.c"
}

# expect NAME STATUS OUTPUT: klpc-compare NAME-a.o NAME-b.o exits STATUS
# and prints exactly OUTPUT (sorted lines; for a refusal, OUTPUT is a
# pattern its message must match).
expect() {
	_st=0
	_out=$("$COMPARE" "$DIR/$1-a.o" "$DIR/$1-b.o" 2>&1) || _st=$?
	if [ "$_st" != "$2" ]; then
		case_result fail "$1" "exit $_st, expected $2: $_out"
	elif [ "$2" = 0 ] && [ "$(echo "$_out" | sort)" != "$(printf '%s' "$3" | sort)" ]; then
		case_result fail "$1" "printed '$_out', expected '$3'"
	elif [ "$2" != 0 ] && ! echo "$_out" | grep -q -- "$3"; then
		case_result fail "$1" "'$_out' does not say '$3'"
	else
		case_result ok "$1"
	fi
}

case_same() {
	unit same-a <<'EOF'
int f(int v) { return ext(v) + 1; }
EOF
	cp "$DIR/same-a.o" "$DIR/same-b.o"
	expect same 0 ''
}

case_body() {
	unit body-a <<'EOF'
int f(int v) { return ext(v) + 1; }
int g(int v) { return ext(v) * 3; }
EOF
	unit body-b <<'EOF'
int f(int v) { return ext(v) + 2; }
int g(int v) { return ext(v) * 3; }
EOF
	expect body 0 'changed f'
}

# a static inline helper: every caller changes, not the helper
case_inline() {
	unit inline-a <<'EOF'
static inline int check(int v) { return v > 64; }
int f(int v) { return check(v) ? ext(v) : 0; }
int g(int v) { return check(v) ? 0 : ext(v); }
int h(int v) { return ext(v); }
EOF
	unit inline-b <<'EOF'
static inline int check(int v) { return v >= 64; }
int f(int v) { return check(v) ? ext(v) : 0; }
int g(int v) { return check(v) ? 0 : ext(v); }
int h(int v) { return ext(v); }
EOF
	expect inline 0 'changed f
changed g'
}

# an out-of-line copy ftrace cannot redirect: carried, its callers patched
case_notrace() {
	unit notrace-a <<'EOF'
static noinline notrace int check(int v) { return ext(v) > 64; }
int f(int v) { return check(v) ? ext(v) : 0; }
int g(int v) { return ext(v); }
EOF
	unit notrace-b <<'EOF'
static noinline notrace int check(int v) { return ext(v) >= 64; }
int f(int v) { return check(v) ? ext(v) : 0; }
int g(int v) { return ext(v); }
EOF
	expect notrace 0 'copied check
changed f'
}

case_global_notrace() {
	unit gnotrace-a <<'EOF'
noinline notrace int check(int v) { return ext(v) > 64; }
EOF
	unit gnotrace-b <<'EOF'
noinline notrace int check(int v) { return ext(v) >= 64; }
EOF
	expect gnotrace 1 'ftrace cannot redirect it'
}

case_data() {
	unit data-a <<'EOF'
int limit = 64;
int f(int v) { return v > limit; }
EOF
	unit data-b <<'EOF'
int limit = 65;
int f(int v) { return v > limit; }
EOF
	expect data 1 'limit: the initializer or layout of existing data changed'
}

# a read-only local table: its users are patched and use a copy
case_rodata() {
	unit rodata-a <<'EOF'
static const int table[4] = { 1, 2, 3, 4 };
int f(int v) { return table[v & 3] + ext(v); }
int g(int v) { return ext(v); }
EOF
	unit rodata-b <<'EOF'
static const int table[4] = { 1, 2, 3, 5 };
int f(int v) { return table[v & 3] + ext(v); }
int g(int v) { return ext(v); }
EOF
	expect rodata 0 'changed f'
}

case_init() {
	unit init-a <<'EOF'
int __init setup(void) { return ext(1); }
EOF
	unit init-b <<'EOF'
int __init setup(void) { return ext(2); }
EOF
	expect init 1 'an __init or __exit function changed'
}

# __LINE__ passed to might_sleep() is no change; another constant is
case_line() {
	unit line-a <<'EOF'
int f(int v) { __might_sleep("x.c", 10); return ext(v); }
int g(int v) { report(10); return ext(v); }
EOF
	unit line-b <<'EOF'
int f(int v) { __might_sleep("x.c", 12); return ext(v); }
int g(int v) { report(12); return ext(v); }
EOF
	expect line 0 'changed g'
}

# a string literal added before another moves it: no change for its user
case_strings() {
	unit strings-a <<'EOF'
extern void say(const char *s);
void f(void) { say("first"); }
void g(void) { say("second"); }
EOF
	unit strings-b <<'EOF'
extern void say(const char *s);
void f(void) { say("zero"); say("first"); }
void g(void) { say("second"); }
EOF
	expect strings 0 'changed f'
}

case_new() {
	unit new-a <<'EOF'
int f(int v) { return ext(v); }
EOF
	unit new-b <<'EOF'
noinline int helper(int v) { return ext(v) + 7; }
int f(int v) { return helper(v); }
EOF
	expect new 0 'new helper
changed f'
}

# the static local a function uses, as objdump names it
local_of() {
	objdump -dr --section=".text.$2" "$DIR/$1.o" |
		grep -o 'count\.[0-9]*' | head -n 1
}

# static locals keep their twin though gcc renumbers them
case_static_local() {
	unit local-a <<'EOF'
int f(int v) { static int count; count += v; return ext(count); }
int g(int v) { static int count; count -= v; return ext(count); }
EOF
	unit local-b <<'EOF'
int n(int v) { static int count; count *= v; return ext(count); }
int f(int v) { static int count; count += v; return ext(count); }
int g(int v) { static int count; count -= v; return ext(count) + 1; }
EOF
	_want="new n
new-data $(local_of local-b n)
changed g"
	for _f in f g; do
		_b=$(local_of local-b $_f)
		_a=$(local_of local-a $_f)
		[ "$_a" = "$_b" ] || _want="$_want
twin $_b $_a"
	done
	expect local 0 "$_want"
}

# a static local that gcc numbers as another function's was: still g's
case_static_renumbered() {
	unit renum-a <<'EOF'
int f(int v) { static int count; count += v; return ext(count); }
int g(int v) { static int count; count -= v; return ext(count); }
EOF
	unit renum-b <<'EOF'
int f(int v) { return ext(v); }
int g(int v) { static int count; count -= v; return ext(count) + 1; }
EOF
	_b=$(local_of renum-b g)
	_a=$(local_of renum-a g)
	_want="changed f
changed g"
	[ "$_a" = "$_b" ] || _want="$_want
twin $_b $_a"
	expect renum 0 "$_want"
}

# a string that differs only in digits (a moved "file:line"): refused
case_digits() {
	unit digits-a <<'EOF'
extern void say(const char *s);
void f(void) { say("x.c:10"); }
EOF
	unit digits-b <<'EOF'
extern void say(const char *s);
void f(void) { say("x.c:12"); }
EOF
	expect digits 1 'only digits in its strings changed'
}

# the keys (lockdep's __key) a function uses one after the other: paired
# in order with the original's, though a new function's key renumbers them
case_key_order() {
	unit keys-a <<'EOF'
extern void init_lock(int *key);
void f(void) { { static int __key; init_lock(&__key); } { static int __key; init_lock(&__key); } }
EOF
	unit keys-b <<'EOF'
extern void init_lock(int *key);
void n(void) { static int __key; init_lock(&__key); }
void f(void) { { static int __key; init_lock(&__key); } { static int __key; init_lock(&__key); } ext(1); }
EOF
	_st=0
	_out=$("$COMPARE" "$DIR/keys-a.o" "$DIR/keys-b.o" 2>&1) || _st=$?
	_f1=$(objdump -dr --section=.text.f "$DIR/keys-a.o" | grep -o '__key\.[0-9]*' | sed -n 1p)
	_f2=$(objdump -dr --section=.text.f "$DIR/keys-a.o" | grep -o '__key\.[0-9]*' | sed -n 2p)
	_p1=$(objdump -dr --section=.text.f "$DIR/keys-b.o" | grep -o '__key\.[0-9]*' | sed -n 1p)
	_p2=$(objdump -dr --section=.text.f "$DIR/keys-b.o" | grep -o '__key\.[0-9]*' | sed -n 2p)
	if [ "$_st" != 0 ] || ! echo "$_out" | grep -qx 'changed f' ||
		echo "$_out" | grep -Eqx "new-data ($_p1|$_p2)"; then
		case_result fail key_order "exit $_st: $_out"
	elif { [ "$_p1" != "$_f1" ] && ! echo "$_out" | grep -qx "twin $_p1 $_f1"; } ||
		{ [ "$_p2" != "$_f2" ] && ! echo "$_out" | grep -qx "twin $_p2 $_f2"; }; then
		case_result fail key_order "f's keys $_p1 $_p2 not paired with $_f1 $_f2: $_out"
	else
		case_result ok key_order
	fi
}

# a clone reports once in its cold part, its one user of the flag; a new
# site elsewhere moves that flag in .data.once: the clone is no change
# (its flag is paired through the clone, paired first)
case_once_clone() {
	for _x in a b; do
		_new=
		[ "$_x" = a ] || _new='if (v > 99) complain_once("f: huge", v);'
		unit "onceclone-$_x" <<EOF
struct req { int v, w; };
static noinline int scale(struct req *r, int unused)
{
	if (unlikely(r->v < 0))
		complain_once("scale: negative", r->v);
	return ext(r->v) * 3;
}
int f(int v) { struct req r = { v, 1 }; $_new return scale(&r, 1); }
int g(int v) { struct req r = { v, 2 }; return scale(&r, 2) + 1; }
EOF
	done
	_st=0
	_out=$("$COMPARE" "$DIR/onceclone-a.o" "$DIR/onceclone-b.o" 2>&1) || _st=$?
	if [ "$_st" != 0 ] || ! echo "$_out" | grep -qx 'changed f' ||
		[ "$(echo "$_out" | grep -c '^changed ')" != 1 ] ||
		[ "$(echo "$_out" | grep -c '^new-data ')" != 1 ]; then
		case_result fail onceclone "exit $_st: $(echo "$_out" | paste -sd, -)"
	else
		case_result ok onceclone
	fi
}

# emit_one NAME: klpc-emit over NAME-a.o and NAME-b.o as the one unit
# t.o of a module "testmod" (no kernel to place its names in: a module's
# unexported symbols are its own), with the comparison's lines in
# NAME.changes: NAME-out.o, the cut-down object; messages in NAME.emit.
# The special sections' entry sizes are LAYOUT's.
emit_one() {
	rm -rf "$DIR/$1.emit.d"
	mkdir -p "$DIR/$1.emit.d/orig" "$DIR/$1.emit.d/patched" "$DIR/$1.emit.d/out"
	cp "$DIR/$1-a.o" "$DIR/$1.emit.d/orig/t.o"
	cp "$DIR/$1-b.o" "$DIR/$1.emit.d/patched/t.o"
	sed 's/^/testmod t.o /' "$DIR/$1.changes" >"$DIR/$1.emit.d/changes"
	"$EMIT" --layout "$LAYOUT" "$DIR/$1.emit.d/orig" "$DIR/$1.emit.d/patched" \
		"$DIR/$1.emit.d/changes" "$DIR/$1.emit.d/out" >"$DIR/$1.emit" 2>&1 &&
		cp "$DIR/$1.emit.d/out/u0.o_shipped" "$DIR/$1-out.o"
}

# emitted NAME: NAME-b.o cut down by klpc-emit from what klpc-compare
# printed for NAME-a.o and NAME-b.o, as klpc build does: NAME-out.o;
# either tool's message in NAME.emit
emitted() {
	"$COMPARE" "$DIR/$1-a.o" "$DIR/$1-b.o" >"$DIR/$1.changes" 2>"$DIR/$1.emit" &&
		emit_one "$1"
}

# defined OBJ SYM: OBJ defines SYM
defined() {
	nm --defined-only "$1" | awk '{ print $3 }' | grep -qxF -- "$2"
}

# expect_carried NAME TEXT SYM...: klpc-emit cuts NAME-b.o down to an
# object that holds TEXT (a string, or '') and defines each SYM itself
expect_carried() {
	_name=$1 _text=$2
	shift 2
	if ! emitted "$_name"; then
		case_result fail "$_name-emit" "$(cat "$DIR/$_name.emit")"
		return 0
	fi
	for _s in "$@"; do
		defined "$DIR/$_name-out.o" "$_s" && continue
		case_result fail "$_name-emit" "$_s is not carried: $(nm "$DIR/$_name-out.o" | grep -F -e "${_s%%.*}" | sed 's/^ *//' | paste -sd, -)"
		return 0
	done
	if [ -n "$_text" ] && ! strings "$DIR/$_name-out.o" | grep -qF -- "$_text"; then
		case_result fail "$_name-emit" "no '$_text' in the module's object"
	else
		case_result ok "$_name-emit"
	fi
}

# A cold part (.text.unlikely) jumps back into its parent's body: a new
# function must carry its own, not jump to the kernel's, which would run
# the old error path and return into the old function.
cold_unit() {
	unit "$1" <<EOF
int f(int v)
{
	if (unlikely(v < 0)) {
		complain("$2", v);
		return ext(-v) - 7;
	}
	return ext(v) + $3;
}
EOF
}

# only the cold part changed
case_emit_cold_only() {
	cold_unit coldonly-a 'f: negative' 1
	cold_unit coldonly-b 'f: negative value' 1
	expect coldonly 0 'changed f'
	expect_carried coldonly 'f: negative value' f f.cold
}

# the cold part is the same, the function changed: carried all the same
case_emit_cold_kept() {
	cold_unit coldkept-a 'f: negative' 1
	cold_unit coldkept-b 'f: negative' 2
	expect coldkept 0 'changed f'
	expect_carried coldkept '' f f.cold
}

# a clone (gcc's foo.constprop.N.isra.N) whose cold part changed is
# patched under the running kernel's name of the clone, and carries its
# cold part; its number is made to differ in the patched object, as gcc
# may number it
case_emit_clone_cold() {
	for _x in a b; do
		_msg='scale: negative'
		[ "$_x" = a ] || _msg='scale: negative value'
		unit "clone-$_x" <<EOF
struct req { int v, w; };
static noinline int scale(struct req *r, int unused)
{
	if (unlikely(r->v < 0)) {
		complain("$_msg", r->v);
		return -22;
	}
	return ext(r->v) * 3;
}
int f(int v) { struct req r = { v, 1 }; return scale(&r, 1); }
int g(int v) { struct req r = { v, 2 }; return scale(&r, 2) + 1; }
EOF
	done
	_c=$(nm "$DIR/clone-a.o" | awk '$3 ~ /^scale\..*[0-9]$/ { print $3 }')
	if [ -z "$_c" ]; then
		case_result fail clone "gcc made no clone of scale: $(nm "$DIR/clone-a.o" | grep scale)"
		return 0
	fi
	_r=$(echo "$_c" | sed 's/\.0/.4/')
	objcopy --redefine-sym "$_c=$_r" --redefine-sym "$_c.cold=$_r.cold" \
		"$DIR/clone-b.o"
	expect clone 0 "twin $_r $_c
changed $_c
twin $_r.cold $_c.cold"
	expect_carried clone 'scale: negative value' "$_r" "$_r.cold"
	grep -qF "{ .old_name = \"$_c\", .new_func = klpc_new_u0_0," \
		"$DIR/clone.emit.d/out/klpc-hook.h" ||
		case_result fail clone-name "not patched as the kernel's $_c: $(grep old_name "$DIR/clone.emit.d/out/klpc-hook.h")"
}

# flags_of OBJ FUNC: the .data.once flags FUNC tests, in order: each
# "cmpb $0x0,flag(%rip)" (80 3d disp32 imm8), whose relocation's addend
# is the flag's offset less 5, the displacement's 4 bytes and the
# immediate's 1
flags_of() {
	{
		nm "$1" | awk '$3 ~ /^__already_done/ { print "sym", $1, $3 }'
		objdump -dr --section=".text.$2" "$1" | awk '
			/\tcmpb  *\$0x0,0x0\(%rip\)/ { cmp = 1; next }
			cmp && /R_X86_64_PC32[ \t]+\.data\.once/ {
				a = $0
				sub(/.*\.data\.once/, "", a)
				print "ref", a
			}
			{ cmp = 0 }'
	} | awk '
		function hex(a,   v, i) {
			v = 0
			sub(/^0x/, "", a)
			for (i = 1; i <= length(a); i++)
				v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
			return v
		}
		$1 == "sym" { at[hex($2)] = $3; next }
		$1 == "ref" {
			off = 0
			if ($2 ~ /^-/)
				off = -hex(substr($2, 2))
			else if ($2 ~ /^\+/)
				off = hex(substr($2, 2))
			print at[off + 5]
		}'
}

# once_unit NAME EXTRA: f and g report once each (two adjacent flags in
# .data.once); g adds EXTRA
once_unit() {
	unit "$1" <<EOF
int f(int v) { if (v > 9) complain_once("f: big", v); return ext(v) + $2; }
int g(int v) { if (v > 9) complain_once("g: big", v); $3 return ext(v) + 1; }
EOF
}

# a new report-once site in a changed function: its flag is new data of
# the patch; the unchanged f, whose flag moved in .data.once, is no change
case_emit_once_new() {
	once_unit oncenew-a 1 ''
	once_unit oncenew-b 1 'if (v < 0) complain_once("g: negative", v);'
	_fa=$(flags_of "$DIR/oncenew-a.o" f)
	_fb=$(flags_of "$DIR/oncenew-b.o" f)
	_gb=$(flags_of "$DIR/oncenew-b.o" g | paste -sd' ' -)
	_st=0
	_out=$("$COMPARE" "$DIR/oncenew-a.o" "$DIR/oncenew-b.o" 2>&1) || _st=$?
	_new=$(echo "$_out" | sed -n 's/^new-data //p')
	if [ "$_st" != 0 ] || [ -z "$_fa" ] || [ -z "$_fb" ]; then
		case_result fail oncenew "exit $_st, f's flags '$_fa' '$_fb': $_out"
	elif echo "$_out" | grep -qx 'changed f' ||
		! echo "$_out" | grep -qx 'changed g'; then
		case_result fail oncenew "not g alone changed: $(echo "$_out" | paste -sd, -)"
	elif [ "$(echo "$_new" | grep -c .)" != 1 ] ||
		! echo " $_gb " | grep -qF " $_new "; then
		case_result fail oncenew "new data '$_new', not one of g's flags ($_gb): $(echo "$_out" | paste -sd, -)"
	elif [ "$_fa" != "$_fb" ] && ! echo "$_out" | grep -qx "twin $_fb $_fa"; then
		case_result fail oncenew "f's flag $_fb is not the original's $_fa: $(echo "$_out" | paste -sd, -)"
	else
		case_result ok oncenew
	fi
	expect_carried oncenew 'g: negative' g g.cold
	[ -f "$DIR/oncenew-out.o" ] || return 0
	_u=$(nm -u "$DIR/oncenew-out.o" | grep -F __already_done || true)
	if [ -n "$_u" ] || defined "$DIR/oncenew-out.o" f; then
		case_result fail oncenew-own "the flags are not the patch's own ('$_u'), or f is carried"
	else
		case_result ok oncenew-own
	fi
}

# two adjacent flags and no new one: the changed f must test its own flag,
# not the one next to it (a relocation's addend is the target less 4 less
# the bytes of an immediate after the displacement: cmpb's 1)
case_emit_once_adjacent() {
	once_unit onceadj-a 1 ''
	once_unit onceadj-b 2 ''
	expect onceadj 0 'changed f'
	# from what the comparison must print (above), whatever it printed
	echo 'changed f' >"$DIR/onceadj.changes"
	if ! emit_one onceadj; then
		case_result fail onceadj-emit "$(cat "$DIR/onceadj.emit")"
		return 0
	fi
	_want=$(flags_of "$DIR/onceadj-b.o" f)
	_got=$(flags_of "$DIR/onceadj-out.o" f)
	if [ -z "$_want" ] || [ "$_got" != "$_want" ]; then
		case_result fail onceadj-emit "f tests '$_got' in the module, '$_want' in the unit: $(nm "$DIR/onceadj-out.o" | grep -F __already_done | sed 's/^ *//' | paste -sd, -)"
	else
		case_result ok onceadj-emit
	fi
}

# a static flag of its own section tested with an immediate (cmpb $0):
# the kernel's, by its name
case_emit_imm_static() {
	for _x in a:1 b:2; do
		unit "immstatic-${_x%:*}" <<EOF
static _Bool seen;
int f(int v) { if (!seen) { seen = 1; report(v); } return ext(v) + ${_x#*:}; }
EOF
	done
	expect immstatic 0 'changed f'
	if ! emitted immstatic; then
		case_result fail immstatic-emit "$(cat "$DIR/immstatic.emit")"
	elif ! nm -u "$DIR/immstatic-out.o" | awk '{ print $2 }' | grep -qx seen; then
		case_result fail immstatic-emit "the kernel's seen is not used: $(nm "$DIR/immstatic-out.o" | sed 's/^ *//' | paste -sd, -)"
	else
		case_result ok immstatic-emit
	fi
}

# annotation KIND NAME: what klpc-build-macros.h's KLPC_IGNORE_*() and
# KLPC_FORCE_UNSAFE() leave in the unit
annotation() {
	echo "static const char __attribute__((used, section(\".discard.klpc.$1\")))" \
		"annot_$1_$(echo "$2" | tr -c 'a-z\n' _)[] = \"$2\";"
}

# KPATCH_IGNORE_FUNCTION(g): only f is patched; an ignored change of an
# __init function is not refused; a name the unit does not define is
case_annot_ignore() {
	printf '%s\n' 'int f(int v) { return ext(v); }' \
		'int g(int v) { return ext(v + 1); }' 'int __init setup(void) { return ext(1); }' |
		unit ignore-a
	{
		printf '%s\n' 'int f(int v) { return ext(v) + 1; }' \
			'int g(int v) { return ext(v + 2); }' 'int __init setup(void) { return ext(2); }'
		annotation ignore_function g
		annotation ignore_function setup
	} | unit ignore-b
	expect ignore 0 'changed f'
	cp "$DIR/ignore-a.o" "$DIR/ignoreundef-a.o"
	{
		printf '%s\n' 'int f(int v) { return ext(v) + 1; }' \
			'int g(int v) { return ext(v + 1); }'
		annotation ignore_function ext
	} | unit ignoreundef-b
	expect ignoreundef 1 'KPATCH_IGNORE_FUNCTION(ext): no such function here'
}

# KPATCH_IGNORE_SECTION(".text.g"), and of data whose size changed (new
# code would use the kernel's object with the new layout: refused)
case_annot_section() {
	printf '%s\n' 'int f(int v) { return ext(v); }' 'int g(int v) { return ext(v + 1); }' |
		unit section-a
	{
		printf '%s\n' 'int f(int v) { return ext(v) + 1; }' 'int g(int v) { return ext(v + 2); }'
		annotation ignore_section .text.g
	} | unit section-b
	expect section 0 'changed f'
	printf '%s\n' 'int tab[2] = { 1, 2 };' 'int f(int v) { return ext(tab[v]); }' |
		unit sectiondata-a
	{
		printf '%s\n' 'int tab[3] = { 1, 2, 3 };' 'int f(int v) { return ext(tab[v]) + 1; }'
		annotation ignore_section .data.tab
	} | unit sectiondata-b
	expect sectiondata 1 'tab: ignored, but its size changed'
}

# KPATCH_FORCE_UNSAFE(f): a digits-only change is patched; a changed
# __init function is still refused
case_annot_force() {
	echo 'extern void say(const char *s); void f(void) { say("x.c:10"); }' | unit force-a
	{
		echo 'extern void say(const char *s); void f(void) { say("x.c:12"); }'
		annotation force f
	} | unit force-b
	expect force 0 'changed f'
	echo 'int __init setup(void) { return ext(1); }' | unit forceinit-a
	{
		echo 'int __init setup(void) { return ext(2); }'
		annotation force setup
	} | unit forceinit-b
	expect forceinit 1 'an __init or __exit function changed'
}

# a second static local of the same name in g: which running one it is
# cannot be told (refused); KPATCH_FORCE_UNSAFE(g) gives g a fresh one
case_annot_force_local() {
	_f='int f(int v) { static int count; count += v; return ext(count); }'
	_g1='int g(int v) { static int count; count -= v; return ext(count); }'
	_g2='int g(int v) { static int count; count -= v; if (v > 9) { static int count; return ext(++count); } return ext(count); }'
	printf '%s\n' "$_f" "$_g1" | unit forcelocal-a
	printf '%s\n' "$_f" "$_g2" | unit forcelocal-b
	expect forcelocal 1 'a static local with no twin'
	cp "$DIR/forcelocal-a.o" "$DIR/forcelocal2-a.o"
	{
		printf '%s\n' "$_f" "$_g2"
		annotation force g
	} | unit forcelocal2-b
	_st=0
	_out=$("$COMPARE" "$DIR/forcelocal2-a.o" "$DIR/forcelocal2-b.o" 2>&1) || _st=$?
	if [ "$_st" != 0 ] || ! echo "$_out" | grep -qx 'changed g' ||
		[ "$(echo "$_out" | grep -c '^new-data count\.')" != 1 ]; then
		case_result fail forcelocal2 "exit $_st, not g changed with one new count: $(echo "$_out" | paste -sd, -)"
	else
		case_result ok forcelocal2
	fi
}

# case_emit_no_layout: an entry size the layout does not give (and the
# section's sh_entsize does not either) is refused, naming the section,
# not guessed
case_emit_no_layout() {
	printf 'changed f\n' >"$DIR/nolayout.changes"
	cp "$DIR/onceadj-a.o" "$DIR/nolayout-a.o"
	cp "$DIR/onceadj-b.o" "$DIR/nolayout-b.o"
	printf '# no __mcount_loc\n__bug_table 12\n' >"$DIR/nolayout.layout"
	_st=0
	LAYOUT=$DIR/nolayout.layout
	emit_one nolayout || _st=$?
	LAYOUT=$DIR/layout
	if [ "$_st" != 1 ] || ! grep -q \
		't.o: __mcount_loc: the target.s size of its entries (unsigned long) is not known' \
		"$DIR/nolayout.emit"; then
		case_result fail emit-no-layout "exit $_st: $(cat "$DIR/nolayout.emit")"
	else
		case_result ok emit-no-layout
	fi
}

main() {
	[ -x "$COMPARE" ] || { echo "no $COMPARE: make klp-build/compare/klpc-compare"; exit 1; }
	[ -x "$EMIT" ] || make -s -C "$ROOT" klp-build/emit/klpc-emit
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cases_start "$DIR/cases"
	# the entry sizes of the special sections these units have (the
	# host's x86-64 gcc, as the kernel's: klpc build probes the target's)
	LAYOUT=$DIR/layout
	echo '__mcount_loc 8' >"$LAYOUT"
	for c in same body inline notrace global_notrace data rodata init \
		line strings new static_local static_renumbered digits key_order \
		emit_cold_only emit_cold_kept emit_clone_cold emit_once_new \
		emit_once_adjacent emit_imm_static once_clone annot_ignore \
		annot_section annot_force annot_force_local emit_no_layout; do
		"case_$c"
	done
		cases_summary compare
}

main "$@"
