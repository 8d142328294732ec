#!/bin/sh
# was t-87-d-build-stable-fix
# klpc build with a real upstream fix: "fcntl: refuse F_SET_RW_HINT on an
# immutable inode", a 6.1 stable fix that Debian's 6.1.192 has and 6.1.176
# lacks (tests/fixes/stable-fcntl-rw-hint.patch), built for 6.1.176 from
# its own linux-source and applied live to a guest booted on it: before
# the patch an immutable file's write hint can be set, with it EPERM, and
# unloading brings the old behaviour back.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

ko=$KLPC_MODDIR/klpc-build-stable-fcntl-rw-hint.ko
[ -f "$ko" ] || skip "for Debian's 6.1.176 only, which lacks the fix: make vm-test TARGET=bookworm-6.1.176 FILTER=build/stable-fix-6.1.176"

# set_hint FILE: fcntl(F_SET_RW_HINT = 1036, RWH_WRITE_LIFE_SHORT) on FILE,
# opened read-only; prints "ok" or the error
set_hint() {
	perl -e 'open(my $f, "<", $ARGV[0]) or die "open: $!\n";
		my $hint = pack("Q", 2);
		print fcntl($f, 1036, $hint) ? "ok\n" : "$!\n"' "$1"
}

dir=$KLPC_TMP/rw-hint
mkdir -p "$dir"
mount -t tmpfs klpc-rw-hint "$dir"
echo data >"$dir/file"
chattr +i "$dir/file"
assert_eq ok "$(set_hint "$dir/file")" "F_SET_RW_HINT on an immutable file, unpatched 6.1.176"
klpc_core_load
cli 0 load "$ko"
wait_transition klpc-build-stable-fcntl-rw-hint
assert_file_eq "$(patch_dir klpc-build-stable-fcntl-rw-hint)/checked" yes
assert_eq "Operation not permitted" "$(set_hint "$dir/file")" "F_SET_RW_HINT on an immutable file, patched"
chattr -i "$dir/file"
assert_eq ok "$(set_hint "$dir/file")" "F_SET_RW_HINT on a mutable file, patched"
chattr +i "$dir/file"
cli 0 unload klpc-build-stable-fcntl-rw-hint
assert_eq ok "$(set_hint "$dir/file")" "F_SET_RW_HINT on an immutable file, after unload"
chattr -i "$dir/file"
umount "$dir"
