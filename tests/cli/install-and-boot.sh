#!/bin/sh
# was t-88-c-cli-install-boot
# klpc install/uninstall into KLPC_LIBDIR/<kver>/ (vermagic checked, the
# order kept), and klpc boot as klpc.service runs it: klpc.ko, then every
# installed patch in installation order, skipping loaded ones; a failing
# patch does not stop the others and makes it exit 3; klpc.enable=0 on
# the kernel command line loads nothing.
# klpc-timeout: 300
# klpc-weight: 200
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

KLPC_LIBDIR=$KLPC_TMP/lib
export KLPC_LIBDIR
kver=$(uname -r)
dir=$KLPC_LIBDIR/$kver
dir_re=$(re_quote "$dir")

dmesg_mark
cli 0 install "$(ko klpc-sample)"
out_has "klpc_sample: installed for $KVER_RE \($dir_re/klpc_sample\.ko\)"
cmp -s "$(ko klpc-sample)" "$dir/klpc_sample.ko" || die "the installed file differs"
klog_has "action=install patch=klpc_sample result=ok detail=\"kver=$KVER_RE file=$dir_re/klpc_sample\.ko\""
cli 0 install "$(ko klpc-sample-stack)"
cli 0 install "$(ko klpc-sample)"
assert_eq "klpc_sample klpc_sample_stack" "$(tr '\n' ' ' <"$dir/order" | sed 's/ $//')" "order"
cli 0 info klpc_sample_stack
out_has "^installed: +$KVER_RE"

# another kernel: the vermagic must name it
cli 3 install "$(ko klpc-sample)" -k 6.1.0-99-amd64
out_has "is built for kernel $KVER_RE .*not for 6\.1\.0-99-amd64"
assert_not_exists "$KLPC_LIBDIR/6.1.0-99-amd64/klpc_sample.ko"
fake_vermagic klpc-sample "$KLPC_TMP/other.ko"
cli 3 install "$KLPC_TMP/other.ko"
out_has "not for $KVER_RE"
cli 0 install "$KLPC_TMP/other.ko" -k "9${kver#6}"
assert_exists "$KLPC_LIBDIR/9${kver#6}/klpc_sample.ko"
cli 3 install "$(ko klpc-target)"
out_has 'not a klpc patch module'
cli 3 install "$(ko klpc-sample)" -k ../x
out_has "'../x' is not a kernel release"

# klpc.enable=0: nothing
echo "root=/dev/sda klpc.enable=0 quiet" >"$KLPC_TMP/cmdline"
KLPC_CMDLINE=$KLPC_TMP/cmdline
export KLPC_CMDLINE
cli 0 boot
out_has 'klpc.enable=0 on the kernel command line: nothing loaded'
! is_loaded klpc || die "klpc.ko loaded with klpc.enable=0"
echo "root=/dev/sda klpc.enable=1" >"$KLPC_TMP/cmdline"

# boot: klpc.ko and both, in order (the stacked one ends on top)
dmesg_mark
cli 0 boot
out_has '^klpc: boot: 2 loaded, 0 already loaded, 0 failed'
assert_eq "$KLPC_STACK_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline after boot"
klog_has 'action=boot patch=- result=ok detail="2 loaded'
cli 0 boot
out_has '^klpc: boot: 0 loaded, 2 already loaded, 0 failed'

# one broken patch between two: the others load, boot exits 3
cli 0 unload klpc_sample_stack
cli 0 unload klpc_sample
head -c 4096 "$(ko klpc-sample-syms)" >"$dir/klpc_broken.ko"
printf '%s\n' klpc_sample klpc_broken klpc_ghost klpc_sample_stack >"$dir/order"
dmesg_mark
cli 3 boot
out_has '^klpc: boot: 2 loaded, 0 already loaded, 2 failed'
out_has 'klpc_ghost: .*klpc_ghost.ko is missing'
is_loaded klpc_sample_stack || die "a failing patch stopped the ones after it"
klog_has 'action=boot patch=- result=failed detail="2 loaded, 0 already loaded, 2 failed'
klog_has 'action=load patch=klpc_ghost result=failed'

# uninstall
cli 0 uninstall klpc_sample
out_has 'klpc_sample is still loaded'
assert_not_exists "$dir/klpc_sample.ko"
grep -qx klpc_sample "$dir/order" && die "klpc_sample is still in the order file"
cli 3 uninstall klpc_sample
out_has "no patch 'klpc_sample' installed for $KVER_RE"
cli 0 uninstall klpc-sample -k "9${kver#6}"
assert_not_exists "$KLPC_LIBDIR/9${kver#6}/klpc_sample.ko"
cli 0 unload klpc_sample_stack
cli 0 unload klpc_sample
