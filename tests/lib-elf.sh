# shellcheck shell=sh
# Helpers of the guest tests of patches in the livepatch ELF format
# (tests/elf/): the sample klpc-sample-elf-mod (sample-patches/), converted
# by klpc-convert, and broken copies of it (tests/tools/klpc-elf-mangle).

ELF_KO=$KLPC_MODDIR/klpc-sample-elf-mod.ko
ELF_PATCH=klpc_sample_elf_mod
ELF_MANGLE=$KLPC_DIR/tests/tools/klpc-elf-mangle

# elf_variant OP [ARGS]: a broken copy of klpc-sample-elf-mod.ko; prints its path.
elf_variant() {
	_v=$KLPC_TMP/elf-$(echo "$*" | tr -c 'A-Za-z0-9\n' _).ko
	perl "$ELF_MANGLE" "$ELF_KO" "$_v" "$@" || die "klpc-elf-mangle $* failed"
	echo "$_v"
}

# elf_refused REGEX OP [ARGS]: the broken copy fails to load, with a kernel
# log line matching REGEX; nothing stays registered.
elf_refused() {
	_re=$1
	shift
	_ko=$(elf_variant "$@")
	dmesg_mark
	if _err=$(klpc_insmod "$_ko" 2>&1); then
		die "$* loaded, expected a refusal"
	fi
	! is_loaded "$ELF_PATCH" || die "$ELF_PATCH is loaded after a failed insmod ($*)"
	assert_dmesg_has "$_re"
	info "$*: $_err; $(dmesg_since_mark | grep -E 'klpc: ' | head -n 1)"
	assert_not_exists "$(patch_dir "$ELF_PATCH")"
}

# elf_dup: the dup= field of /proc/klpc_target: 1,2 unpatched, 27,2 patched
elf_dup() {
	target_field dup
}
