#!/bin/sh
# Host tests of klpc-compare: small C units compiled twice as the kernel
# compiles them for klpc build (-ffunction-sections -fdata-sections, an
# fentry call recorded in __mcount_loc, the kernel's inline being notrace),
# each pair compared, its output checked against what a live patch needs.
# Usage: klp-build/compare/check-compare.sh [WORKDIR]
# Prints one line per case and "compare: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPARE=$ROOT/klp-build/compare/klpc-compare
DIR=${1:-$ROOT/build/check/compare}
PASSED=0
FAILED=0
CFLAGS='-O2 -ffunction-sections -fdata-sections -pg -mfentry -mrecord-mcount -fno-pic -mcmodel=kernel -fno-asynchronous-unwind-tables'

# The kernel's own definitions, as far as the comparison sees them.
PRELUDE='#define notrace __attribute__((no_instrument_function))
#define inline inline __attribute__((always_inline)) notrace
#define noinline __attribute__((noinline))
#define __init __attribute__((section(".init.text"))) notrace
extern void __might_sleep(const char *file, int line);
extern void report(int v);
extern int ext(int v);'

result() {
	if [ "$1" = ok ]; then
		PASSED=$((PASSED + 1))
		echo "ok: $2"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL: $2: $3"
	fi
}

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
		result fail "$1" "exit $_st, expected $2: $_out"
	elif [ "$2" = 0 ] && [ "$(echo "$_out" | sort)" != "$(printf '%s' "$3" | sort)" ]; then
		result fail "$1" "printed '$_out', expected '$3'"
	elif [ "$2" != 0 ] && ! echo "$_out" | grep -q -- "$3"; then
		result fail "$1" "'$_out' does not say '$3'"
	else
		result ok "$1"
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
		result fail key_order "exit $_st: $_out"
	elif { [ "$_p1" != "$_f1" ] && ! echo "$_out" | grep -qx "twin $_p1 $_f1"; } ||
		{ [ "$_p2" != "$_f2" ] && ! echo "$_out" | grep -qx "twin $_p2 $_f2"; }; then
		result fail key_order "f's keys $_p1 $_p2 not paired with $_f1 $_f2: $_out"
	else
		result ok key_order
	fi
}

main() {
	[ -x "$COMPARE" ] || { echo "no $COMPARE: make klp-build/compare/klpc-compare"; exit 1; }
	rm -rf "$DIR"
	mkdir -p "$DIR"
	for c in same body inline notrace global_notrace data rodata init \
		line strings new static_local static_renumbered digits key_order; do
		"case_$c"
	done
	echo "compare: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

main "$@"
