#!/bin/sh
# Build (once) the packaging guest's disk image and print its directory:
# a Debian root of the target's suite (T_SUITE: bookworm, trixie) with
# systemd as PID 1, the guest kernel installed
# (its modules, its initramfs), its headers, gcc, make and dkms, as the
# ext4 file system root.img (made with mkfs.ext4 -d: no loop device), plus
# the vmlinuz and initrd.img QEMU boots it with. vm/pkg-test.sh boots it
# through a qcow2 overlay, so the cached image never changes.
# It is rebuilt only when missing or when vm/pkg-packages, this script or
# the kernel release change.
# Env: KLPC_CACHE (default /var/cache/klpc), KLPC_MIRROR, KLPC_KDIR,
# KLPC_TARGET.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib.sh
. "$HERE/../tools/lib.sh"
# shellcheck source=tools/targets.sh
. "$HERE/../tools/targets.sh"

target_load
SUITE=$T_SUITE
MIRROR=${KLPC_MIRROR:-http://deb.debian.org/debian}
SIZE=6G

# package_list KVER: every package of vm/pkg-packages, comma-separated.
package_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e "s/KVER/$1/g" \
		"$HERE/pkg-packages" | grep -v '^$' | paste -sd, -
}

# The kernel's own packages may be in <suite>-security only (the release
# the headers have): debootstrap installs the others from the suite,
# apt-get in the root installs these, from all three suites.
base_list() {
	package_list "$1" | tr , '\n' | grep -v -F "$1" | paste -sd, -
}

kernel_list() {
	package_list "$1" | tr , '\n' | grep -F "$1" | tr '\n' ' '
}

sources() {
	echo "deb $MIRROR $SUITE main"
	echo "deb $MIRROR $SUITE-updates main"
	echo "deb ${KLPC_SECURITY_MIRROR:-http://deb.debian.org/debian-security} $SUITE-security main"
}

# install_kernel ROOT KVER: apt-get in the root (its /proc mounted meanwhile).
install_kernel() {
	sources >"$1/etc/apt/sources.list"
	cp /etc/resolv.conf "$1/etc/resolv.conf"
	mount -t proc proc "$1/proc"
	rc=0
	# shellcheck disable=SC2046 # a list of package names
	chroot "$1" sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "$@"' sh \
		$(kernel_list "$2") >&2 || rc=$?
	umount "$1/proc"
	rm -f "$1/etc/resolv.conf"
	[ "$rc" -eq 0 ] || die "apt-get install in the guest root failed"
}

image_hash() {
	{
		package_list "$1"
		echo "$SUITE $MIRROR $SIZE"
		cat "$HERE/pkg-image.sh"
	} | sha256sum | cut -d' ' -f1
}

is_current() {
	[ -s "$DIR/root.img" ] && [ -s "$DIR/vmlinuz" ] && [ -s "$DIR/initrd.img" ] &&
		[ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$1" ]
}

# runner_unit: the one test hook baked into the image. It runs the script
# of the stage disk (label KLPCSTAGE, made afresh by each run) when the
# kernel command line asks for it, as soon as the basic system is up: not
# ordered after klpc.service, so that a unit that hangs is reported (the
# script waits for it, for a bounded time).
runner_unit() {
	cat <<'EOF'
[Unit]
Description=klpc packaging test (stage disk script)
ConditionKernelCommandLine=klpc_pkgtest.phase
After=basic.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /run/klpc-stage && mount LABEL=KLPCSTAGE /run/klpc-stage && exec sh /run/klpc-stage/guest.sh'
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=infinity
# however the script ends, the boot ends (the host sees no end marker)
ExecStopPost=/bin/systemctl --no-block --check-inhibitors=no poweroff

[Install]
WantedBy=multi-user.target
EOF
}

# configure ROOT: what a machine installed by hand has and debootstrap
# does not, and the test hook.
configure() {
	echo '/dev/vda / ext4 rw,relatime 0 1' >"$1/etc/fstab"
	echo klpc-pkg-guest >"$1/etc/hostname"
	chroot "$1" passwd -d root >/dev/null
	mkdir -p "$1/etc/systemd/system/multi-user.target.wants"
	runner_unit >"$1/etc/systemd/system/klpc-pkgtest.service"
	ln -sf /etc/systemd/system/klpc-pkgtest.service \
		"$1/etc/systemd/system/multi-user.target.wants/klpc-pkgtest.service"
	# timers that would start work in the middle of a test, and the login
	# prompt on ttyS0: agetty hangs the console up, killing the test
	# script's output to it
	for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
		fstrim.timer man-db.timer serial-getty@ttyS0.service; do
		ln -sf /dev/null "$1/etc/systemd/system/$u"
	done
	rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*
}

build() {
	kver=$1
	is_root || die "building the packaging guest needs root (debootstrap)"
	root=$DIR/root
	rm -rf "$root" "$DIR/root.img"
	mkdir -p "$root"
	msg "debootstrap $SUITE minbase (+$(base_list "$kver")) into $root"
	start=$(date +%s)
	debootstrap --variant=minbase --include="$(base_list "$kver")" \
		"$SUITE" "$root" "$MIRROR" >&2
	install_kernel "$root" "$kver"
	msg "debootstrap and apt-get took $(($(date +%s) - start)) s"
	configure "$root"
	for f in vmlinuz initrd.img; do
		[ -s "$root/boot/$f-$kver" ] || die "no /boot/$f-$kver in the root"
	done
	cp "$root/boot/vmlinuz-$kver" "$DIR/vmlinuz"
	cp "$root/boot/initrd.img-$kver" "$DIR/initrd.img"
	msg "mkfs.ext4 -d: $(du -sh "$root" | cut -f1) into a $SIZE image"
	mkfs.ext4 -q -F -L klpcroot -d "$root" "$DIR/root.img.tmp" "$SIZE" >&2
	mv "$DIR/root.img.tmp" "$DIR/root.img"
	rm -rf "$root"
	echo "$2" >"$DIR/stamp"
	msg "packaging guest image: $(du -h "$DIR/root.img" | cut -f1) used in $DIR"
}

main() {
	kver=$(klpc_kver)
	DIR=$KLPC_CACHE/pkg-image/$kver
	hash=$(image_hash "$kver")
	if ! is_current "$hash"; then
		take_lock pkg-image
		mkdir -p "$DIR"
		is_current "$hash" || build "$kver" "$hash"
	fi
	printf '%s\n' "$DIR"
}

main "$@"
