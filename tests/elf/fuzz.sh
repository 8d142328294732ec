#!/bin/sh
# was t-86-d-elf-fuzz
# Random mutations of the converted patch klpc-sample-elf-mod: its
# .klp.rela sections, .klp.sym symbols and build record (klpc-elf-mangle
# fuzz SEED: seeded, so a mutant is reproduced from its seed). Each is
# loaded with klpc_target loaded first or after the patch (25 seeds each
# in turn): it loads and is enabled, or it is refused by klpc or by
# the kernel's module loader (which applies .klp.rela.vmlinux itself on
# 6.1); never a kernel report. A loaded mutant's new code is not run
# (klpc-elf-mangle says why); it is disabled and unloaded.
# KLPC_FUZZ_SEED: the first seed (default 564351000, whose mutant 184, a
# .klp.rela.vmlinux section with sh_info 0xffffffff, made klpc read a
# section header out of range; printed);
# KLPC_FUZZ_N: how many mutants (240: about 4 minutes under TCG).
# klpc-timeout: 480
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-elf.sh
. "${0%/*}/../lib-elf.sh"

seed=${KLPC_FUZZ_SEED:-564351000}
n=${KLPC_FUZZ_N:-240}
d=$(patch_dir "$ELF_PATCH")
ko=$KLPC_TMP/fuzz.ko
bad='Kernel panic|WARNING:|BUG:|Oops|general protection|UBSAN:|refcount_t|list_(add|del) corruption'
loaded=0
by_klpc=0
by_kernel=0
target_refused=0
figure "fuzz seed $seed, $n mutants: perl tests/tools/klpc-elf-mangle klpc-sample-elf-mod.ko OUT fuzz SEED, SEED = $seed..$((seed + n - 1))"

# one_mutant SEED WHAT: load $ko.SEED, judge and count the outcome.
one_mutant() {
	_s=$1
	_what=$2
	_first=$((_s / 25 % 2 == 0))
	if [ "$_first" = 1 ]; then
		is_loaded klpc_target || load klpc-target
	else
		! is_loaded klpc_target || unload klpc-target
	fi
	dmesg_mark
	_ok=0
	if insmod "$ko.$_s" 2>/dev/null; then
		_ok=1
		loaded=$((loaded + 1))
		[ -d "$d" ] || die "seed $_s ($_what): loaded, but $d does not exist"
		wait_transition "$ELF_PATCH"
		assert_file_eq "$d/enabled" 1
		if [ "$_first" = 1 ]; then
			assert_file_eq "$d/klpc_target/patched" 1
		elif try_load klpc-target 2>/dev/null; then
			assert_file_eq "$d/klpc_target/patched" 1
		else
			target_refused=$((target_refused + 1))
			dmesg_since_mark | grep -q "refusing to load module 'klpc_target'" ||
				die "seed $_s ($_what): klpc_target refused without klpc's line"
		fi
		disable_patch "$ELF_PATCH"
		unload klpc-sample-elf-mod
	else
		! is_loaded "$ELF_PATCH" || die "seed $_s ($_what): insmod failed, but the module is loaded"
		[ ! -e "$d" ] || die "seed $_s ($_what): insmod failed, but $d exists"
	fi
	_log=$(dmesg_since_mark)
	if [ "$_ok" = 0 ]; then
		case $_log in
		*'klpc: '*) by_klpc=$((by_klpc + 1)) ;;
		*) by_kernel=$((by_kernel + 1)) ;;
		esac
	fi
	if echo "$_log" | grep -Eq "$bad"; then
		echo "$_log" | tail -n 40
		die "seed $_s: a kernel report after mutant: $_what"
	fi
	rm -f "$ko.$_s"
}

klpc_core_load
start=$(date +%s)
i=0
while [ "$i" -lt "$n" ]; do
	# a batch of mutants from one perl run
	b=$((n - i < 50 ? n - i : 50))
	perl "$ELF_MANGLE" "$ELF_KO" "$ko" fuzz $((seed + i)) "$b" >"$KLPC_TMP/fuzz.list" ||
		die "klpc-elf-mangle fuzz $((seed + i)) $b failed"
	while read -r s what; do
		one_mutant "$s" "$what" </dev/null
	done <"$KLPC_TMP/fuzz.list"
	i=$((i + b))
done
! is_loaded klpc_target || unload klpc-target
figure "fuzz seed $seed: $n mutants in $(($(date +%s) - start)) s: $loaded loaded (klpc_target refused after $target_refused), $by_klpc refused by klpc, $by_kernel refused by the kernel's loader"
[ $((loaded + by_klpc + by_kernel)) -eq "$n" ] || die "counts do not add up"
if [ "$by_klpc" -eq 0 ] || [ "$by_kernel" -eq 0 ]; then
	die "the mutants did not reach both klpc's and the kernel's checks"
fi
