#!/bin/sh
# was t-86-b-elf-reloc-refused
# Broken .klp.rela sections of a module object are refused when the patch
# loads, with one kernel log line naming the patch, the object and the
# symbol, and nothing left registered or written; a symbol that the coming
# module lacks refuses that module's load instead.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-elf.sh
. "${0%/*}/../lib-elf.sh"

T=klpc_target
S=.klp.sym.klpc_target.klpc_target_dup,2
pfx="klpc: patch '$ELF_PATCH': object"
klpc_core_load
load klpc-target

elf_refused "$pfx '$T': symbol '$S': section .* relocation 0 .*: symbol index out of the symbol table \((-ENOEXEC|-8)\)|$pfx '$T': symbol '\?': .*symbol index out of the symbol table" \
	rela-symidx "$T"
elf_refused "$pfx '$T': symbol '$S': .*type 99.*relocation type not supported" rela-type "$T"
elf_refused "$pfx '$T': symbol '$S': .*offset beyond its target section" rela-offset "$T"
elf_refused "$pfx '$T': symbol '$S': .*symbol is not SHN_LIVEPATCH" rela-notlp "$T"
elf_refused "$pfx '$T': section '.klp.rela.klpc_target..text': target section is init memory" \
	rela-target .init.text "$T"
elf_refused "$pfx '$T': section '.klp.rela.klpc_target..text': target section is not SHF_ALLOC" \
	rela-target .comment "$T"
elf_refused "$pfx '$T': symbol '.klp.sym.klpc_target.klpc_target_dup.2': .*malformed .klp.sym name" \
	str "$S" .klp.sym.klpc_target.klpc_target_dup.2
elf_refused "$pfx '$T': symbol '.klp.sym.klpc_targex.klpc_target_dup,2': .*symbol of another module" \
	str "$S" .klp.sym.klpc_targex.klpc_target_dup,2
elf_refused "$pfx '$T': symbol '.klp.sym.vmlinux.klpc_target_dup,2': .*vmlinux symbol in a module's section" \
	str "$S" .klp.sym.vmlinux.klpc_target_dup,2
# the loader resolves a module's symbol in a vmlinux section (the module
# is loaded); klpc refuses it
elf_refused "$pfx 'vmlinux': symbol '.klp.sym.klpc_target.klpc_target_secret,0': .*module symbol in a vmlinux section" \
	str .klp.sym.vmlinux.kallsyms_lookup_size_offset,0 .klp.sym.klpc_target.klpc_target_secret,0
elf_refused "$pfx '$T': symbol 'klpc_target_dup' not found \(2 of that name, position 3 wanted\)" \
	str "$S" .klp.sym.klpc_target.klpc_target_dup,3
elf_refused "$pfx '$T': symbol 'klpc_target_dup' is ambiguous \(2 candidates\)" \
	str "$S" .klp.sym.klpc_target.klpc_target_dup,0
elf_refused "$pfx '\?': symbol '.klp.sym.*' is a livepatch symbol, but the module has no \"livepatch\" modinfo" \
	nolivepatch
assert_eq 1,2 "$(elf_dup)" "klpc_target after the refusals"

# a symbol the module lacks: the patch loads while the module is away,
# and the module's next load is refused, with nothing left applied
unload klpc-target
ko=$(elf_variant str "$S" .klp.sym.klpc_target.klpc_target_dup,3)
klpc_insmod "$ko" || die "the patch did not load without its module"
wait_transition "$ELF_PATCH"
dmesg_mark
expect_load_fail klpc-target
assert_dmesg_has "$pfx '$T': symbol 'klpc_target_dup' not found"
assert_dmesg_has "refusing to load module 'klpc_target'"
assert_file_eq "$(patch_dir "$ELF_PATCH")/enabled" 1
disable_patch "$ELF_PATCH"
unload klpc-sample-elf-mod
load klpc-target
assert_eq 1,2 "$(elf_dup)" "klpc_target after the refused load"
unload klpc-target
unload klpc
