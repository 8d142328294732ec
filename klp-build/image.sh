# shellcheck shell=sh
# klpc build: the target kernel's image, for what only the built kernel
# knows: vmlinux's build ID (the module's record) and its symbols, in
# kallsyms' order (the sympos of names vmlinux has several of, and the
# room each replaced function takes there).
#
# The image is /boot/vmlinuz-KVER when the target is installed here, else
# Debian's linux-image-KVER of the headers' version, downloaded (as root)
# into $KLPC_CACHE/image/KVER/ as prepare.sh fetches the source: a build
# host needs nothing but the headers.  The symbols are read from that
# same image by klpc-kallsyms (image/), with no guest booted, once, and
# kept next to the fetched one (with the build ID of the image they were
# read from).  An image that cannot be had fails the build: a patch
# whose functions could not be numbered or checked is not made.
#
# Sourced by klp-build/klpc-build and klp-build/klpc-image; uses TGT_KVER
# and TGT_PKGVER (the headers' version), sets TGT_IMAGE, TGT_IMAGE_ID and
# KALLSYMS.

KLPC_KALLSYMS_TOOL=${KLPC_KALLSYMS_TOOL:-$KLPC_BUILD_DIR/image/klpc-kallsyms}
# this tree's, else the installed one (klpc-tools: /usr/bin)
KLPC_BUILD_ID=${KLPC_BUILD_ID:-$KLPC_BUILD_DIR/../klp-convert/klpc-build-id}
[ -x "$KLPC_BUILD_ID" ] || KLPC_BUILD_ID=klpc-build-id

# image_dir: where the target's fetched image and its symbols are kept
image_dir() {
	echo "$KLPC_CACHE/image/$TGT_KVER"
}

# fetch_image DIR: DIR/vmlinuz, linux-image-TGT_KVER of the headers'
# version (DIR/version says which), downloaded now
fetch_image() {
	progress "downloading linux-image-$TGT_KVER $TGT_PKGVER into $1"
	_got=$(deb_file "linux-image-$TGT_KVER" "*/boot/vmlinuz-$TGT_KVER" "$1") || exit 1
	mv "$_got" "$1/vmlinuz"
	echo "$TGT_PKGVER" >"$1/version"
}

# image_cached DIR: DIR holds the image of the headers' version
image_cached() {
	[ -s "$1/vmlinuz" ] && [ "$(cat "$1/version" 2>/dev/null)" = "$TGT_PKGVER" ]
}

# target_image: TGT_IMAGE, the target's vmlinuz: /boot's, else the one
# fetched into the cache (now, as root, if it is not there or is of
# another version), and TGT_IMAGE_ID, its build ID
target_image() {
	TGT_IMAGE=/boot/vmlinuz-$TGT_KVER
	if [ ! -f "$TGT_IMAGE" ]; then
		_dir=$(image_dir)
		TGT_IMAGE=$_dir/vmlinuz
		if image_cached "$_dir"; then
			verbose "image: $TGT_IMAGE (cached)"
		else
			[ "$(id -u)" = 0 ] ||
				fail "no /boot/vmlinuz-$TGT_KVER, and no linux-image-$TGT_KVER $TGT_PKGVER in $_dir: run klpc build as root once (it fetches it there), or apt-get install linux-image-$TGT_KVER=$TGT_PKGVER"
			mkdir -p "$_dir"
			# one download at a time; the others wait and take its image
			exec 7>"$_dir.lock"
			flock 7
			if ! image_cached "$_dir"; then
				rm -f "$_dir/vmlinuz" "$_dir/version"
				fetch_image "$_dir"
			fi
			flock -u 7
		fi
	fi
	TGT_IMAGE_ID=$(image_id) ||
		fail "cannot read the build ID of $TGT_IMAGE"
}

# image_id: TGT_IMAGE's build ID, read once (it takes decompressing the
# image: a second) and kept in the image directory with the image's path,
# size and time, which must all match for it to be taken again
image_id() {
	_key="$TGT_IMAGE $(stat -L -c '%s %Y' "$TGT_IMAGE")"
	_file=$(image_dir)/build-id
	if [ "$(sed -n 1p "$_file" 2>/dev/null)" = "$_key" ]; then
		sed -n 2p "$_file"
		return 0
	fi
	_id=$("$KLPC_BUILD_ID" "$TGT_IMAGE") || return 1
	# not root and nothing cached (a /boot image): not kept
	if mkdir -p "$(dirname "$_file")" 2>/dev/null &&
		printf '%s\n%s\n' "$_key" "$_id" >"$_file.$$" 2>/dev/null; then
		mv -f "$_file.$$" "$_file"
	fi
	echo "$_id"
}

# image_kallsyms: KALLSYMS, TGT_IMAGE's symbols as the kernel's
# /proc/kallsyms lists them (link-time addresses), read from it once and
# kept in the cache with the image's build ID (after target_image)
image_kallsyms() {
	_dir=$(image_dir)
	KALLSYMS=$_dir/kallsyms
	if [ -s "$KALLSYMS" ] && [ "$(cat "$KALLSYMS.id" 2>/dev/null)" = "$TGT_IMAGE_ID" ]; then
		verbose "symbols of $TGT_KVER: $KALLSYMS (cached)"
		return 0
	fi
	mkdir -p "$_dir" 2>/dev/null || true
	# not root and nothing cached (a /boot image): read into the work
	# directory, for this build only
	[ -w "$_dir" ] || KALLSYMS=$WORK/kallsyms
	progress "reading the symbols of $TGT_KVER from $TGT_IMAGE"
	"$KLPC_KALLSYMS_TOOL" "$TGT_IMAGE" >"$KALLSYMS.$$" ||
		fail "cannot read the symbols of $TGT_KVER from $TGT_IMAGE"
	mv "$KALLSYMS.$$" "$KALLSYMS"
	echo "$TGT_IMAGE_ID" >"$KALLSYMS.id"
}
