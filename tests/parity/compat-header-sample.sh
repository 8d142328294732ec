#!/bin/sh
# was t-82-compat-sample
# An upstream-style patch module (klp_ API, callbacks, a state, a
# shadow variable, MODULE_INFO(livepatch)) built against klpc-compat.h.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

# callback_log EXPECTED...: the sample's callback lines since the mark
# (the kernel may add a line of its own about the taint, once per boot).
callback_log() {
	_want=$(printf '%s\n' "$@")
	_got=$(module_log klpc_compat_sample | grep '_callback: ')
	assert_eq "$_want" "$_got" "callback lines"
}

klpc_core_load
dmesg_mark
load klpc-compat-sample
wait_transition klpc_compat_sample
assert_eq "klpc-compat-sample: read 1 times" "$(cat /proc/loadavg)" "first read"
assert_eq "klpc-compat-sample: read 2 times" "$(cat /proc/loadavg)" "second read"
callback_log "pre_patch_callback: counter ready" \
	"post_patch_callback: /proc/loadavg is patched"
# the kernel treats it as the live patch it declares itself to be
case $(cat /sys/module/klpc_compat_sample/taint) in
*K*) ;;
*) die "klpc_compat_sample does not taint the kernel as a live patch" ;;
esac

dmesg_mark
disable_patch klpc_compat_sample
callback_log "post_unpatch_callback: counter freed"
line=$(cat /proc/loadavg)
echo "$line" | grep -Eq '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+/[0-9]+ [0-9]+$' ||
	die "/proc/loadavg not restored: '$line'"
enable_patch klpc_compat_sample
assert_eq "klpc-compat-sample: read 1 times" "$(cat /proc/loadavg)" "after re-enable"
disable_patch klpc_compat_sample
unload klpc-compat-sample
