# shellcheck shell=sh
# Helpers for the tests ported from the upstream livepatch selftests
# (tools/testing/selftests/livepatch, tests/parity/). Source after lib.sh:
#
#   # shellcheck source=tests/lib-lp.sh
#   . "${0%/*}/../lib-lp.sh"
#
# Like upstream's check_result, a test logs the commands it runs into the
# kernel log ("% insmod ...") and then compares that log, klpc's lines and
# the test modules' lines, with the exact sequence it expects.

LP_FTRACE_ENABLED=/proc/sys/kernel/ftrace_enabled
LP_ENABLED_FUNCS=/sys/kernel/tracing/enabled_functions

# lp_text MOD: what the parity tests' patch modules make a patched file read.
lp_text() {
	echo "$(modname "$1"): this has been live patched"
}

# lp_log CMD...: the command about to run, as a "% CMD" kernel log line.
lp_log() {
	echo "<6>klpc-lp: % $*" >/dev/kmsg
}

# lp_load MOD [PARAM=VALUE...] / lp_unload MOD: load, rmmod, logged.
lp_load() {
	lp_log insmod "$@"
	load "$@"
}

lp_unload() {
	lp_log rmmod "$(modname "$1")"
	unload "$1"
}

# lp_load_error ERRNO MOD [PARAM=VALUE...]: logged expect_load_error.
lp_load_error() {
	_errno=$1
	shift
	lp_log insmod "$@"
	expect_load_error "$_errno" "$@"
}

# lp_enable PATCH / lp_disable PATCH: logged enable_patch/disable_patch.
lp_enable() {
	lp_log "echo 1 > $(patch_dir "$1")/enabled"
	enable_patch "$1"
}

lp_disable() {
	lp_log "echo 0 > $(patch_dir "$1")/enabled"
	disable_patch "$1"
}

# lp_write_error FILE VALUE ERRNO: logged expect_write_error.
lp_write_error() {
	lp_log "echo $2 > $1"
	expect_write_error "$1" "$2" "$3"
}

# lp_set_ftrace VALUE: write kernel.ftrace_enabled, which must work.
lp_set_ftrace() {
	lp_log "echo $1 > $LP_FTRACE_ENABLED"
	expect_write_ok "$LP_FTRACE_ENABLED" "$1"
	assert_file_eq "$LP_FTRACE_ENABLED" "$1"
}

# assert_live CMDLINE_TEXT MEMINFO_PATCH: what /proc/cmdline reads, and
# which patch replaces /proc/meminfo ("" for none: the original shows).
assert_live() {
	assert_eq "$1" "$(cat /proc/cmdline)" "/proc/cmdline"
	_mi=$(cat /proc/meminfo)
	if [ -n "$2" ]; then
		assert_eq "$(lp_text "$2")" "$_mi" "/proc/meminfo"
	else
		case $_mi in
		MemTotal:*) ;;
		*) die "/proc/meminfo is not the original: $(echo "$_mi" | head -n 1)" ;;
		esac
	fi
}

# lp_kernel_log: since the mark, without timestamps, the logged commands
# and the lines of klpc, of the klpc_test_lp_* modules and of
# klpc_test_cb_demo (parity/atomic-replace stacks it, as upstream stacks
# its demo).  Progress
# reports of slow transitions ("tasks still blocking") are left out: how
# many there are depends on the machine's speed; so are the once-a-boot
# taint notices, which go to whichever module loads first, and the line
# saying a patch carries no build record (upstream's sequences have no
# such record; elf/build-record tests that line).
lp_kernel_log() {
	dmesg_since_mark | sed -n -e 's/^\[[^]]*\] *//' \
		-e '/tasks still blocking/d' -e '/taints kernel/d' \
		-e '/was not checked against the running kernel/d' \
		-e '/tainting kernel/d' -e 's/^klpc-lp: //p' \
		-e '/^klpc: /p' -e '/^klpc_test_lp_[a-z_]*: /p' \
		-e '/^klpc_test_cb_demo: /p'
}

# assert_kernel_log EXPECTED: lp_kernel_log is exactly EXPECTED (lines).
assert_kernel_log() {
	_log=$(lp_kernel_log)
	[ "$_log" = "$1" ] && return 0
	echo "kernel log expected:"
	echo "$1" | sed 's/^/  /'
	echo "kernel log found:"
	echo "$_log" | sed 's/^/  /'
	die "the kernel log differs from the expected sequence"
}

# ftrace_users FUNC: how many ftrace_ops trace FUNC now (0 if none), from
# enabled_functions ("cmdline_proc_show (2) R I ...", or for a module
# function "klpc_target_dup [klpc_target] (1) R I ..."); the counts of
# equally named functions add up.
ftrace_users() {
	awk -v f="$1" '$1 == f {
			for (i = 2; i <= NF; i++)
				if ($i ~ /^\([0-9]+\)$/) {
					n += substr($i, 2, length($i) - 2)
					break
				}
		}
		END { print n + 0 }' "$LP_ENABLED_FUNCS"
}

# assert_mode PATH MODE: ls-style mode of PATH, e.g. -rw-r--r--.
assert_mode() {
	assert_exists "$1"
	assert_eq "$2" "$(stat -c %A "$1")" "mode of $1"
}

# kprobe_hits: calls the klpc-test-lp-kprobe module's kprobe has seen.
kprobe_hits() {
	cat /sys/module/klpc_test_lp_kprobe/parameters/hits
}

# assert_kprobe_counts: a read of /proc/cmdline is one more kprobe hit
# at least (whatever version of cmdline_proc_show runs).
assert_kprobe_counts() {
	_before=$(kprobe_hits)
	cat /proc/cmdline >/dev/null
	_after=$(kprobe_hits)
	[ "$_after" -gt "$_before" ] ||
		die "kprobe hits did not grow on a read of /proc/cmdline: $_before, then $_after"
}
