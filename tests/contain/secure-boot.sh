#!/bin/sh
# was t-9b-secure-boot
# Booted locked down: UEFI Secure Boot on, lockdown=integrity and
# module.sig_enforce=1 from the boot on (vm/secure.sh boots this test in
# a guest of its own, Debian's OVMF with its "SnakeOil" key enrolled in
# db). klpc.ko and patches signed with the enrolled key load and work,
# including a patch whose .klp.rela relocations klpc writes into a
# module's text; an unsigned klpc.ko or patch and a patch signed with a
# key the kernel does not trust are refused, each with klpc's
# explanation, and leave nothing loaded.
# klpc-boot: secure
# klpc-timeout: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"
# shellcheck source=tests/lib-elf.sh
. "${0%/*}/../lib-elf.sh"

SECURE=$KLPC_DIR/secure
UNTRUSTED=$KLPC_DIR/signed/klpc-sample.ko

# secure_boot_state: why this is not a Secure Boot boot, or nothing. The
# kernel says what the firmware told it (Debian's secureboot.c); the
# guest has no efivarfs (a module here) to read the variable itself.
secure_boot_state() {
	if [ ! -d /sys/firmware/efi ]; then
		echo "not booted by UEFI firmware"
	elif ! dmesg | grep -q 'secureboot: Secure boot enabled'; then
		echo "UEFI Secure Boot is off"
	fi
}

_why=$(secure_boot_state)
[ -z "$_why" ] || skip "$_why: make vm-test boots this test in a Secure Boot guest of its own (vm/secure.sh), except under the debug kernel (no EFI stub, no module signing) or without ovmf and sbsigntool on the host"
[ -d "$SECURE" ] || die "no $SECURE in the overlay: vm/secure.sh did not sign the modules"

# the boot is what the test says it is
assert_file_eq /sys/kernel/security/lockdown 'none [integrity] confidentiality'
assert_file_eq /sys/module/module/parameters/sig_enforce Y
dmesg | grep -Eq "integrity: Loaded X\.509 cert 'SnakeOil" ||
	die "the firmware's db key is not in the kernel's keyrings: $(dmesg | grep -E 'X\.509|integrity:' || true)"

# klpc.ko unsigned: refused by klpc before the kernel sees it
KLPC_CORE=$KLPC_MODDIR/klpc.ko
cli 3 load "$SECURE/klpc-sample.ko"
out_has "klpc\\.ko is not signed, and this kernel only loads signed modules \\(sig_enforce=1, lockdown=integrity\\)"
! is_loaded klpc || die "an unsigned klpc.ko was loaded"
# ... and by the kernel, asked directly
dmesg_mark
if _err=$(klpc_insmod "$KLPC_MODDIR/klpc.ko" 2>&1); then
	die "the kernel loaded an unsigned klpc.ko under lockdown"
fi
info "unsigned klpc.ko: $_err"
! is_loaded klpc || die "an unsigned klpc.ko was loaded"

# signed with the enrolled key: the core and the patch load, and patch
KLPC_CORE=$SECURE/klpc.ko
export KLPC_CORE
cli 0 load "$SECURE/klpc-sample.ko"
is_loaded klpc || die "klpc load did not load the signed klpc.ko"
wait_transition klpc_sample
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline with the signed patch"
cli any status --json
assert_json lockdown integrity
assert_json sig_enforce true
cli 0 disable klpc_sample
wait_transition klpc_sample
cli 0 unload klpc_sample
! is_loaded klpc_sample || die "klpc_sample is still loaded"

# a patch signed with a key the kernel does not trust: the kernel refuses
# it, klpc explains
cli 3 load "$UNTRUSTED"
out_has 'it is signed, but with a key the kernel does not trust'
! is_loaded klpc_sample || die "a patch signed with an untrusted key was loaded"

# an unsigned patch: klpc refuses it before the kernel sees it
cli 3 load "$(ko klpc-sample-stack)"
out_has 'not signed, and this kernel only loads signed modules'
! is_loaded klpc_sample_stack || die "an unsigned patch was loaded"

# relocations klpc writes into a patch's text (text_poke(), as the
# kernel's livepatch does) work under lockdown: the ELF-format sample
insmod "$SECURE/klpc-target.ko" || die "insmod of the signed klpc-target failed"
dmesg_mark
insmod "$SECURE/klpc-sample-elf-mod.ko" || die "insmod of the signed ELF-format patch failed"
wait_transition "$ELF_PATCH"
assert_eq 27,2 "$(elf_dup)" "dup with the signed ELF-format patch"
! dmesg_since_mark | grep -q 'Lockdown:' ||
	die "lockdown refused something: $(dmesg_since_mark | grep 'Lockdown:')"
disable_patch "$ELF_PATCH"
assert_eq 1,2 "$(elf_dup)" "dup after disable"
unload klpc-sample-elf-mod
unload klpc-target
klpc_core_unload
info "locked down: signed core and patches load, the rest refused"
