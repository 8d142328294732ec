#!/bin/sh
# Host tests of klpc-kallsyms: the symbols it reads from a kernel image
# alone are those a guest booted on that image shows in /proc/kallsyms
# (vm/kallsyms.sh dumps it), names, types, order and addresses; and an
# image whose tables are damaged, or no image at all, is refused.
# Usage: klp-build/image/check-kallsyms.sh VMLINUZ KALLSYMS [WORKDIR]
# The dump's addresses may be moved by KASLR: they are compared less the
# difference at _stext (the per-CPU ones, absolute, are not moved); its
# module lines (NAME\t[module]) are left out.
# Prints one line per case and "kallsyms: N passed, N failed".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
TOOL=$ROOT/klp-build/image/klpc-kallsyms

# same_symbols OURS DUMP: the lines of OURS (link-time addresses) are
# those of DUMP's vmlinux symbols, one for one; prints the first
# differences, and the KASLR offset on success
same_symbols() {
	awk 'NF == 3' "$2" >"$DIR/dump.vmlinux"
	_ours=$(wc -l <"$1")
	_dump=$(wc -l <"$DIR/dump.vmlinux")
	if [ "$_ours" != "$_dump" ]; then
		echo "$_ours symbols, the dump has $_dump"
		return 1
	fi
	paste -d' ' "$1" "$DIR/dump.vmlinux" | awk '
	# the value of an address'"'"'s last 8 hex digits (mawk has no strtonum)
	function low32(a,   v, i) {
		v = 0
		a = substr(a, 9)
		for (i = 1; i <= 8; i++)
			v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
		return v
	}
	function moved(a) { return substr(a, 1, 8) == "ffffffff" }
	{ line[NR] = $0 }
	$3 == "_stext" && $6 == "_stext" { kaslr = low32($4) - low32($1) }
	END {
		if (kaslr == "") {
			print "no _stext in both"
			exit 1
		}
		for (i = 1; i <= NR; i++) {
			split(line[i], f, " ")
			if (f[2] != f[5] || f[3] != f[6])
				bad = "name or type"
			else if (moved(f[1]) != moved(f[4]))
				bad = "address"
			else if (moved(f[1]) && low32(f[4]) - low32(f[1]) != kaslr)
				bad = "address"
			else if (!moved(f[1]) && f[1] != f[4])
				bad = "absolute address"
			else
				continue
			if (++n <= 3)
				printf "line %d: %s: ours %s %s %s, the dump %s %s %s\n",
					i, bad, f[1], f[2], f[3], f[4], f[5], f[6]
		}
		if (n) {
			print n " line(s) differ"
			exit 1
		}
		printf "KASLR offset %#x\n", kaslr
	}'
}

# case_same: the image's symbols are the dump's
case_same() {
	_t0=$(date +%s.%N)
	if ! "$TOOL" "$IMAGE" >"$DIR/ours" 2>"$DIR/ours.err"; then
		case_result fail same "$(cat "$DIR/ours.err")"
		return 0
	fi
	_t=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if _out=$(same_symbols "$DIR/ours" "$DUMP"); then
		case_result ok "same: $(wc -l <"$DIR/ours") symbols, names, types, order and addresses as the dump's ($_out), read in $_t s"
	else
		case_result fail same "$_out"
	fi
}

# case_compare_fails: the comparison sees two lines swapped, and an
# address off by 16
case_compare_fails() {
	awk 'NR == 5000 { l = $0; next } { print } NR == 5001 { print l }' \
		"$DIR/ours" >"$DIR/swapped"
	awk 'NR == 6000 { $1 = substr($1, 1, 14) "ff" } { print }' \
		"$DIR/ours" >"$DIR/moved"
	for _c in swapped moved; do
		if same_symbols "$DIR/$_c" "$DUMP" >"$DIR/$_c.out"; then
			case_result fail "compare-fails-$_c" "a dump with a line $_c compared equal"
			return 0
		fi
	done
	case_result ok "compare-fails: a swapped line and a moved address are seen ($(head -n 1 "$DIR/moved.out"))"
}

# case_vmlinux: the vmlinux inside the image gives the same lines
case_vmlinux() {
	if ! "$TOOL" --vmlinux "$DIR/vmlinux" "$IMAGE" ||
		! "$TOOL" "$DIR/vmlinux" >"$DIR/ours.vmlinux"; then
		case_result fail vmlinux "the vmlinux was not read"
	elif ! cmp -s "$DIR/ours" "$DIR/ours.vmlinux"; then
		case_result fail vmlinux "its symbols differ from the image's"
	else
		case_result ok "vmlinux: the ELF inside the image gives the same symbols"
	fi
}

# refused NAME FILE PATTERN: the tool exits 1 on FILE, prints nothing on
# stdout and a message matching PATTERN
refused() {
	_st=0
	"$TOOL" "$2" >"$DIR/$1.out" 2>"$DIR/$1.err" || _st=$?
	if [ "$_st" != 1 ] || [ -s "$DIR/$1.out" ]; then
		case_result fail "$1" "exit $_st, $(wc -l <"$DIR/$1.out") line(s) printed: $(cat "$DIR/$1.err")"
	elif ! grep -q "$3" "$DIR/$1.err"; then
		case_result fail "$1" "not '$3': $(cat "$DIR/$1.err")"
	else
		case_result ok "$1: $(cat "$DIR/$1.err")"
	fi
}

# table NAME: the offset in the vmlinux of table NAME (--tables)
table() {
	awk -v t="$1" '$1 == t { print $3 }' "$DIR/tables"
}

# damaged NAME OFFSET BYTES PATTERN: the vmlinux with BYTES (printf's
# octal escapes) written at OFFSET is refused; the copy is restored after
# shellcheck disable=SC2059 # BYTES is printf's format
damaged() {
	_len=$(printf "$3" | wc -c)
	dd if="$DIR/vmlinux" of="$DIR/saved" bs=1 skip="$2" count="$_len" 2>/dev/null
	printf "$3" | dd of="$DIR/vmlinux" bs=1 seek="$2" conv=notrunc 2>/dev/null
	refused "$1" "$DIR/vmlinux" "$4"
	dd if="$DIR/saved" of="$DIR/vmlinux" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# case_refusals: damaged images and tables, and no image, are refused
case_refusals() {
	if ! "$TOOL" --tables "$DIR/vmlinux" >"$DIR/tables"; then
		case_result fail refusals "no --tables"
		return 0
	fi
	_size=$(wc -c <"$IMAGE")
	cp "$IMAGE" "$DIR/flipped"
	printf '\125\252' | dd of="$DIR/flipped" bs=1 seek=$((_size / 2)) conv=notrunc 2>/dev/null
	refused flipped-payload "$DIR/flipped" 'the image is damaged'
	head -c $((_size / 2)) "$IMAGE" >"$DIR/truncated"
	refused truncated-image "$DIR/truncated" 'the image is truncated'
	refused not-an-image "$ROOT/README.md" 'neither an ELF vmlinux nor a bzImage'
	# token 128's offset made 0: no longer increasing
	damaged token-index $(($(table kallsyms_token_index) + 256)) '\0\0' \
		'no kallsyms token table'
	# the second marker
	damaged marker $(($(table kallsyms_markers) + 4)) '\1\0\0\0' \
		'no kallsyms_num_syms, kallsyms_names and kallsyms_markers'
	# a name's length 0
	damaged name-length "$(table kallsyms_names)" '\0' \
		'no kallsyms_num_syms, kallsyms_names and kallsyms_markers'
	# symbol 1000's offset, absolute and high: out of order
	damaged offsets $(($(table kallsyms_offsets) + 4000)) '\0\0\0\177' \
		'no kallsyms_offsets and kallsyms_relative_base'
	cmp -s "$DIR/vmlinux" "$DIR/vmlinux.orig" ||
		case_result fail refusals "the vmlinux copy was not restored"
}

main() {
	[ $# -ge 2 ] || { echo "usage: $0 VMLINUZ KALLSYMS [WORKDIR]" >&2; exit 2; }
	IMAGE=$1
	DUMP=$2
	DIR=${3:-$ROOT/build/check/kallsyms}
	[ -x "$TOOL" ] || make -s -C "$ROOT" klp-build/image/klpc-kallsyms
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cases_start "$DIR/cases"
	case_same
	case_compare_fails
	case_vmlinux
	if [ -f "$DIR/vmlinux" ]; then
		cp "$DIR/vmlinux" "$DIR/vmlinux.orig"
		case_refusals
	fi
	rm -f "$DIR/vmlinux" "$DIR/vmlinux.orig" "$DIR/flipped" "$DIR/truncated"
		cases_summary kallsyms
}

main "$@"
