#!/bin/sh
# The packaging test, guest side (vm/pkg-test.sh). Run at the end of each
# boot of the packaging guest by klpc-pkgtest.service (vm/pkg-image.sh)
# from the stage disk, for the phase klpc_pkgtest.phase= names:
#   install   dpkg -i both packages (DKMS builds klpc.ko), klpc install
#             the sample patch, build a patch with klpc-patch.mk
#   boot      klpc.service loaded it at boot, before network-pre.target;
#             stopping the unit unloads nothing; then, with signatures
#             enforced at run time, an unsigned and a MOK-signed patch
#             are refused with klpc's explanation
#   disabled  klpc.enable=0: nothing loaded; then klpc install a patch
#             that fails to load (klpc-test-patch.ko without parameters)
#   enforce   module.sig_enforce=1: klpc.ko itself (signed by DKMS's MOK,
#             which this kernel does not trust) is refused, explained
#   partial   the failing patch does not stop the sample from loading;
#             the unit fails and names it
# Prints "KLPC-PKG: PASS|FAIL <phase>/<check>" lines, then
# "KLPC-PKG: END phase=<phase>", and powers the guest off.
set -eu

STAGE=$(cd "$(dirname "$0")" && pwd)
KVER=$(uname -r)
PATCHED='this has been live patched by klpc'
SAMPLE=/sys/kernel/klpc/klpc_sample
PHASE=

pass() {
	echo "KLPC-PKG: PASS $PHASE/$1"
}

fail() {
	echo "KLPC-PKG: FAIL $PHASE/$1${2:+: $2}"
}

# check NAME CMD...: CMD's success is the check's.
check() {
	_n=$1
	shift
	if "$@"; then pass "$_n"; else fail "$_n" "'$*' failed"; fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# run CMD...: show a command and its output on the console.
run() {
	echo "# $*"
	"$@"
}

cmdline_arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | head -n 1
}

loaded() {
	[ -d "/sys/module/$1" ]
}

not_loaded() {
	! loaded "$1"
}

unit_state() {
	systemctl show -p "$2" --value "$1"
}

# unit_busy: klpc.service has a job queued or is starting.
unit_busy() {
	systemctl list-jobs --no-legend 2>/dev/null | grep -q ' klpc\.service ' ||
		[ "$(unit_state klpc.service ActiveState)" = activating ]
}

# dump_state: what the guest is doing, for a unit that does not finish.
dump_state() {
	run systemctl list-jobs --no-pager || true
	run systemctl status --no-pager klpc.service || true
	run ps -eo pid,stat,wchan:30,args || true
	for _p in $(ps -eo pid=,stat=,comm= | awk '$2 ~ /D/ || $3 ~ /^(klpc|insmod|modprobe)$/ { print $1 }'); do
		echo "# /proc/$_p/stack ($(cat "/proc/$_p/comm" 2>/dev/null))"
		cat "/proc/$_p/stack" 2>/dev/null || true
	done
	run cat /proc/klpc/tasks 2>/dev/null || true
	run dmesg 2>/dev/null | tail -n 60 || true
}

# wait_unit: the boot's klpc.service job is done (started, failed or
# skipped), 900 s at most (a TCG guest on a loaded machine is slow).
wait_unit() {
	_i=0
	while unit_busy && [ $_i -lt 900 ]; do
		_i=$((_i + 1))
		sleep 1
	done
	if unit_busy; then
		fail unit-settled "klpc.service still starting after 900 s"
		dump_state
		return 1
	fi
	echo "klpc.service: $(unit_state klpc.service ActiveState) ($_i s after the test began)"
}

# wait_settled DIR: the patch's transition ends (60 s at most).
wait_settled() {
	_i=0
	while [ "$(cat "$1/transition" 2>/dev/null)" = 1 ] && [ $_i -lt 600 ]; do
		_i=$((_i + 1))
		sleep 0.1
	done
}

# refused NAME KO: 'klpc load KO' fails, and klpc (not a bare EPERM)
# explains that the kernel wants a trusted signature.
refused() {
	_out=$(klpc load "$2" 2>&1) && _rc=0 || _rc=$?
	echo "$_out" | sed 's/^/    | /'
	if [ "$_rc" -eq 0 ]; then
		fail "$1" "klpc load $2 succeeded"
	elif ! echo "$_out" | grep -qi 'sign'; then
		fail "$1" "no explanation about signatures (exit $_rc)"
	else
		pass "$1"
	fi
}

# kernel_cc: the compiler that built the kernel, as its headers say
# (CONFIG_CC_VERSION_TEXT without the program name): "(Debian 14.2.0-19)
# 14.2.0"
kernel_cc() {
	sed -n 's/^CONFIG_CC_VERSION_TEXT="[^(]*\(.*\)"$/\1/p' \
		"/lib/modules/$KVER/build/.config"
}

# ko_cc KO: the compiler of KO (.ko or .ko.xz), from its .comment section
# ("GCC: (Debian 14.2.0-19) 14.2.0"), as kernel_cc prints it.
ko_cc() {
	[ -f "$1" ] || return 0
	case $1 in
	*.xz) xz -dc "$1" >/tmp/klpc-cc.ko ;;
	*) cp "$1" /tmp/klpc-cc.ko ;;
	esac
	readelf -p .comment /tmp/klpc-cc.ko | sed -n 's/^ *\[ *[0-9a-f]*\] *GCC: //p' |
		sort -u | head -n 1
	rm -f /tmp/klpc-cc.ko
}

phase_install() {
	t0=$(date +%s)
	check dpkg-install run env DEBIAN_FRONTEND=noninteractive \
		dpkg -i "$STAGE/klpc-dkms.deb" "$STAGE/klpc-tools.deb"
	echo "dpkg -i took $(($(date +%s) - t0)) s (the DKMS build included)"
	run dkms status
	check dkms-installed sh -c "dkms status klpc | grep -q ': installed'"
	ko=$(modinfo -n klpc 2>/dev/null || true)
	# compressed as the kernel's own modules are (Debian 13's: .ko.xz)
	sfx=$(find "/lib/modules/$KVER/kernel" -name '*.ko*' -type f | head -n 1 |
		sed 's/.*\.ko//')
	check_eq dkms-module "/lib/modules/$KVER/updates/dkms/klpc.ko$sfx" "$ko"
	magic=$(modinfo -F vermagic klpc 2>/dev/null || true)
	check_eq dkms-vermagic "$KVER" "${magic%% *}"
	check_eq dkms-compiler "$(kernel_cc)" "$(ko_cc "$ko")"
	check dkms-signed test -n "$(modinfo -F signer klpc 2>/dev/null)"
	check dkms-mok test -s /var/lib/dkms/mok.key -a -s /var/lib/dkms/mok.pub
	check dkms-symvers grep -q klpc_enable_patch \
		"/var/lib/dkms/klpc/kernel-$KVER-$(uname -m)/Module.symvers"
	check unit-enabled test "$(systemctl is-enabled klpc.service)" = enabled
	# installing starts nothing: klpc loads at the next boot
	check not-started not_loaded klpc
	check klpc-install run klpc install "$STAGE/klpc-sample.ko"
	check installed sh -c "ls /var/lib/klpc/$KVER | grep -q '^klpc[-_]sample\.ko\$'"
	# a patch built on this machine as a user builds one: the example's
	# two-line Makefile, klpc-patch.mk, the kernel's headers, DKMS's
	# klpc.ko for the symbol versions, /boot/vmlinuz for the build ID
	rm -rf /tmp/klpc-fix
	cp -r "$STAGE/loadavg-fix" /tmp/klpc-fix
	check patch-build run make -C /tmp/klpc-fix
	magic=$(modinfo -F vermagic /tmp/klpc-fix/klpc-loadavg-fix.ko 2>/dev/null || true)
	check_eq patch-vermagic "$KVER" "${magic%% *}"
}

phase_boot() {
	run systemctl status --no-pager klpc.service || true
	check unit-active test "$(unit_state klpc.service ActiveState)" = active
	check core-loaded loaded klpc
	check patch-loaded loaded klpc_sample
	wait_settled "$SAMPLE"
	check_eq patch-enabled 1 "$(cat "$SAMPLE/enabled" 2>/dev/null)"
	check_eq cmdline-patched "$PATCHED" "$(cat /proc/cmdline)"
	# done before network-pre.target was reached
	k=$(unit_state klpc.service ActiveEnterTimestampMonotonic)
	n=$(unit_state network-pre.target ActiveEnterTimestampMonotonic)
	echo "klpc.service active at $k us, network-pre.target at $n us"
	check before-network-pre test "$k" -gt 0 -a "$n" -ge "$k"
	# stopping the unit (as shutdown does) unloads nothing
	check unit-stop run systemctl stop klpc.service
	check stop-keeps-patch loaded klpc_sample
	check_eq stop-keeps-enabled 1 "$(cat "$SAMPLE/enabled" 2>/dev/null)"
	# starting it again skips what is loaded
	check restart run systemctl start klpc.service
	enforce_at_run_time
}

# Signatures enforced from now on (module.sig_enforce can be turned on, not
# off, at run time): with klpc.ko loaded, an unsigned patch is refused,
# and so is one signed with DKMS's MOK, which this kernel does not trust
# (a key is trusted if built in, or enrolled through shim and Secure Boot,
# which this guest has not).
enforce_at_run_time() {
	echo 1 >/sys/module/module/parameters/sig_enforce
	check_eq sig-enforced Y "$(cat /sys/module/module/parameters/sig_enforce)"
	cp "$STAGE/klpc-sample-syms.ko" /tmp/unsigned.ko
	refused unsigned-refused /tmp/unsigned.ko
	cp "$STAGE/klpc-sample-syms.ko" /tmp/signed.ko
	check klpc-sign run klpc sign /tmp/signed.ko
	check signed test -n "$(modinfo -F signer /tmp/signed.ko)"
	refused mok-signed-refused /tmp/signed.ko
	check refused-not-loaded not_loaded klpc_sample_syms
}

phase_disabled() {
	check_eq unit-condition no "$(unit_state klpc.service ConditionResult)"
	check core-not-loaded not_loaded klpc
	check patch-not-loaded not_loaded klpc_sample
	check cmdline-not-patched test "$(cat /proc/cmdline)" != "$PATCHED"
	# the command honours it too
	check klpc-boot-noop run klpc boot
	check still-not-loaded not_loaded klpc
	# for the last boot: a patch that fails to load (klpc-test-patch.ko
	# without parameters patches a function vmlinux does not have),
	# installed after the sample
	check install-failing run klpc install "$STAGE/klpc-test-patch.ko"
}

phase_enforce() {
	run journalctl -b --no-pager -u klpc.service || true
	check unit-failed test "$(unit_state klpc.service ActiveState)" = failed
	check core-refused not_loaded klpc
	check unit-explains sh -c 'journalctl -b -u klpc.service | grep -qi sign'
	refused patch-refused "$STAGE/klpc-sample.ko"
}

phase_partial() {
	run journalctl -b --no-pager -u klpc.service || true
	check unit-failed test "$(unit_state klpc.service ActiveState)" = failed
	check unit-names-it sh -c 'journalctl -b -u klpc.service | grep -q klpc.test.patch'
	check patch-loaded loaded klpc_sample
	check failing-not-loaded not_loaded klpc_test_patch
	wait_settled "$SAMPLE"
	check_eq cmdline-patched "$PATCHED" "$(cat /proc/cmdline)"
}

main() {
	PHASE=$(cmdline_arg klpc_pkgtest.phase)
	echo "KLPC-PKG: START phase=$PHASE kernel=$KVER"
	case $PHASE in
	install | boot | disabled | enforce | partial)
		# a command that fails unexpectedly ends the phase, not the boot
		if wait_unit; then
			("phase_$PHASE") || fail script "the phase stopped: exit status $?"
		fi
		;;
	*) fail phase "unknown phase '$PHASE'" ;;
	esac
	echo "KLPC-PKG: END phase=$PHASE"
	sync
	systemctl --no-block --check-inhibitors=no poweroff
}

main "$@"
