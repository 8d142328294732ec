#!/bin/sh
# Print the path of the target kernel's symbol list (its /proc/kallsyms),
# dumped once from a guest booted on it (vm/run.sh kallsyms) into
# KLPC_CACHE/kernel/KVER/kallsyms.  klpc build reads it to number the
# symbols that vmlinux has several of (sympos) when it builds for a kernel
# other than the running one; Debian ships no System.map (only the -dbg
# package's vmlinux, 858 MB, has the symbols).
# Env: those of vm/run.sh (KLPC_KDIR: the target's build tree).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

main() {
	kver=$(klpc_kver)
	f=$KLPC_CACHE/kernel/$kver/kallsyms
	if [ ! -s "$f" ]; then
		msg "dumping $kver's kallsyms from a guest booted on it"
		"$ROOT/vm/run.sh" kallsyms >&2 || die "the kallsyms guest failed"
		mkdir -p "$(dirname "$f")"
		tr -d '\r' <"$ROOT/build/vm-kallsyms.log.kallsyms" | base64 -d |
			gunzip >"$f.tmp" || die "the guest's kallsyms dump is damaged"
		grep -q ' [Tt] _stext$' "$f.tmp" || die "no kernel symbols in the guest's kallsyms dump"
		mv "$f.tmp" "$f"
	fi
	printf '%s\n' "$f"
}

main "$@"
