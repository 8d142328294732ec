#!/bin/sh
# was t-86-c-elf-record
# The build record: a patch whose record names another vmlinux, another
# build of the module, or another size of the replaced function is refused
# naming both; a malformed record is refused; a patch without a record
# loads, with one line saying it was not checked, and 'checked' says no.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-elf.sh
. "${0%/*}/../lib-elf.sh"

T=klpc_target
pfx="klpc: patch '$ELF_PATCH': object"
hex='[0-9a-f]{40}'
klpc_core_load

# a plain Kbuild patch: not checked, said once
dmesg_mark
load klpc-sample
wait_transition klpc_sample
assert_file_eq "$(patch_dir klpc_sample)/checked" no
n=$(dmesg_since_mark | grep -c "klpc: patch 'klpc_sample' was not checked against the running kernel: no \"livepatch\" modinfo") || true
assert_eq 1 "$n" "'not checked' lines"
"$KLPC_DIR/cli/klpc" status -v | grep -q "klpc_sample (klpc): enabled, checked against the running kernel: no" ||
	die "klpc status -v: $("$KLPC_DIR/cli/klpc" status -v)"
disable_patch klpc_sample
unload klpc-sample

elf_refused "$pfx 'vmlinux': built for build ID $hex, running $hex \((-EINVAL|-22)\)" rec-id vmlinux
load klpc-target
elf_refused "$pfx '$T': built for build ID $hex, running $hex \((-EINVAL|-22)\)" rec-id "$T"
elf_refused "$pfx '$T': function 'klpc_target_dup' was 200 bytes when the patch was built, it spans [0-9]+ now \((-EINVAL|-22)\)" \
	rec-size "$T" 200
# what kallsyms measures of the replaced function (st_size 15)
figure "klpc_target_dup,1: st_size 15, $(dmesg | grep -o 'spans [0-9]* now' | tail -n 1)"
# kallsyms measures up to the next symbol: 15 bytes span 16, and so would
# any size from 1 to 16; 0 is out of that range
elf_refused "$pfx '$T': function 'klpc_target_dup' was 0 bytes" rec-size "$T" 0
elf_refused "klpc: patch '$ELF_PATCH': object '-': build record entry 0: unknown magic or version" \
	rec-u8 0 255
elf_refused "klpc: patch '$ELF_PATCH': object '-': build record entry 0: section size does not match" \
	rec-u8 6 1
elf_refused "$pfx '.*': build record entry 0: build ID length not within 1..64" rec-u8 10 255
elf_refused "$pfx '\?': build record entry 0: object name not NUL-terminated" rec-fill 24 128 65
assert_eq 1,2 "$(elf_dup)" "klpc_target after the refusals"

# a module whose build differs comes after the patch: its load is refused
unload klpc-target
ko=$(elf_variant rec-id "$T")
klpc_insmod "$ko" || die "the patch did not load without its module"
wait_transition "$ELF_PATCH"
assert_file_eq "$(patch_dir "$ELF_PATCH")/checked" yes
dmesg_mark
expect_load_fail klpc-target
assert_dmesg_has "$pfx '$T': built for build ID $hex, running $hex"
disable_patch "$ELF_PATCH"
unload klpc-sample-elf-mod
unload klpc
