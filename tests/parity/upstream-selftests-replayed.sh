#!/bin/sh
# was t-4e-upstream-selftests
# Upstream's livepatch selftests of this kernel's series, replayed on klpc:
# upstream's own test modules, unchanged, built against klpc through
# klpc-compat.h, and upstream's own scripts, run as upstream runs them
# (tools/upstream-selftests.sh builds both into /klpc/upstream).  Each
# script runs in a private mount namespace with klpc's sysfs bound over
# /sys/kernel/livepatch, with klpc's additions to its functions.sh
# (tests/upstream/klpc-functions.sh says what they change and why); every
# case must print "ok": the commands and the modules' lines match
# upstream's expected output.  Where klpc deliberately differs (6.12's
# count of patch directories after an atomic replace), the check is
# reported as known, with its reason, and the case runs on.
# klpc-timeout: 900
# klpc-weight: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

UP=/klpc/upstream
[ -d "$UP" ] || skip "no upstream selftests here: make vm-test builds them for Debian's kernels only (tools/upstream-selftests.sh)"
[ -d /sys/kernel/livepatch ] || skip "no /sys/kernel/livepatch (CONFIG_LIVEPATCH) to bind klpc's sysfs over"
command -v bash >/dev/null || die "bash is missing in the guest"

WORK=$(mktemp -d)
export KLPC_UP_WORK="$WORK"
PASS=0
BAD=0
KNOWN=0

# setup: a copy of the scripts whose functions.sh is upstream's, then
# klpc's additions; 6.1's scripts modprobe, from a module tree of their own
setup() {
	cp -a "$UP/." "$WORK/"
	mv "$WORK/functions.sh" "$WORK/functions-upstream.sh"
	cat >"$WORK/functions.sh" <<-'EOS'
	. "$(dirname "$0")/functions-upstream.sh"
	. /klpc/tests/upstream/klpc-functions.sh
	EOS
	if [ "$(cat "$UP/series")" = 6.1 ]; then
		KLPC_UP_ROOT=$WORK/root
		_d=$KLPC_UP_ROOT/lib/modules/$(uname -r)/extra
		mkdir -p "$_d"
		cp "$UP"/test_modules/*.ko "$_d/"
		# the files depmod expects of a kernel's tree (empty: nothing built in)
		for _f in modules.order modules.builtin modules.builtin.modinfo; do
			: >"${_d%/extra}/$_f"
		done
		depmod -b "$KLPC_UP_ROOT" "$(uname -r)"
		export KLPC_UP_ROOT
	fi
}

# run_script NAME: upstream's NAME in its own mount namespace; its output
# is printed, its cases counted
run_script() {
	_out=$WORK/$1.out
	_st=0
	# shellcheck disable=SC2016 # expanded by the inner shell
	(cd "$WORK" && KDIR=$WORK unshare -m --propagation private sh -c \
		'mount --bind /sys/kernel/klpc /sys/kernel/livepatch && exec bash "./$1"' \
		sh "$1") >"$_out" 2>&1 || _st=$?
	sed 's/^/    /' "$_out"
	_ok=$(grep -c -e '^TEST: .* \.\.\. ok$' \
		-e '^TEST: .* \.\.\. \[klpc-known: .*\] ok$' "$_out" || true)
	PASS=$((PASS + _ok))
	KNOWN=$((KNOWN + $(grep -c '\[klpc-known: ' "$_out" || true)))
	if [ "$_st" -ne 0 ]; then
		BAD=$((BAD + 1))
		echo "upstream $1 exited with $_st"
	fi
}

cleanup() {
	for m in $(lsmod | awk '$1 ~ /^test_klp_/ { print $1 }'); do
		[ ! -f "/sys/kernel/klpc/$m/enabled" ] ||
			echo 0 >"/sys/kernel/klpc/$m/enabled" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

klpc_core_load
setup
for s in "$WORK"/test-*.sh; do
	run_script "${s##*/}"
done
info "upstream selftests of $(cat "$UP/series"): $PASS case(s) ok ($KNOWN known difference(s)), $BAD script(s) failed"
[ "$PASS" -gt 0 ] || die "no upstream case ran"
[ "$BAD" -eq 0 ] || die "upstream's selftests failed on klpc (above)"
