# shellcheck shell=bash
# Sourced by vm/run.sh: the guests a test asks to be booted apart with a
# line '# klpc-boot: secure' (only kind so far): UEFI Secure Boot on,
# under Debian's own OVMF build and varstore for testers
# (OVMF_CODE_4M.snakeoil.fd, OVMF_VARS_4M.snakeoil.fd: PK, KEK and db
# hold the "SnakeOil" certificate; its key ships beside it, password
# 'snakeoil', /usr/share/doc/ovmf/README.Debian).
#
# Why this and not a kernel of our own with a trusted key built in: it is
# what a user's machine does. The firmware verifies the kernel (Debian's,
# signed here with the db key too, by sbsign); Debian's kernel loads db's
# certificates into its platform keyring and, with a Debian patch, takes
# that keyring for module signatures; Secure Boot locks it down. So
# klpc.ko and a patch signed with the enrolled key load, and nothing else
# does. The kernel's arguments add lockdown=integrity and
# module.sig_enforce=1, as the issue asks, and klpc.boot=secure, which
# tells the guest's runner to run only such tests. The usual guests are
# told with klpc.boots=secure to leave those tests to this boot.
#
# Not for the debug kernel (tinyconfig-based: no EFI stub, no module
# signing): there the test runs in the usual guest and skips, saying why.

SECURE_FW=/usr/share/OVMF/OVMF_CODE_4M.snakeoil.fd
SECURE_VARS=/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd
SECURE_KEY=/usr/share/ovmf/PkKek-1-snakeoil.key
SECURE_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem
# the modules the Secure Boot test loads, signed with the db key
SECURE_MODULES="klpc.ko sample-patches/klpc-sample.ko sample-patches/klpc-target.ko sample-patches/klpc-sample-elf-mod.ko"

# boot_apart_tests KIND: the selected tests that ask for a boot of KIND.
boot_apart_tests() {
	local name
	for name in $(selected_tests); do
		[ "$(shard_header "$ROOT/tests/$name.sh" klpc-boot '')" = "$1" ] && echo "$name"
	done
	return 0
}

# boot_apart NAME: whether test NAME runs in a guest booted for it in
# this run (its '# klpc-boot:' kind is in BOOTS_APART).
boot_apart() {
	local kind
	kind=$(shard_header "$ROOT/tests/$1.sh" klpc-boot '')
	[ -n "$kind" ] && [[ ,$BOOTS_APART, == *,$kind,* ]]
}

# usual_tests: the selected tests the usual guests run.
usual_tests() {
	local name
	for name in $(selected_tests); do
		boot_apart "$name" || echo "$name"
	done
	return 0
}

# secure_missing: why this host cannot boot a Secure Boot guest (nothing
# if it can).
secure_missing() {
	local f
	if [ "$DEBUG" -eq 1 ]; then
		echo "the debug kernel has no EFI stub or module signing"
		return 0
	fi
	for f in "$SECURE_FW" "$SECURE_VARS" "$SECURE_KEY" "$SECURE_CERT"; do
		[ -r "$f" ] || {
			echo "no $f (apt install ovmf)"
			return 0
		}
	done
	command -v sbsign >/dev/null || echo "no sbsign (apt install sbsigntool)"
	command -v openssl >/dev/null || echo "no openssl"
	[ -x "${KLPC_KDIR:-}/scripts/sign-file" ] || echo "no sign-file in ${KLPC_KDIR:-KLPC_KDIR}"
}

# secure_boots: the kinds booted apart in this run, comma-separated, for
# the usual guests' klpc.boots= (empty: none, the tests run and skip there).
secure_boots() {
	local why
	[ -n "$(boot_apart_tests secure)" ] || return 0
	why=$(secure_missing)
	if [ -n "$why" ]; then
		msg "no Secure Boot guest: $why (its tests skip in the usual guest)"
		return 0
	fi
	echo secure
}

# secure_key DIR: the snakeoil key without its password, in DIR (0600).
secure_key() {
	[ -s "$1/key.pem" ] && return 0
	mkdir -p "$1"
	(umask 077 && openssl pkey -in "$SECURE_KEY" -passin pass:snakeoil \
		-out "$1/key.pem") || die "openssl could not read $SECURE_KEY"
}

# secure_prepare DIR KERNEL: DIR/vmlinuz, KERNEL with the db key's
# signature added (the firmware checks it; Debian's own stays), and
# DIR/vars.fd, a writable copy of the varstore.
secure_prepare() {
	local key=$ROOT/build/secure-key
	secure_key "$key"
	mkdir -p "$1"
	sbsign --key "$key/key.pem" --cert "$SECURE_CERT" --output "$1/vmlinuz" \
		"$2" >/dev/null 2>&1 || die "sbsign could not sign $2"
	cp "$SECURE_VARS" "$1/vars.fd"
}

# add_secure STAGE: SECURE_MODULES signed with the db key by 'cli/klpc
# sign', in STAGE/klpc/secure.
add_secure() {
	local key=$ROOT/build/secure-key m
	secure_key "$key"
	mkdir -p "$1/klpc/secure"
	for m in $SECURE_MODULES; do
		[ -f "$ROOT/$m" ] || die "$m is not built"
		cp "$ROOT/$m" "$1/klpc/secure/"
		KLPC_LOG=0 KLPC_SIGN_FILE=$KLPC_KDIR/scripts/sign-file "$ROOT/cli/klpc" sign \
			"$1/klpc/secure/${m##*/}" --key "$key/key.pem" --cert "$SECURE_CERT" \
			>/dev/null || die "cli/klpc sign failed on $m"
	done
}

# secure_qemu DIR: QEMU's options for DIR's firmware and varstore (the
# Secure Boot build needs SMM, hence q35).
secure_qemu() {
	echo "-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on" \
		"-drive if=pflash,format=raw,unit=0,readonly=on,file=$SECURE_FW" \
		"-drive if=pflash,format=raw,unit=1,file=$1/vars.fd"
}

# secure_args: the kernel's arguments added in a Secure Boot guest.
secure_args() {
	echo " klpc.boot=secure lockdown=integrity module.sig_enforce=1"
}

# secure_run KVER KERNEL BASE DIR LOG: make vm-test in one guest, then
# the Secure Boot guest (in DIR-secure, its console in LOG's -secure
# twin), both consoles to the terminal; the last line sums the two.
# shellcheck disable=SC2034 # vm/run.sh's globals, read by guest()
secure_run() {
	local p=0 f=0 k=0 p2 f2 k2 bad sdir=$4-secure slog=${5%.log}-secure.log
	if [ -n "$(usual_tests)" ]; then
		bad=$(guest test "$1" "$2" "$3" "$4" "$5")
		read -r p f k < <(test_counts "$5" "$bad")
	fi
	secure_prepare "$sdir" "$2"
	SHARD_FILTER=$(boot_apart_tests secure | paste -s -d,)
	BOOT_KIND=secure
	QEMU_PIDFILE=$sdir/qemu.pid
	bad=$(guest test "$1" "$sdir/vmlinuz" "$3" "$sdir" "$slog")
	BOOT_KIND=
	SHARD_FILTER=
	read -r p2 f2 k2 < <(test_counts "$slog" "$bad")
	msg "Secure Boot guest: $p2 passed, $f2 failed, $k2 skipped (console log $slog)"
	summary_line $((p + p2)) $((f + f2)) $((k + k2))
	[ $((f + f2)) -eq 0 ]
}
