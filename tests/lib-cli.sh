# shellcheck shell=sh
# Helpers of the klpc command's tests (tests/cli/, contain/cli-refusals,
# contain/signatures-and-lockdown, contain/secure-boot, build/kpatch-diffs,
# build/stable-fix-6.1.176), after lib.sh. The command is the real cli/klpc,
# from the overlay (/klpc/cli, on the guest's PATH); its JSON is read by
# tests/tools/klpc-json, a strict parser.

command -v klpc >/dev/null 2>&1 || PATH=$KLPC_DIR/cli:$PATH
KLPC_CORE=${KLPC_CORE:-$KLPC_MODDIR/klpc.ko}
KLPC_JSON=$KLPC_DIR/tests/tools/klpc-json
OUT=$KLPC_TMP/klpc.out
export PATH KLPC_CORE

# cli RC ARGS...: run 'klpc ARGS'; its exit status must be RC ('any': any
# status). Its stdout is in $OUT.stdout, stdout and stderr together in $OUT.
cli() {
	_want=$1
	shift
	_rc=0
	read -r _t0 _ </proc/uptime
	klpc "$@" >"$OUT.stdout" 2>"$OUT.stderr" </dev/null || _rc=$?
	read -r _t1 _ </proc/uptime
	echo "$_t0 $_t1 $*" >>"$KLPC_TMP/cli.times"
	cat "$OUT.stdout" "$OUT.stderr" >"$OUT"
	[ "$_want" = any ] || [ "$_rc" = "$_want" ] ||
		die "klpc $*: exit status $_rc, expected $_want; output:
$(cat "$OUT")"
}

# out_has REGEX / out_lacks REGEX: about the last command's output.
out_has() {
	grep -Eq -- "$1" "$OUT" || die "the output of klpc lacks '$1':
$(cat "$OUT")"
}

out_lacks() {
	! grep -Eq -- "$1" "$OUT" || die "the output of klpc has '$1':
$(cat "$OUT")"
}

# re_quote STRING: STRING as an extended regex that matches only itself.
# Kernel releases hold regex characters: 6.12's '6.12.118+deb12-amd64'.
re_quote() {
	printf '%s\n' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'
}

# The running kernel's release, as a regex.
# shellcheck disable=SC2034 # for the tests that source this file
KVER_RE=$(re_quote "$(uname -r)")

# json PATH...: values from the last command's stdout, which must parse.
json() {
	"$KLPC_JSON" "$@" <"$OUT.stdout" || die "klpc's output is not JSON:
$(cat "$OUT.stdout")"
}

# assert_json PATH EXPECTED
assert_json() {
	_v=$(json "$1") || exit 1
	assert_eq "$2" "$_v" "JSON $1"
}

# klog_has REGEX: a 'klpc[PID]: user=...' line since the mark matches.
klog_has() {
	dmesg_since_mark | grep -E 'klpc\[[0-9]+\]: user=' | grep -Eq -- "$1" ||
		die "no klpc log line matches '$1'; they are:
$(dmesg_since_mark | grep -E 'klpc\[[0-9]+\]: ' || true)"
}

# as_nobody CMD...: CMD as user nobody.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# cli_nobody RC ARGS...: 'klpc ARGS' as nobody, like cli.
cli_nobody() {
	_want=$1
	shift
	_rc=0
	as_nobody env PATH="$PATH" klpc "$@" >"$OUT" 2>&1 </dev/null || _rc=$?
	[ "$_rc" = "$_want" ] || die "klpc $* (as nobody): exit status $_rc, expected $_want; output:
$(cat "$OUT")"
}

# ko MOD: the path of test module MOD.
ko() {
	echo "$KLPC_MODDIR/$1.ko"
}

# fake_vermagic MOD FILE: a copy of MOD whose vermagic names another
# kernel ("9." for the first "6."; same length, so the ELF stays valid).
fake_vermagic() {
	perl -0777 -pe 's/vermagic=6\./vermagic=9./' "$(ko "$1")" >"$2"
	case $(modinfo -F vermagic "$2") in 9.*) ;; *) die "could not fake the vermagic of $2" ;; esac
}

# cli_times: a figure: how many klpc commands ran, their total and slowest
# times.
cli_times() {
	awk '{ d = $2 - $1; t += d; n++; if (d > m) { m = d; $1 = $2 = ""; w = $0 } }
		END { printf "FIGURE klpc commands: %d, %.1f s in all, slowest %.1f s:%s\n", n, t, m, w }' \
		"$KLPC_TMP/cli.times"
}

# fill_kernel_log: write enough lines to fill the kernel's ring buffer
# (128 KiB in Debian's kernel), as on a machine that has run for long:
# from then on every new line pushes an old one out.  At level 7, kept in
# the log but not printed on the console.
fill_kernel_log() {
	_rl=$(cat /proc/sys/kernel/printk_devkmsg)
	echo on >/proc/sys/kernel/printk_devkmsg
	seq 3000 | awk '{
		printf "<7>klpc-test: filling the kernel log, line %04d of 3000, %s\n",
			$1, "so that every new line pushes an old one out" > "/dev/kmsg"
		fflush("/dev/kmsg")
	}'
	echo "$_rl" >/proc/sys/kernel/printk_devkmsg
}
