#!/bin/bash
# make vm-pkg-test: the packages tested as a user would use them. Builds
# them (tools/deb.sh), then boots the packaging guest (vm/pkg-image.sh:
# systemd as PID 1, Debian's kernel installed, its headers, dkms) five
# times from one qcow2 overlay of its cached disk, so each boot sees what
# the ones before left on the disk; tests/pkg/guest.sh checks each boot:
#   install   dpkg -i klpc-dkms klpc-tools (DKMS builds klpc.ko), klpc install
#   boot      klpc.service loaded the patch at boot; sig_enforce at run time
#   disabled  klpc.enable=0: nothing loaded
#   enforce   module.sig_enforce=1: refused and explained
#   partial   a patch that fails does not stop the others
# The stage disk (/dev/vdb, label KLPCSTAGE) carries guest.sh, the .debs,
# the sample modules built by make and examples/loadavg-fix's sources. Console logs: build/vm-pkg/<phase>.log
# (<phase>.log.raw while it runs).
# The last line printed is "N passed, N failed".
# Env: KLPC_CACHE, KLPC_KDIR, KLPC_ACCEL (kvm|tcg|auto), KLPC_MEM,
#      KLPC_TIMEOUT (per boot; default 3600 s for install, 1800 s for the
#      others: a shared machine's load slows a TCG guest a lot).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"

DIR=$ROOT/build/vm-pkg
PHASES="install boot disabled enforce partial"
QEMU_PIDFILE=$DIR/qemu.pid
mapfile -t KERNEL_BAD < <(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$ROOT/vm/kernel-bad.txt")

# accel: KVM only if asked for and usable (vm/run.sh probes it; the
# packaging test does not need it: TCG).
accel() {
	case ${KLPC_ACCEL:-tcg} in
	kvm) echo "-accel kvm -cpu host" ;;
	*) echo "-accel tcg,thread=single -cpu max" ;;
	esac
}

# module KO_NAME: a module built by make, checked against the guest kernel.
module() {
	local ko magic
	ko=$(find "$ROOT/sample-patches" "$ROOT/tests/modules" -name "$1" | head -n 1)
	[ -n "$ko" ] || die "$1 not built (run make)"
	magic=$(modinfo -F vermagic "$ko")
	[ "${magic%% *}" = "$KVER" ] || die "$ko is built for ${magic%% *}, not $KVER"
	echo "$ko"
}

# make_stage: the stage disk, an ext4 image made with mkfs.ext4 -d.
make_stage() {
	local s=$DIR/stage debs
	rm -rf "$s"
	mkdir -p "$s"
	mapfile -t debs < <("$ROOT/tools/deb.sh")
	cp "${debs[0]}" "$s/klpc-dkms.deb"
	cp "${debs[1]}" "$s/klpc-tools.deb"
	for m in klpc-sample.ko klpc-sample-syms.ko klpc-test-patch.ko; do
		cp "$(module "$m")" "$s/"
	done
	cp "$ROOT/tests/pkg/guest.sh" "$s/"
	# the example patch's sources, built in the guest with klpc-patch.mk
	mkdir "$s/loadavg-fix"
	cp "$ROOT/examples/loadavg-fix/Makefile" "$ROOT"/examples/loadavg-fix/*.c "$s/loadavg-fix/"
	rm -f "$DIR/stage.img"
	mkfs.ext4 -q -F -L KLPCSTAGE -d "$s" "$DIR/stage.img" 64M
}

extra_args() {
	case $1 in
	disabled) echo klpc.enable=0 ;;
	enforce) echo module.sig_enforce=1 ;;
	esac
}

# boot PHASE: one boot of the guest from the overlay; prints QEMU's status.
boot() {
	local phase=$1 t rc log=$DIR/$1.log
	t=${KLPC_TIMEOUT:-1800}
	[ "$phase" != install ] || t=${KLPC_TIMEOUT:-3600}
	msg "boot '$phase' (timeout ${t}s), console log $log"
	SECONDS=0
	# shellcheck disable=SC2046 # accel holds several options
	timeout -k 10 "$t" qemu-system-x86_64 $(accel) -m "${KLPC_MEM:-2048}" \
		-smp 2 -nographic -no-reboot -nic none -pidfile "$QEMU_PIDFILE" \
		-kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" \
		-drive "file=$DIR/disk.qcow2,format=qcow2,if=virtio" \
		-drive "file=$DIR/stage.img,format=raw,if=virtio" \
		-append "root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 systemd.show_status=auto klpc_pkgtest.phase=$phase $(extra_args "$phase")" \
		</dev/null >"$log.raw" 2>&1 && rc=0 || rc=$?
	stop_qemu
	tr -d '\r' <"$log.raw" >"$log"
	rm -f "$log.raw"
	msg "boot '$phase': QEMU ran for $SECONDS s (status $rc)"
	echo "$rc"
}

# judge PHASE QEMU_STATUS: print the phase's checks; count FAIL into BAD.
judge() {
	local phase=$1 log=$DIR/$1.log re
	grep -E '^KLPC-PKG: (PASS|FAIL) ' "$log" | sed 's/^KLPC-PKG: /  /' || true
	PASS=$((PASS + $(grep -c '^KLPC-PKG: PASS ' "$log" || true)))
	BAD=$((BAD + $(grep -c '^KLPC-PKG: FAIL ' "$log" || true)))
	if [ "$2" != 0 ]; then
		msg "FAIL: $phase: QEMU status $2 (timeout: 124); last lines:"
		tail -n 30 "$log" | sed 's/^/    /' >&2
		BAD=$((BAD + 1))
	elif ! grep -q "^KLPC-PKG: END phase=$phase" "$log"; then
		msg "FAIL: $phase: no end marker; last lines:"
		tail -n 30 "$log" | sed 's/^/    /' >&2
		BAD=$((BAD + 1))
	fi
	for re in "${KERNEL_BAD[@]}"; do
		grep -q -E -- "$re" "$log" || continue
		msg "FAIL: $phase: '$re' in the console log:"
		grep -n -E -m 3 -A 10 -- "$re" "$log" | sed 's/^/    /' >&2
		BAD=$((BAD + 1))
	done
}

main() {
	local rc start
	start=$(date +%s)
	KVER=$(klpc_kver)
	IMG=$("$ROOT/vm/pkg-image.sh")
	mkdir -p "$DIR"
	rm -f "$DIR"/*.log "$DIR"/*.log.raw
	make_stage
	rm -f "$DIR/disk.qcow2"
	qemu-img create -q -f qcow2 -F raw -b "$IMG/root.img" "$DIR/disk.qcow2"
	trap stop_qemu EXIT
	trap 'exit 130' INT TERM HUP
	PASS=0
	BAD=0
	for phase in $PHASES; do
		rc=$(boot "$phase")
		judge "$phase" "$rc"
		# without the packages installed, the other boots test nothing
		[ "$phase" != install ] || [ "$BAD" -eq 0 ] || break
	done
	msg "packaging test took $(($(date +%s) - start)) s"
	echo "$PASS passed, $BAD failed"
	[ "$BAD" -eq 0 ]
}

main "$@"
