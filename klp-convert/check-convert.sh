#!/bin/sh
# Host tests of klpc-convert (run by tools/check.sh): build the
# klpc-sample-extern sample unconverted, twice (with its KLPC_SYMBOL()
# annotation, and as plain C without it), convert it and check the result
# with readelf and --show; then the refusals. Prints one line per check;
# exits non-zero at the first failure.
# Usage: check-convert.sh KDIR WORKDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KDIR=$1
W=$2
TOOL=$ROOT/klp-convert/klpc-convert
ID=0123456789abcdef0123456789abcdef01234567
SYMVERS="-s $KDIR/Module.symvers -s $ROOT/Module.symvers"

fail() {
	echo "FAIL: $*"
	exit 1
}

ok() {
	echo "ok: $*"
}

# build: ext-a.ko (annotated) and ext-b.ko (plain extern, so modpost only
# warns with KBUILD_MODPOST_WARN=1), unconverted.
build() {
	rm -rf "$W"
	mkdir -p "$W"
	src=$ROOT/sample-patches/klpc-sample-extern.c
	cp "$src" "$W/ext-a.c"
	grep -v '^KLPC_SYMBOL(' "$src" >"$W/ext-b.c"
	printf 'ccflags-y += -I%s/include\nobj-m += ext-a.o ext-b.o\n' "$ROOT" >"$W/Kbuild"
	make -C "$KDIR" M="$W" KBUILD_MODPOST_WARN=1 \
		KBUILD_EXTRA_SYMBOLS="$ROOT/Module.symvers" modules >"$W/build.log" 2>&1 ||
		{ cat "$W/build.log"; fail "building the samples"; }
}

# convert IN OUT ARGS...: klpc-convert with the tree's exports.
convert() {
	in=$1
	out=$2
	shift 2
	# shellcheck disable=SC2086 # options are words
	"$TOOL" $SYMVERS -o "$out" "$@" "$in"
}

check_layout() {
	ko=$1
	secs=$(readelf -SW "$ko")
	echo "$secs" | grep -Eq '\] \.klp\.rela\.vmlinux\.\.text +RELA .* AIo ' ||
		fail "$ko: no .klp.rela.vmlinux..text RELA section with flags AIo"
	link=$(echo "$secs" | sed -n 's/.*\] \.klp\.rela\.vmlinux\.\.text .* AIo *\([0-9]*\) *\([0-9]*\) .*/\1 \2/p')
	symtab=$(echo "$secs" | sed -n 's/.*\[ *\([0-9]*\)\] \.symtab .*/\1/p')
	text=$(echo "$secs" | sed -n 's/.*\[ *\([0-9]*\)\] \.text .*/\1/p')
	[ "$link" = "$symtab $text" ] ||
		fail "$ko: .klp.rela.vmlinux..text links '$link', want '$symtab $text' (symtab, .text)"
	echo "$secs" | grep -q 'klpc\.syms' && fail "$ko: the annotation section is still there"
	readelf -sW "$ko" | grep -Eq 'NOTYPE +GLOBAL +DEFAULT +OS \[0xff20\] \.klp\.sym\.vmlinux\.uptime_proc_show,0$' ||
		fail "$ko: no SHN_LIVEPATCH symbol .klp.sym.vmlinux.uptime_proc_show,0"
	readelf -rW "$ko" | awk '/^Relocation section/ { sec = $3 } /uptime_proc_show/ { print sec, $3 }' >"$W/relocs"
	[ "$(cat "$W/relocs")" = "'.klp.rela.vmlinux..text' R_X86_64_PLT32" ] ||
		fail "$ko: relocations of uptime_proc_show: $(cat "$W/relocs")"
	# locals first: no LOCAL after the first GLOBAL or WEAK
	readelf -sW "$ko" | awk '$5 == "GLOBAL" || $5 == "WEAK" { g = 1 } $5 == "LOCAL" && g { exit 1 }' ||
		fail "$ko: a local symbol after a global one"
	[ "$(/sbin/modinfo -F livepatch "$ko")" = Y ] || fail "$ko: no livepatch=Y"
	[ "$("$TOOL" --show "$ko")" = "build-id vmlinux $ID" ] ||
		fail "$ko: record: $("$TOOL" --show "$ko")"
	ok "$(basename "$ko"): .klp.rela.vmlinux..text (AIo, link .symtab, info .text), .klp.sym.vmlinux.uptime_proc_show,0 in SHN_LIVEPATCH, locals first, livepatch=Y, record"
}

check_converts() {
	convert "$W/ext-a.ko" "$W/a.ko" --vmlinux-id $ID -r vmlinux:version_proc_show
	check_layout "$W/a.ko"
	convert "$W/ext-b.ko" "$W/b.ko" --vmlinux-id $ID
	check_layout "$W/b.ko"
	convert "$W/a.ko" "$W/a2.ko" --vmlinux-id $ID
	[ "$(readelf -SW "$W/a.ko" | md5sum)" = "$(readelf -SW "$W/a2.ko" | md5sum)" ] ||
		fail "converting a converted module changed its sections"
	ok "converting again changes nothing"
	t=$ROOT/sample-patches/klpc-target.ko
	convert "$W/ext-a.ko" "$W/c.ko" --vmlinux-id $ID --module "$t" \
		-r klpc_target:klpc_target_dup,2 -r klpc-target:klpc_target_show
	size=$(readelf -sW "$t" | awk '$8 == "klpc_target_dup" { n++; if (n == 2) print $3 }')
	tid=$("$ROOT/klp-convert/klpc-build-id" "$t")
	"$TOOL" --show "$W/c.ko" >"$W/c.show"
	if ! grep -qx "func-size klpc_target:klpc_target_dup,2 $size" "$W/c.show" ||
		! grep -qx "build-id klpc_target $tid" "$W/c.show" ||
		! grep -q '^func-size klpc_target:klpc_target_show,0 [1-9]' "$W/c.show"; then
		fail "record with a module target: $(cat "$W/c.show")"
	fi
	ok "module target: klpc_target's build ID, klpc_target_dup,2 is $size bytes"
	"$TOOL" --rewrite-record --vmlinux-id 00 --func-size klpc_target:klpc_target_dup,2=1 "$W/c.ko"
	"$TOOL" --show "$W/c.ko" >"$W/c.show"
	if ! grep -qx "build-id vmlinux 00" "$W/c.show" ||
		! grep -qx "func-size klpc_target:klpc_target_dup,2 1" "$W/c.show"; then
		fail "rewritten record: $(cat "$W/c.show")"
	fi
	ok "--rewrite-record: another kernel's build ID, another function size"
}

# A synthetic vmlinux whose two static dup()s are out of address order
# in its symbol table: a.o's (1 byte, at 0x2000) comes first, b.o's
# (2 bytes, at 0x1000) second. kallsyms counts vmlinux's same-named
# symbols in address order, a module's in symbol table order: as vmlinux,
# dup,1 is the 2-byte one; the same file as a module, the 1-byte one.
check_sympos_order() {
	d=$W/order
	mkdir -p "$d"
	printf '\t.section .text.a, "ax"\n\t.type dup, @function\ndup:\tret\n\t.size dup, 1\n\t.globl uptime_proc_show\n\t.type uptime_proc_show, @function\nuptime_proc_show:\n\tret\n\t.size uptime_proc_show, 1\n' >"$d/a.s"
	printf '\t.section .text.b, "ax"\n\t.type dup, @function\ndup:\tnop\n\tret\n\t.size dup, 2\n' >"$d/b.s"
	printf 'SECTIONS {\n\t.text.a 0x2000 : { *(.text.a) }\n\t.text.b 0x1000 : { *(.text.b) }\n}\n' >"$d/l.ld"
	if ! cc -c -o "$d/a.o" "$d/a.s" || ! cc -c -o "$d/b.o" "$d/b.s" ||
		! ld --build-id -e 0 -T "$d/l.ld" -o "$d/vmlinux" "$d/a.o" "$d/b.o"; then
		fail "building the synthetic vmlinux"
	fi
	[ "$(readelf -sW "$d/vmlinux" | awk '$8 == "dup" { printf "%s/%s ", $2, $3 }')" = \
		"0000000000002000/1 0000000000001000/2 " ] ||
		fail "the synthetic vmlinux's dup()s are not out of address order: $(readelf -sW "$d/vmlinux")"
	convert "$W/ext-a.ko" "$d/v.ko" --vmlinux "$d/vmlinux" -r vmlinux:dup,1 -r vmlinux:dup,2
	"$TOOL" --show "$d/v.ko" >"$d/v.show"
	if ! grep -qx "func-size vmlinux:dup,1 2" "$d/v.show" ||
		! grep -qx "func-size vmlinux:dup,2 1" "$d/v.show"; then
		fail "vmlinux sympos not in address order: $(cat "$d/v.show")"
	fi
	cp "$d/vmlinux" "$d/synth.ko"
	convert "$W/ext-a.ko" "$d/m.ko" --vmlinux-id $ID --module "$d/synth.ko" -r synth:dup,1
	"$TOOL" --show "$d/m.ko" >"$d/m.show"
	grep -qx "func-size synth:dup,1 1" "$d/m.show" ||
		fail "module sympos not in symbol table order: $(cat "$d/m.show")"
	ok "sympos: vmlinux's dup,1 is the lower address (2 bytes), a module's the first in its symtab (1 byte)"
}

# refuse WHAT PATTERN ARGS...: klpc-convert must fail, print PATTERN, and
# leave no output.
refuse() {
	what=$1
	pattern=$2
	shift 2
	rm -f "$W/out.ko"
	if "$TOOL" "$@" -o "$W/out.ko" >"$W/err" 2>&1; then
		fail "$what: accepted"
	fi
	grep -q -- "$pattern" "$W/err" || fail "$what: message: $(cat "$W/err")"
	[ ! -e "$W/out.ko" ] || fail "$what: left an output file"
	ls "$W"/out.ko.* >/dev/null 2>&1 && fail "$what: left a temporary file"
	ok "refused: $what: $(head -n 1 "$W/err")"
}

check_refusals() {
	a=$W/ext-a.ko
	t=$ROOT/sample-patches/klpc-target.ko
	cp "$a" "$W/ext-a.orig"
	# shellcheck disable=SC2086
	{
	refuse "no Module.symvers" "never guessed" --vmlinux-id $ID "$a"
	refuse "not a module" "$W/build.log: not an ELF" $SYMVERS --vmlinux-id $ID "$W/build.log"
	refuse "no vmlinux build ID" "no vmlinux build ID" $SYMVERS "$a"
	refuse "a name the target lacks" "ext-a.ko: symbol uptime_proc_show: not in vmlinux" \
		$SYMVERS --vmlinux "$ROOT/klpc.ko" "$a"
	refuse "an ambiguous function" "symbol klpc_target_dup: 2 in klpc_target" \
		$SYMVERS --vmlinux-id $ID --module "$t" -r klpc_target:klpc_target_dup "$a"
	refuse "a position past the last" "position 3, but klpc_target has 2" \
		$SYMVERS --vmlinux-id $ID --module "$t" -r klpc_target:klpc_target_dup,3 "$a"
	refuse "a bad --replaces" "expected OBJECT:NAME" $SYMVERS --vmlinux-id $ID -r nocolon "$a"
	refuse "a bad build ID" "is not hex" $SYMVERS --vmlinux-id xyz "$a"
	refuse "rewriting an unconverted record" "convert it first" --rewrite-record --vmlinux-id $ID "$a"
	refuse "--annotated, a symbol without KLPC_SYMBOL()" \
		"uptime_proc_show: not exported, and no KLPC_SYMBOL() says where it is" \
		$SYMVERS --vmlinux-id $ID --annotated "$W/ext-b.ko"
	}
	cmp -s "$a" "$W/ext-a.orig" || fail "a refused conversion changed its input"
}

build
check_converts
check_sympos_order
check_refusals
echo "klpc-convert: all checks passed"
