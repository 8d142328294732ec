#!/bin/bash
# Boot the klpc test guest under QEMU and judge the run from its console.
# Usage: vm/run.sh demo|test|bench|shell|try|kallsyms|torture
#
# Env: KLPC_CACHE   cache for the kernel and base root (/var/cache/klpc)
#      KLPC_KDIR    kernel build tree (its release picks the guest kernel)
#      KLPC_KERNEL  boot this bzImage instead of Debian's
#      KLPC_TIMEOUT hard limit in seconds (demo 600, test 3600, bench 3600,
#                   try 600, shell none)
#      KLPC_TRY_PATCH / KLPC_TRY_SCRIPT  try mode (make vm-try): the patch
#                   module 'klpc load' loads, and the script run after it
#      KLPC_FILTER  test glob(s), separated by commas or blanks: a folder
#                   (consistency/), names (build/*, *reverse*); passed as
#                   klpc.filter= with commas (tests/select.sh matches them)
#      KLPC_TORTURE_SEED / KLPC_TORTURE_DURATION  torture mode (make
#                   vm-torture): the seed (default random, printed) and the
#                   seconds of random operations (180); the hard limit is
#                   that plus 900 s
#      KLPC_SHARDS  test mode: split the tests over this many guests booted
#                   side by side (default 1; vm/shard.sh says how)
#      KLPC_ACCEL   kvm|tcg|auto (default auto: KVM only if a probe boots)
#      KLPC_MEM / KLPC_SMP  guest memory (2048) and QEMU's -smp (2; test
#                   mode 3 with maxcpus=2: a possible CPU that is not online)
#      KLPC_DEBUG   1: KLPC_KERNEL is the debug kernel (make ... KERNEL=debug,
#                   vm/debug-kernel.sh): vm/debug.cmdline is added to the
#                   kernel's arguments, the timeouts scale, and a test run
#                   fails unless lockdep, KASAN, kmemleak and failslab are on
#      KLPC_TIMEOUT_SCALE  multiplies the hard limit and each test's timeout
#                   (klpc.timeout_scale=); default 1, with KLPC_DEBUG 8
# Console log: build/vm-MODE.log (build/vm-MODE-debug.log with KLPC_DEBUG).
# Tests with '# klpc-boot: secure' run in a Secure Boot guest of their own,
# after the usual one (vm/secure.sh; with KLPC_SHARDS, beside them); its
# log is build/vm-test-secure.log.
# In test mode the last line printed is exactly "N passed, N failed",
# host-detected failures included.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
# shellcheck source=tests/select.sh
. "$ROOT/tests/select.sh"
# shellcheck source=vm/shard.sh
. "$ROOT/vm/shard.sh"
# shellcheck source=vm/secure.sh
. "$ROOT/vm/secure.sh"

# The kernel log lines that fail a run: the list the guest runner uses too.
mapfile -t KERNEL_BAD < <(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$ROOT/vm/kernel-bad.txt")
[ "${#KERNEL_BAD[@]}" -gt 0 ] || die "no patterns in vm/kernel-bad.txt"
DEBUG=${KLPC_DEBUG:-0}
case $DEBUG in 0 | 1) ;; *) die "KLPC_DEBUG=$DEBUG: use 0 or 1" ;; esac
SCALE=${KLPC_TIMEOUT_SCALE:-$((DEBUG ? 8 : 1))}
KLPC_SHARDS=${KLPC_SHARDS:-1}
case $KLPC_SHARDS in '' | *[!0-9]* | 0) die "KLPC_SHARDS=$KLPC_SHARDS: use a positive integer" ;; esac
# a shard's tests, written into its overlay as /klpc/filter (vm/shard.sh)
SHARD_FILTER=
case $SCALE in '' | *[!0-9]* | 0) die "KLPC_TIMEOUT_SCALE=$SCALE: use a positive integer" ;; esac
QEMU_PIDFILE=
# the kind of guest booted now ('secure': vm/secure.sh; empty: the usual),
# and the kinds this test run boots apart (the usual guests' klpc.boots=)
BOOT_KIND=
BOOTS_APART=

default_timeout() {
	case $1 in
	demo | try | kallsyms) echo 600 ;;
	test) echo 3600 ;;
	bench) echo 3600 ;;
	torture) echo $((${KLPC_TORTURE_DURATION:-180} + 900)) ;;
	shell) echo 0 ;;
	esac
}

# default_smp MODE: QEMU's -smp.  The test guests get one more possible
# CPU than they boot with, as machines booted with maxcpus= do: three CPUs,
# the kernel told to bring up two (smp_args).  Not QEMU's hot-plug slots
# (-smp 2,maxcpus=3): 6.12 counts as possible only the CPUs the firmware
# marks enabled or online-capable, which those are not.
default_smp() {
	case $1 in
	test) echo 3 ;;
	*) echo 2 ;;
	esac
}

# smp_args MODE: the kernel's share of default_smp (none if KLPC_SMP is
# set: the caller chose the topology)
smp_args() {
	[ "$1" = test ] && [ -z "${KLPC_SMP:-}" ] || return 0
	echo " maxcpus=2"
}

# kvm_works KERNEL: boot KERNEL under KVM to its no-root panic; a sane KVM
# gets there within seconds (on some hosts KVM fails or stalls in the BIOS).
kvm_works() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	timeout -k 2 15 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
		-nographic -no-reboot -nic none -kernel "$1" \
		-append "console=ttyS0 panic=-1 rdinit=/none root=/dev/none" \
		</dev/null 2>&1 | grep -q 'Kernel panic'
}

# accel_args KERNEL: QEMU accelerator options.
accel_args() {
	local accel=${KLPC_ACCEL:-auto}
	if [ "$accel" = auto ]; then
		accel=tcg
		if kvm_works "$1"; then accel=kvm; fi
	fi
	case $accel in
	kvm) echo "-accel kvm -cpu host" ;;
	# Multi-threaded TCG hangs on cross-modifying code: single-threaded.
	tcg) echo "-accel tcg,thread=single -cpu max" ;;
	*) die "KLPC_ACCEL=$accel: use kvm, tcg or auto" ;;
	esac
}

# check_vermagic KVER: every module was built for the kernel the guest boots
# (make builds them against KDIR; KERNEL=debug and stock use one tree).
check_vermagic() {
	local ko magic
	while IFS= read -r ko; do
		magic=$(modinfo -F vermagic "$ko" 2>/dev/null) || die "modinfo $ko failed"
		[ "${magic%% *}" = "$1" ] ||
			die "$ko is built for ${magic%% *}, the guest runs $1: run 'make clean'"
	done < <(find "$ROOT" \( -path "$ROOT/.git" -o -path "$ROOT/build" \) \
		-prune -o -name '*.ko' -type f -print)
}

# copy_tree SRC DST: copy a source directory without build outputs.
copy_tree() {
	mkdir -p "$2"
	tar -C "$1" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
		--exclude=Module.symvers --exclude='*.a' . | tar -C "$2" -xf -
}

# add_try STAGE KVER: the patch (and script) of make vm-try, in /klpc/try.
add_try() {
	local magic
	[ -n "${KLPC_TRY_PATCH:-}" ] || die "try mode needs KLPC_TRY_PATCH (make vm-try PATCH=...)"
	[ -f "$KLPC_TRY_PATCH" ] || die "$KLPC_TRY_PATCH: no such file"
	magic=$(modinfo -F vermagic "$KLPC_TRY_PATCH" 2>/dev/null) ||
		die "$KLPC_TRY_PATCH is not a kernel module"
	[ "${magic%% *}" = "$2" ] ||
		die "$KLPC_TRY_PATCH is built for ${magic%% *}, the guest runs $2"
	mkdir -p "$1/klpc/try"
	cp "$KLPC_TRY_PATCH" "$1/klpc/try/"
	if [ -n "${KLPC_TRY_SCRIPT:-}" ]; then
		[ -f "$KLPC_TRY_SCRIPT" ] || die "$KLPC_TRY_SCRIPT: no such file"
		install -m 755 "$KLPC_TRY_SCRIPT" "$1/klpc/try/script"
	fi
}

# add_signed STAGE: klpc-sample.ko signed by 'cli/klpc sign' with the
# sign-file of KLPC_KDIR (Debian's linux-kbuild for that kernel) and a
# throwaway key (made once in build/test-key; the guest kernel does not
# trust it), in /klpc/signed, for the signature tests.
# Skipped without openssl or sign-file (those tests then skip).
add_signed() {
	local key=$ROOT/build/test-key sign_file=${KLPC_KDIR:-}/scripts/sign-file
	if ! command -v openssl >/dev/null || [ ! -x "$sign_file" ]; then
		msg "no openssl or sign-file: no signed sample in the guest"
		return 0
	fi
	[ -f "$ROOT/sample-patches/klpc-sample.ko" ] || return 0
	if [ ! -s "$key/cert.der" ]; then
		mkdir -p "$key"
		openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 \
			-subj '/CN=klpc test key (untrusted)/' -keyout "$key/key.pem" \
			-outform DER -out "$key/cert.der" >/dev/null 2>&1 ||
			die "openssl could not make the test signing key"
	fi
	mkdir -p "$1/klpc/signed"
	cp "$ROOT/sample-patches/klpc-sample.ko" "$1/klpc/signed/"
	KLPC_LOG=0 KLPC_SIGN_FILE=$sign_file "$ROOT/cli/klpc" sign "$1/klpc/signed/klpc-sample.ko" \
		--key "$key/key.pem" --cert "$key/cert.der" >/dev/null ||
		die "cli/klpc sign failed on the signed sample"
}

# build_overlay DIR KVER [MODE]: /init and /klpc (modules, tests, vm, bench,
# cli, kver; try mode: the patch to try) packed as DIR/overlay.cpio.gz.
build_overlay() {
	local dir=$1 stage=$1/overlay ko n=0
	rm -rf "$stage"
	mkdir -p "$stage/klpc/modules"
	install -m 755 "$ROOT/vm/init" "$stage/init"
	while IFS= read -r ko; do
		[ ! -e "$stage/klpc/modules/${ko##*/}" ] ||
			die "two modules named ${ko##*/}: $ko and another"
		cp "$ko" "$stage/klpc/modules/"
		n=$((n + 1))
	done < <(find "$ROOT" \( -path "$ROOT/.git" -o -path "$ROOT/build" \) \
		-prune -o -name '*.ko' -type f -print | sort)
	[ $n -gt 0 ] || msg "warning: no built .ko found (run 'make' first?)"
	copy_tree "$ROOT/tests" "$stage/klpc/tests"
	copy_tree "$ROOT/vm" "$stage/klpc/vm"
	copy_tree "$ROOT/cli" "$stage/klpc/cli"
	add_signed "$stage"
	[ "$BOOT_KIND" != secure ] || add_secure "$stage"
	[ "${3:-}" != try ] || add_try "$stage" "$2"
	[ ! -d "$ROOT/bench" ] || copy_tree "$ROOT/bench" "$stage/klpc/bench"
	# upstream's selftests and their modules (for
	# parity/upstream-selftests-replayed), if built for this run
	[ ! -d "$ROOT/build/upstream/selftests" ] ||
		cp -a "$ROOT/build/upstream/selftests" "$stage/klpc/upstream"
	echo "$2" >"$stage/klpc/kver"
	[ -z "$SHARD_FILTER" ] || echo "$SHARD_FILTER" >"$stage/klpc/filter"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$dir/overlay.cpio.gz"
	msg "overlay: $n module(s), tests, vm scripts for $2"
}

# debug_args: the debug kernel's arguments, vm/debug.cmdline (why: there).
debug_args() {
	sed -e 's/#.*//' "$ROOT/vm/debug.cmdline" | tr -s ' \t\n' '   ' |
		sed -e 's/^ //' -e 's/ $//'
}

cmdline() {
	# slub_debug: red zones, poisoning and sanity checks on every slab,
	# so a use-after-free or an overrun shows in the log (Debian's
	# kernel has SLUB_DEBUG=y, off by default).  Not for the benchmarks:
	# with U every allocation also saves its stack trace, a cost no
	# production kernel pays, which would weigh on whichever
	# implementation allocates more, not on what users see.
	local s="console=ttyS0 loglevel=5 panic=-1 klpc.mode=$1"
	[ "$1" = bench ] || s="$s slub_debug=FZPU"
	s="$s$(smp_args "$1")"
	# blanks would end the argument: commas, which the runner takes too
	[ -z "${KLPC_FILTER:-}" ] ||
		s="$s klpc.filter=$(printf '%s' "$KLPC_FILTER" | tr -s ' \t' ',')"
	if [ "$1" = torture ]; then
		[ -z "${KLPC_TORTURE_SEED:-}" ] || s="$s klpc.seed=$KLPC_TORTURE_SEED"
		[ -z "${KLPC_TORTURE_DURATION:-}" ] || s="$s klpc.duration=$KLPC_TORTURE_DURATION"
	fi
	[ "$SCALE" -eq 1 ] || s="$s klpc.timeout_scale=$SCALE"
	[ "$DEBUG" -eq 0 ] || s="$s $(debug_args)"
	if [ "$BOOT_KIND" = secure ]; then
		s="$s$(secure_args)"
	elif [ -n "$BOOTS_APART" ]; then
		s="$s klpc.boots=$BOOTS_APART"
	fi
	echo "$s"
}

# boot MODE KERNEL INITRD LOG [quiet]: run QEMU, console to the terminal
# and LOG (quiet: to LOG only). Prints QEMU's exit status (124 for the
# timeout). A Secure Boot guest's firmware and varstore are in KERNEL's
# directory (secure_prepare).
boot() {
	local mode=$1 t accel rc tflags=() input=/dev/null show=2 fw=()
	# the console to our stderr by its descriptor: bash opens the path
	# /dev/stderr anew, which truncates a log file that stderr points to
	# (make vm-test >log 2>&1 lost every line before the guest's)
	[ "${5:-}" != quiet ] || exec {show}>/dev/null
	t=${KLPC_TIMEOUT:-$(($(default_timeout "$mode") * SCALE))}
	accel=$(accel_args "$2")
	if [ "$mode" = shell ]; then
		tflags=(--foreground)
		input=/dev/stdin
	fi
	# kallsyms: the guest writes /proc/kallsyms to its ttyS1, this file
	local serial=()
	[ "$mode" != kallsyms ] ||
		serial=(-serial mon:stdio -serial "file:${4%.raw}.kallsyms")
	[ "$BOOT_KIND" != secure ] || read -r -a fw <<<"$(secure_qemu "$(dirname "$2")")"
	msg "booting $(basename "$2") ($accel, timeout ${t}s), console log ${4%.raw}"
	SECONDS=0
	# shellcheck disable=SC2086 # $accel holds several options
	timeout "${tflags[@]}" -k 10 "$t" qemu-system-x86_64 $accel \
		-m "${KLPC_MEM:-2048}" -smp "${KLPC_SMP:-$(default_smp "$mode")}" -nographic -no-reboot \
		-nic none -pidfile "$QEMU_PIDFILE" "${fw[@]}" -kernel "$2" -initrd "$3" \
		-append "$(cmdline "$mode")" "${serial[@]}" <"$input" 2>&1 | tee "$4" >&"$show"
	rc=${PIPESTATUS[0]}
	[ "$show" = 2 ] || exec {show}>&-
	msg "QEMU ran for $SECONDS s (status $rc)"
	echo "$rc"
}

# show_matches FILE REGEX: the matching lines with some context.
show_matches() {
	grep -n -E -m 3 -B 3 -A 15 -- "$2" "$1" | head -n 60 | sed 's/^/    /' >&2
}

# scan_log LOG QEMU_RC MODE: report host-detected problems; prints their count.
scan_log() {
	local log=$1 qrc=$2 mode=$3 n=0 re
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		msg "FAIL: timeout: the guest did not finish in time (hung?); last lines:"
		tail -n 30 "$log" | sed 's/^/    /' >&2
		n=$((n + 1))
	elif [ "$qrc" != 0 ]; then
		msg "FAIL: QEMU exited with status $qrc"
		n=$((n + 1))
	fi
	# one host failure for all of them: each pattern found is named
	if printf '%s\n' "${KERNEL_BAD[@]}" | grep -q -E -f - "$log"; then
		for re in "${KERNEL_BAD[@]}"; do
			grep -q -E -- "$re" "$log" || continue
			msg "FAIL: '$re' in the console log:"
			show_matches "$log" "$re"
		done
		n=$((n + 1))
	fi
	[ "$mode" != test ] || n=$((n + $(check_kernel_line "$log")))
	if [ "$n" -eq 0 ] && ! grep -q "^KLPC-VM: END mode=$mode" "$log"; then
		msg "FAIL: no end marker: the guest stopped before finishing"
		tail -n 30 "$log" | sed 's/^/    /' >&2
		n=$((n + 1))
	fi
	echo "$n"
}

# check_kernel_line LOG: the runner's "kernel: <release> lockdep=on|off
# kasan=on|off kmemleak=on|off failslab=on|off" line, read in the guest from
# the running kernel. With the debug kernel each checker must be on.
# Prints the number of failures.
check_kernel_line() {
	local line
	line=$(grep -E '^kernel: ' "$1" | tail -n 1) || true
	if [ "$DEBUG" -eq 0 ]; then
		echo 0
	elif [ -z "$line" ]; then
		msg "FAIL: no 'kernel:' line from the guest runner"
		echo 1
	elif ! [[ $line =~ ^kernel:\ [^\ ]+\ lockdep=on\ kasan=on\ kmemleak=on\ failslab=on$ ]]; then
		msg "FAIL: the debug kernel runs without all its checkers: $line"
		echo 1
	else
		echo 0
	fi
}

SUMMARY_RE='^([0-9]+) passed, ([0-9]+) failed$'
SKIPPED_RE='^([0-9]+) skipped$'

# summary_line PASSED FAILED SKIPPED: "N skipped" (if any) on a line of its
# own, then the last line, exactly "N passed, N failed".
summary_line() {
	[ "$3" -eq 0 ] || echo "$3 skipped"
	echo "$1 passed, $2 failed"
}

# test_counts LOG HOST_FAILURES: "PASSED FAILED SKIPPED" of the guest
# runner's summary in LOG, the host's failures added.
test_counts() {
	local line skip passed=0 failed=0 skipped=0 extra=$2
	line=$(grep -E "$SUMMARY_RE" "$1" | tail -n 1)
	if [ -z "$line" ]; then
		msg "FAIL: no 'N passed, N failed' line from the guest runner"
		extra=$((extra + 1))
	else
		read -r passed failed < <(sed -E "s/$SUMMARY_RE/\\1 \\2/" <<<"$line")
		skip=$(grep -E "$SKIPPED_RE" "$1" | tail -n 1)
		[ -z "$skip" ] || skipped=${skip%% *}
	fi
	echo "$passed $((failed + extra)) $skipped"
}

# judge MODE LOG HOST_FAILURES: exit status of the run (plus test summary).
judge() {
	local mode=$1 log=$2 bad=$3 passed failed skipped
	case $mode in
	test)
		read -r passed failed skipped < <(test_counts "$log" "$bad")
		summary_line "$passed" "$failed" "$skipped"
		[ "$failed" -eq 0 ]
		;;
	demo | try | kallsyms | torture)
		if grep -q "^KLPC-${mode^^}: OK\$" "$log" && [ "$bad" -eq 0 ]; then
			msg "$mode: OK"
			return 0
		fi
		msg "$mode: FAILED"
		return 1
		;;
	*)
		if [ "$bad" -eq 0 ] && grep -q "^KLPC-VM: END mode=$mode rc=0$" "$log"; then
			msg "$mode: OK"
			return 0
		fi
		msg "$mode: FAILED"
		return 1
		;;
	esac
}

# make_initrd DIR KVER MODE BASE: DIR/initrd.img, the base root and
# DIR's overlay for MODE.
make_initrd() {
	mkdir -p "$1"
	build_overlay "$1" "$2" "$3"
	cat "$4" "$1/overlay.cpio.gz" >"$1/initrd.img"
}

# guest MODE KVER KERNEL BASE DIR LOG: one guest for MODE, its overlay,
# initrd and pidfile in DIR (QEMU_PIDFILE), its console in LOG; prints
# the count of problems the host found (nothing in shell mode).
guest() {
	local qrc
	make_initrd "$5" "$2" "$1" "$4"
	qrc=$(boot "$1" "$3" "$5/initrd.img" "$6.raw")
	stop_qemu
	tr -d '\r' <"$6.raw" >"$6"
	rm -f "$6.raw"
	[ "$1" = shell ] || scan_log "$6" "$qrc" "$1"
}

main() {
	local mode=${1:-} kver kernel base dir log bad
	case $mode in
	demo | test | bench | shell | try | kallsyms | torture) ;;
	*) die "usage: $0 demo|test|bench|shell|try|kallsyms|torture" ;;
	esac
	kver=$(klpc_kver)
	if [ "$DEBUG" -eq 1 ]; then
		[ -n "${KLPC_KERNEL:-}" ] || die "KLPC_DEBUG=1 needs KLPC_KERNEL (the debug bzImage)"
		msg "debug kernel $kver, timeouts x$SCALE"
	fi
	kernel=$("$ROOT/vm/kernel.sh" "$kver")
	base=$("$ROOT/vm/base.sh")
	check_vermagic "$kver"
	dir=$ROOT/build/vm-$mode
	log=$ROOT/build/vm-$mode.log
	if [ "$DEBUG" -eq 1 ]; then
		dir=$dir-debug
		log=$ROOT/build/vm-$mode-debug.log
	fi
	[ "$mode" != test ] || BOOTS_APART=$(secure_boots)
	if [ "$KLPC_SHARDS" -gt 1 ]; then
		[ "$mode" = test ] || die "KLPC_SHARDS: test mode only"
		run_shards "$kver" "$kernel" "$base" "$dir-shards"
		return
	fi
	QEMU_PIDFILE=$dir/qemu.pid
	trap stop_qemu EXIT
	trap 'exit 130' INT TERM HUP
	if [ -n "$BOOTS_APART" ]; then
		secure_run "$kver" "$kernel" "$base" "$dir" "$log"
		return
	fi
	bad=$(guest "$mode" "$kver" "$kernel" "$base" "$dir" "$log")
	[ "$mode" != shell ] || return 0
	# bench: the table, results/*.csv and the chart, from the guest's lines
	[ "$mode" != bench ] || "$ROOT/bench/report.sh" "$log" || bad=$((bad + 1))
	judge "$mode" "$log" "$bad"
}

main "$@"
