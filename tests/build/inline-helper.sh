#!/bin/sh
# was t-87-b-build-inline
# klpc build: a fix in a static inline helper of kernel/sys.c
# (rlim64_is_infinity(), tests/fixes/prlimit-inline.patch) that gcc
# inlined into __do_sys_prlimit64(), itself notrace as every kernel
# inline function is: klpc build carries the helper's caller and patches
# the system call entries that call it, and prlimit(1) (the prlimit64
# system call) sees the fix: a limit one below RLIM64_INFINITY now reads
# back as infinity. Unloading restores the old behaviour.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

ko=$KLPC_MODDIR/klpc-build-prlimit-inline.ko
[ -f "$ko" ] || skip "no klpc-build-prlimit-inline.ko: klpc build targets installed Debian headers only (tools/build-patches.sh)"
command -v prlimit >/dev/null || die "prlimit (util-linux) is missing in the guest"
P=klpc_build_prlimit_inline
NEAR=18446744073709551614	# RLIM64_INFINITY - 1
INF=unlimited	# RLIM64_INFINITY, as prlimit(1) prints it

# core_after_setting: RLIMIT_CORE's soft limit as a new shell reads it
# back through prlimit64 after setting it to RLIM64_INFINITY - 1
core_after_setting() {
	sh -c "prlimit --pid \$\$ --core=$NEAR:$NEAR && prlimit --pid \$\$ --core --raw --noheadings -o SOFT"
}

assert_eq "$NEAR" "$(core_after_setting)" "RLIMIT_CORE before the patch"
klpc_core_load
load klpc-build-prlimit-inline
wait_transition "$P"
for f in __x64_sys_prlimit64 __ia32_sys_prlimit64; do
	[ -d "$KLPC_SYSFS/$P/vmlinux/$f,1" ] ||
		die "$f is not among the patched functions: $(ls "$KLPC_SYSFS/$P/vmlinux")"
done
assert_eq "$INF" "$(core_after_setting)" "RLIMIT_CORE with the patch"
disable_patch "$P"
assert_eq "$NEAR" "$(core_after_setting)" "RLIMIT_CORE after disable"
unload klpc-build-prlimit-inline
