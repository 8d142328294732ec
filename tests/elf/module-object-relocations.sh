#!/bin/sh
# was t-86-a-elf-module
# A patch in the livepatch ELF format for a module object (the sample
# klpc-sample-elf-mod, sample-patches/klpc-sample-elf-mod.c): its new code
# calls a static function of klpc_target (the second klpc_target_dup) by
# name and reads a static variable, through .klp.rela.klpc_target.*
# relocations that klpc writes each time the module comes and clears when
# it goes. The module is loaded before the patch, after it, and removed and
# loaded again while the patch stays.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-elf.sh
. "${0%/*}/../lib-elf.sh"

d=$(patch_dir "$ELF_PATCH")
klpc_core_load

# the module first
load klpc-target
assert_eq 1,2 "$(elf_dup)" "dup before the patch"
dmesg_mark
load klpc-sample-elf-mod
wait_transition "$ELF_PATCH"
assert_eq 27,2 "$(elf_dup)" "dup with the patch (module loaded first)"
assert_file_eq "$d/checked" yes
assert_file_eq /sys/module/klpc_sample_elf_mod/parameters/vmlinux 1
! dmesg_since_mark | grep -q 'not checked' || die "the converted patch logged 'not checked'"
"$KLPC_DIR/cli/klpc" status -v | grep -q "$ELF_PATCH (klpc): enabled, checked against the running kernel: yes" ||
	die "klpc status -v: $("$KLPC_DIR/cli/klpc" status -v)"

# removed and loaded again, twice, while the patch stays: the relocations
# are cleared at removal, or apply_relocate_add() would refuse them
for i in 1 2; do
	unload klpc-target
	assert_file_eq "$d/klpc_target/patched" 0
	dmesg_mark
	load klpc-target
	assert_dmesg_has "applying patch '$ELF_PATCH' to loading module 'klpc_target'"
	assert_eq 27,2 "$(elf_dup)" "dup after reload $i"
done

# disabled and enabled again: the bound object keeps its relocations
disable_patch "$ELF_PATCH"
assert_eq 1,2 "$(elf_dup)" "dup after disable"
enable_patch "$ELF_PATCH"
assert_eq 27,2 "$(elf_dup)" "dup after enable"
disable_patch "$ELF_PATCH"
unload klpc-sample-elf-mod
unload klpc-target

# the patch first, then the module
load klpc-sample-elf-mod
wait_transition "$ELF_PATCH"
load klpc-target
assert_eq 27,2 "$(elf_dup)" "dup with the patch (module loaded later)"
unload klpc-target
load klpc-target
assert_eq 27,2 "$(elf_dup)" "dup after reload"
disable_patch "$ELF_PATCH"
unload klpc-sample-elf-mod
assert_eq 1,2 "$(elf_dup)" "dup after the patch went"
unload klpc-target
unload klpc
