#!/bin/sh
# Host tests of klpc-fix-lines: a diff that only moves lines must leave the
# compiled code as it was. Each case compiles a small C unit three times
# (gcc -O2 -ffunction-sections -fdata-sections -c, from the unit's
# directory as Kbuild does): the original, the patched file as it is, and
# the patched file after klpc-fix-lines. The fixed object must dump
# (objdump -s -d -r: every section's bytes, code and relocations) exactly
# as the original does, and the plain patched one must not (else the case
# tests nothing). Then the real kernel: arch/x86/kvm/x86.c of the prepared
# 6.1 tree with kpatch's warn-detect-FAIL diff, and with a diff of blank
# and comment lines in every kind of place, preprocessed with the unit's
# flags.
# Usage: klp-build/lines/check-lines.sh [WORKDIR]
# Env: KLPC_FIX_LINES=none runs the cases without the tool (they must
# fail: the check of the checks); KLPC_SRC: the prepared kernel tree
# (default: a 6.1 one in $KLPC_CACHE/build; the x86.c cases are skipped
# without one).
# Prints one line per case and "lines: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
FIX=${KLPC_FIX_LINES:-$ROOT/klp-build/lines/klpc-fix-lines}
DIR=${1:-$ROOT/build/check/lines}
# a prepared 6.1 tree of klpc build's cache
SRC=${KLPC_SRC:-}
if [ -z "$SRC" ]; then
	for s in "${KLPC_CACHE:-/var/cache/klpc}"/build/6.1.*/src; do
		if [ -f "$s/arch/x86/kernel/.asm-offsets.s.cmd" ]; then
			SRC=$s
			break
		fi
	done
fi
CFLAGS='-O2 -ffunction-sections -fdata-sections'

# The kernel's macros that put a line number into code or data, as far as
# these cases need them.
PRELUDE='#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)
extern void warn_slowpath_fmt(const char *file, int line, const char *fmt);
extern void printk(const char *fmt, ...);
extern void __might_sleep(const char *file, int line);
struct lock_class_key { char dummy; };
struct timer_list { void (*fn)(struct timer_list *); };
extern void init_timer_key(struct timer_list *t, void (*fn)(struct timer_list *),
			   const char *name, struct lock_class_key *key);
#define WARN_ON(c) ({ int __r = !!(c);					\
	if (__builtin_expect(__r, 0))					\
		warn_slowpath_fmt(__FILE__, __LINE__, 0);		\
	__r; })
#define BUG_ON(c) do { if (c) asm volatile("1: ud2\n"			\
	".pushsection __bug_table,\"aw\"\n"				\
	"2: .long 1b - 2b, %c0 - 2b\n"					\
	".short %c1\n"							\
	".popsection" : : "i" (__FILE__), "i" (__LINE__));		\
	__builtin_unreachable(); } while (0)
#define pr_line(fmt, ...) printk("%s:%d: " fmt, __func__, __LINE__, ##__VA_ARGS__)
#define pr_at(fmt) printk(__FILE__ ":" __stringify(__LINE__) ": " fmt)
#define timer_setup(t, f) do {						\
	static struct lock_class_key __key;				\
	init_timer_key((t), (f), __FILE__ ":" __stringify(__LINE__), &__key); \
} while (0)
#define might_sleep() __might_sleep(__FILE__, __LINE__)'

# fix ORIG PATCHED: the tool on PATCHED, in place (or nothing, with
# KLPC_FIX_LINES=none)
fix() {
	[ "$FIX" = none ] || "$FIX" "$1" "$2"
}

# dump DIR OBJ [SECTION]: the object's sections (or one), as compared
dump() {
	if [ $# -eq 3 ]; then
		(cd "$1" && objdump -d -r -j "$3" "$2" && objdump -s -j "$3" "$2") |
			sed 1,3d
	else
		(cd "$1" && objdump -s -d -r "$2") | sed 1,3d
	fi
}

# unit NAME FILE SEDSCRIPT [GCC ARGS]: FILE (a path under the case's
# directories, the prelude then standard input) as orig/FILE, the patched
# FILE (SEDSCRIPT on it) as plain/FILE and fixed/FILE, the tool on
# fixed/FILE, and, if FILE is t.c, the three compiled to t.o with the GCC
# ARGS.
unit() {
	name=$1
	file=$2
	script=$3
	shift 3
	d=$DIR/$name
	rm -rf "$d"
	mkdir -p "$d/orig"
	mkdir -p "$d/orig/$(dirname "$file")"
	{
		case $file in *.c) printf '%s\n' "$PRELUDE" ;; esac
		cat
	} >"$d/orig/$file"
	cp -r "$d/orig" "$d/plain"
	sed "$script" "$d/orig/$file" >"$d/plain/$file"
	if cmp -s "$d/orig/$file" "$d/plain/$file"; then
		echo "$name: the sed script changes nothing" >&2
		return 1
	fi
	cp -r "$d/plain" "$d/fixed"
	fix "$d/orig/$file" "$d/fixed/$file" || return 1
	[ "$file" = t.c ] || return 0
	for v in orig plain fixed; do
		# shellcheck disable=SC2086 # CFLAGS is a list of flags
		(cd "$d/$v" && gcc $CFLAGS "$@" -c t.c -o t.o) || return 1
	done
}

# same NAME [SECTION]: the fixed object is the original one and the plain
# one is not (in SECTION only, if named)
same() {
	d=$DIR/$1
	shift
	dump "$d/orig" t.o "$@" >"$d/orig.dump"
	dump "$d/plain" t.o "$@" >"$d/plain.dump"
	dump "$d/fixed" t.o "$@" >"$d/fixed.dump"
	fixed_not_plain "$d" dump "the object"
}

# fixed_not_plain DIR EXT WHAT: DIR/fixed.EXT (the tool's) is DIR/orig.EXT,
# and DIR/plain.EXT (without the tool) is not, else the case tests nothing
fixed_not_plain() {
	if ! cmp -s "$1/orig.$2" "$1/fixed.$2"; then
		echo "$3: the fixed unit differs: diff $1/orig.$2 $1/fixed.$2"
		return 1
	fi
	if cmp -s "$1/orig.$2" "$1/plain.$2"; then
		echo "$3: the unit is the same without the tool: the case tests nothing"
		return 1
	fi
}

# check NAME WHAT COMMAND...: a case, its result
check() {
	name=$1
	what=$2
	shift 2
	if out=$("$@" 2>&1); then
		case_result ok "$name: $what${out:+ ($(echo "$out" | tail -n 1))}"
	else
		case_result fail "$name: $what" "$(echo "$out" | tail -n 5)"
	fi
}

# case_unit NAME SECTION SEDSCRIPT [GCC ARGS]: unit then same, for t.c
case_unit() {
	_n=$1
	_sec=$2
	_s=$3
	shift 3
	unit "$_n" t.c "$_s" "$@" || return 1
	if [ -n "$_sec" ]; then
		same "$_n" "$_sec"
	else
		same "$_n"
	fi
}

# the functions of most cases, below lines that the diffs grow
BODY='
/* top */
int top;

int f(int x)
{
	WARN_ON(x > 1);
	return x * 3;
}
'

c_warn() {
	printf '%s\n' "$BODY" | case_unit warn '' '/^int top;/a int added;\n'
}

c_bug() {
	{
		printf '%s\n' "$BODY"
		echo 'void g(int x) { BUG_ON(x == 7); top = x; }'
	} | case_unit bug '' '/^\/\* top \*\//G'
}

c_pr() {
	{
		printf '%s\n' "$BODY"
		printf '%s\n' 'void g(int x) { pr_line("x %d\n", x); }'
		printf '%s\n' 'void h(void) { pr_at("here\n"); }'
	} | case_unit pr '' '/^int top;/i int before;'
}

c_lockdep() {
	{
		printf '%s\n' "$BODY"
		echo 'void g(struct timer_list *t, void (*fn)(struct timer_list *))'
		echo '{'
		echo '	timer_setup(t, fn);'
		echo '}'
	} | case_unit lockdep '' '/^int top;/a /* one */\n/* two */'
}

c_might_sleep() {
	{
		printf '%s\n' "$BODY"
		echo 'void g(void) { might_sleep(); top++; }'
	} | case_unit might-sleep '' '1i /* a new first line */'
}

# lines added inside a multi-line macro definition and a multi-line
# comment and a string continuation: no directive can go there
c_straddle() {
	cat <<'EOF' | case_unit straddle '' '/^#define TWICE/a \\t\\
/^ \* comment/a \ * one more line
/^static const char s/s/$/\n\\/
/^int mid;/a // a line comment \\\n   continued'
#define TWICE(x)				\
	do {					\
		WARN_ON(x);			\
		WARN_ON(x);			\
	} while (0)
int after_macro = __LINE__;
/*
 * comment
 * that goes on
 */
int after_comment = __LINE__;
static const char s[] = "a \
string \
continued";
int after_string = __LINE__;
int mid;
void g(int x)
{
	TWICE(x);
}
const char *h(void)
{
	might_sleep();
	return s;
}
EOF
}

# lines added in an #if group that is not taken (a directive there would
# be lost) and in one that is: both configurations right
c_ifdef() {
	_s='/^#ifdef A/a int added_a;
/^#else/a int added_b;\nint added_c;'
	_b='#ifdef A
int a;
#else
int b;
#endif
int f(int x)
{
	WARN_ON(x > 1);
	return x * 3;
}
#if defined(A) && A > 1
int g(void) { return __LINE__; }
#elif defined(A)
int g(void) { might_sleep(); return __LINE__; }
#else
int g(void) { pr_line("none"); return __LINE__; }
#endif
int h(void) { return __LINE__; }'
	echo "$_b" | case_unit ifdef-undef '' "$_s" &&
		echo "$_b" | case_unit ifdef-a1 '' "$_s" -DA=1 &&
		echo "$_b" | case_unit ifdef-a2 '' "$_s" -DA=2
}

# a changed header: __FILE__ as Kbuild gives it (a -I path, with
# -fmacro-prefix-map=./=) must stay
c_header() {
	_d=$DIR/header
	{
		echo '#ifndef T_H'
		echo '#define T_H'
		echo '/* a header */'
		echo 'static inline int hf(int x)'
		echo '{'
		echo '	might_sleep();'
		echo '	return WARN_ON(x);'
		echo '}'
		echo '#endif'
	} | unit header inc/t.h '/^\/\* a header/i /* one more\n * comment */' \
		-I./inc -fmacro-prefix-map=./= || return 1
	for v in orig plain fixed; do
		{
			printf '%s\n' "$PRELUDE"
			echo '#include <t.h>'
			echo 'int f(int x) { return hf(x) + 1; }'
		} >"$_d/$v/t.c"
		# shellcheck disable=SC2086 # CFLAGS is a list of flags
		(cd "$_d/$v" && gcc $CFLAGS -I./inc -fmacro-prefix-map=./= -c t.c -o t.o) ||
			return 1
	done
	same header || return 1
	for v in orig fixed; do
		(cd "$_d/$v" && gcc -I./inc -fmacro-prefix-map=./= -E t.c) |
			grep -q '^ might_sleep\|__might_sleep("inc/t.h"' || {
			echo "$v: __FILE__ is not inc/t.h"
			return 1
		}
	done
}

# a real change beside the shift: the shifted function is as it was, the
# changed one differs
c_real() {
	{
		printf '%s\n' "$BODY"
		echo 'int g(int x)'
		echo '{'
		echo '	WARN_ON(x == 5);'
		echo '	return x + 1;'
		echo '}'
	} | unit real t.c '/^int top;/a int added;\nint added2;
s/return x + 1;/return x + 2;/' || return 1
	same real .text.f || return 1
	d=$DIR/real
	dump "$d/orig" t.o .text.g >"$d/g.orig"
	dump "$d/fixed" t.o .text.g >"$d/g.fixed"
	if cmp -s "$d/g.orig" "$d/g.fixed"; then
		echo "g, changed, compiles as it was"
		return 1
	fi
}

# lines removed: the numbers go the other way
c_removed() {
	{
		echo '/* one'
		echo ' * two'
		echo ' */'
		echo 'int x1;'
		echo 'int x2;'
		printf '%s\n' "$BODY"
	} | case_unit removed '' '/^ \* two/d
/^int x1;/d'
}

# presumed FILE: "N: text" for each line of FILE, N the number the
# compiler gives it (the file's own #line directives taken, and dropped)
presumed() {
	awk '/^#line [0-9]+$/ { n = $2; next } { print n++ ": " $0 }' n=1 "$1"
}

# kernel_farm DIR FILE: DIR, the prepared tree's paths as symbolic links,
# but for FILE, a copy (the tree is read-only here)
kernel_farm() {
	_dest=$1
	_rel=$2
	_sub=
	_rest=$_rel
	mkdir -p "$_dest"
	while :; do
		_first=${_rest%%/*}
		for e in "$SRC/$_sub"* "$SRC/$_sub".[!.]*; do
			[ -e "$e" ] || continue
			b=${e##*/}
			[ "$b" = "$_first" ] || ln -s "$e" "$_dest/$_sub$b"
		done
		[ "$_first" != "$_rest" ] || break
		_sub=$_sub$_first/
		_rest=${_rest#*/}
		mkdir -p "$_dest/$_sub"
	done
	cp "$SRC/$_rel" "$_dest/$_rel"
}

# kernel_cpp DIR OUT: DIR's arch/x86/kvm/x86.c preprocessed with the
# flags of the prepared tree's asm-offsets.s (the kernel's c_flags) and
# kvm's, from DIR as Kbuild runs it; OUT without line markers
kernel_cpp() {
	cmd=$SRC/arch/x86/kernel/.asm-offsets.s.cmd
	flags=$(sed -n 's/^cmd_[^ ]* := //p' "$cmd" | sed \
		-e 's/ -Wp,-MMD,[^ ]*//' -e "s/ -D[_A-Z]*=[^ ]*'[^ ]*//g" \
		-e 's/ -D__KBUILD_MODNAME=[^ ]*//' -e 's/ -fverbose-asm.*//')
	[ -n "$flags" ] || return 1
	# shellcheck disable=SC2086 # a list of flags without blanks
	(cd "$1" && $flags -I./arch/x86/kvm -DMODULE -DKBUILD_BASENAME='"x86"' \
		-DKBUILD_MODNAME='"kvm"' -D__KBUILD_MODNAME=kmod_kvm -E -P \
		arch/x86/kvm/x86.c -o "$2")
}

# kernel NAME ERE PATCH-COMMAND: x86.c in orig/, patched by PATCH-COMMAND
# (run in plain/) in plain/ and fixed/, the tool on fixed/; every line
# the diff left alone must keep its number (all lines listed with their
# presumed numbers, compared: only lines ERE matches may differ, those the
# diff adds or removes and those of a comment or macro a change is in), and the fixed unit must preprocess with its
# real flags as the original does, the plain one not
kernel() {
	name=$1
	ere=$2
	shift 2
	d=$DIR/$name
	rel=arch/x86/kvm/x86.c
	rm -rf "$d"
	for v in orig plain fixed; do
		kernel_farm "$d/$v" $rel
	done
	(cd "$d/plain" && "$@") >"$d/patch.log" 2>&1 || {
		cat "$d/patch.log"
		return 1
	}
	cp "$d/plain/$rel" "$d/fixed/$rel"
	fix "$d/orig/$rel" "$d/fixed/$rel" || return 1
	presumed "$d/orig/$rel" >"$d/orig.lines"
	presumed "$d/fixed/$rel" >"$d/fixed.lines"
	if diff "$d/orig.lines" "$d/fixed.lines" | grep '^[<>]' | grep -Ev "$ere"; then
		echo "unchanged lines moved: diff $d/orig.lines $d/fixed.lines"
		return 1
	fi
	echo "$(grep -c '^#line' "$d/fixed/$rel") #line directive(s):" \
		"$(grep -n '^#line' "$d/fixed/$rel" | head -n 3 | paste -sd ' ')..."
	for v in orig plain fixed; do
		kernel_cpp "$d/$v" "$d/$v.i" || return 1
	done
	fixed_not_plain "$d" i preprocessed
}

# the meaningless lines of kernel-shift: a blank line after every blank
# line whose number is a multiple of 7, a line in the first comment, in
# emul_to_vcpu()'s definition and after every #else (in a group the
# configuration skips or takes); past line 11000, every blank line whose
# number is a multiple of 13 goes instead (diff(1) pairs the lines of a
# blank line added next to one removed as it likes: a line between them
# can come out as removed and added again)
SHIFT_AWK='
/^ \* Kernel-based Virtual Machine driver/ { print; print " *"; next }
/^#define emul_to_vcpu\(ctxt\) \\$/ { print; print "\t\\"; next }
NR > 11000 { if (!/^$/ || NR % 13) print; next }
/^#else/ { print; print ""; next }
/^$/ && NR % 7 == 0 { print; print ""; next }
{ print }'

c_kernel() {
	if [ -z "$SRC" ] || [ ! -f "$SRC/arch/x86/kvm/x86.c" ]; then
		echo "skipped: kernel-warn-detect, kernel-shift (no prepared 6.1 tree)"
		return 0
	fi
	check kernel-warn-detect "kpatch's warn-detect-FAIL.patch on x86.c" \
		kernel kernel-warn-detect '^> 2: $' patch -s -p1 --no-backup-if-mismatch \
		-i "$ROOT/tests/kpatch/amzn-2023/warn-detect-FAIL.patch"
	# shellcheck disable=SC2016 # $1 is sh -c's
	check kernel-shift "x86.c, blank and comment lines added and removed everywhere" \
		kernel kernel-shift \
		'^[<>] [0-9]+: ( \*.*|	\\|	\(\(struct kvm_vcpu \*\)\(ctxt\)->vcpu\))?$' sh -c 'awk "$1" arch/x86/kvm/x86.c >x86.new &&
			rm arch/x86/kvm/x86.c && mv x86.new arch/x86/kvm/x86.c' sh "$SHIFT_AWK"
}

# the tool itself: usage, nothing to do, a file that has #line already
c_interface() {
	d=$DIR/interface
	rm -rf "$d"
	mkdir -p "$d"
	printf 'int a;\nint b;\n' >"$d/o.c"
	printf 'int a;\nint c;\n' >"$d/n.c"
	cp "$d/n.c" "$d/n.ref"
	if ! { "$FIX" "$d/o.c" "$d/n.c" && cmp -s "$d/n.c" "$d/n.ref"; }; then
		echo "same line count: the file changed"
		return 1
	fi
	if "$FIX" "$d/o.c" 2>/dev/null; then
		echo "a missing argument is accepted"
		return 1
	fi
	printf 'int a;\n#line 40\nint b;\n' >"$d/o.c"
	printf '\nint a;\n#line 40\nint b;\n' >"$d/n.c"
	cp "$d/n.c" "$d/n.ref"
	if ! { "$FIX" "$d/o.c" "$d/n.c" 2>"$d/err" && cmp -s "$d/n.c" "$d/n.ref" &&
		grep -q 'directives of its own' "$d/err"; }; then
		echo "a file with #line: not left alone"
		return 1
	fi
	printf 'int a;\nint b;\n' >"$d/o.c"
	printf 'int a;\n\nint b;\n' >"$d/n.c"
	cp "$d/n.c" "$d/n.ref"
	ln "$d/n.c" "$d/n.link"
	if ! { "$FIX" -o "$d/out.c" "$d/o.c" "$d/n.c" && cmp -s "$d/n.c" "$d/n.ref" &&
		[ "$(sed -n 3p "$d/out.c")" = '#line 2' ]; }; then
		echo "-o: wrong output or PATCHED changed"
		return 1
	fi
	if ! { "$FIX" "$d/o.c" "$d/n.c" && cmp -s "$d/n.link" "$d/n.ref" &&
		cmp -s "$d/n.c" "$d/out.c"; }; then
		echo "in place: written through a hard link, or wrong"
		return 1
	fi
}

mkdir -p "$DIR"
cases_start "$DIR/cases"
DIR=$(cd "$DIR" && pwd)
check warn "WARN_ON-like (__FILE__, __LINE__ to a call)" c_warn
check bug "BUG_ON-like (__LINE__ in __bug_table)" c_bug
check pr "pr_* with __LINE__ (an argument, and in the format string)" c_pr
check lockdep "lockdep key in a macro, named __FILE__:__LINE__ (timer_setup)" c_lockdep
check might-sleep "might_sleep-like (__FILE__, __LINE__), a line added on top" c_might_sleep
check straddle "lines added in a multi-line macro, comment, string and // comment" c_straddle
check ifdef "lines added in #if groups, taken or not (3 configurations)" c_ifdef
check header "a changed header, __FILE__ through -I and -fmacro-prefix-map" c_header
check removed "lines removed above the function" c_removed
check real "a real change beside the shift: only the changed function differs" c_real
[ "$FIX" = none ] || check interface "usage, nothing to do, own #line, -o, hard links" c_interface
c_kernel
cases_summary lines
