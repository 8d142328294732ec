#!/bin/sh
# was t-99-cli-sig-enforce
# Module signatures, as klpc sees them: with module.sig_enforce=1 (and
# then lockdown=integrity), an unsigned patch is refused by klpc with the
# fix, a patch signed with a key the kernel does not trust gets klpc's
# explanation of the kernel's refusal; klpc status and info show the
# state; klpc sign's errors in a guest without sign-file.
# Both switches cannot be turned off again: this test must run last.
# klpc-timeout: 300
# klpc-group: tail
# klpc-order: 95 (the tail that leaves state for good, in this order)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

signed=$KLPC_DIR/signed/klpc-sample.ko
[ -f "$signed" ] || skip "no signed sample in the overlay (the host lacks openssl or sign-file)"
enforce=/sys/module/module/parameters/sig_enforce
[ -w "$enforce" ] || skip "no writable $enforce"

cli 0 info "$signed"
out_has '^signed: +yes, by klpc test key \(untrusted\)'
cli 0 info --json "$signed"
assert_json signed true
assert_json signer 'klpc test key (untrusted)'

# sign: the guest has no sign-file; with a stand-in, the key checks
cp "$(ko klpc-sample-stack)" "$KLPC_TMP/stack.ko"
cli 3 sign "$KLPC_TMP/stack.ko"
# the package that brings it, for this kernel (6.12's is not linux-kbuild-6.1)
out_has "Debian's sign-file is missing: apt install linux-headers-$KVER_RE "
KLPC_SIGN_FILE=/bin/true
export KLPC_SIGN_FILE
cli 3 sign "$KLPC_TMP/stack.ko" --key "$KLPC_TMP/none.key"
out_has "no signing key $KLPC_TMP/none.key"
echo key >"$KLPC_TMP/k"
cli 3 sign "$KLPC_TMP/stack.ko" --key "$KLPC_TMP/k" --cert "$KLPC_TMP/none.pub"
out_has "no readable certificate $KLPC_TMP/none.pub"
cli 3 sign "$KLPC_TMP/stack.ko" --key "$KLPC_TMP/k" --cert "$KLPC_TMP/k"
out_has 'sign-file failed on .*: no signature appended'
unset KLPC_SIGN_FILE

klpc_core_load
cli any status --json
assert_json sig_enforce false
assert_json signatures_required false
assert_json lockdown none

expect_write_ok "$enforce" 1
cli any status
out_has '^signatures: +lockdown=none sig_enforce=1: only signed patches load'
cli any status --json
assert_json sig_enforce true
assert_json signatures_required true

dmesg_mark
cli 3 load "$(ko klpc-sample-stack)"
out_has 'klpc-sample-stack.ko is not signed, and this kernel only loads signed modules \(sig_enforce=1, lockdown=none\)'
out_has 'klpc sign .*klpc-sample-stack.ko'
out_has 'mokutil --import /var/lib/dkms/mok.pub'
klog_has 'action=load patch=klpc_sample_stack result=failed detail=".*is not signed'
! dmesg_since_mark | grep -q 'Loading of unsigned module is rejected' ||
	die "klpc let the kernel refuse the unsigned module"
! is_loaded klpc_sample_stack || die "an unsigned module was loaded"

cli 3 load "$signed"
out_has 'the kernel refused its signature \(Key was rejected by service\): it is signed, but with a key the kernel does not trust'
out_has 'mokutil --import'
! is_loaded klpc_sample || die "a module signed with an untrusted key was loaded"

echo integrity >/sys/kernel/security/lockdown || skip "cannot set lockdown=integrity"
cli any status --json
assert_json lockdown integrity
cli 3 load "$(ko klpc-sample-stack)"
out_has 'not signed, and this kernel only loads signed modules \(sig_enforce=1, lockdown=integrity\)'
