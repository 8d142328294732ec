#!/bin/sh
# was t-25-builtin-conflict
# klpc and the kernel's built-in livepatch cannot both redirect one
# function: whichever comes second fails with EBUSY and the first one
# keeps working; klpc's one line names the built-in patch that holds the
# function. (Different functions, and during a transition:
# coexist/builtin-livepatch.)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

builtin_text='this has been live patched by the built-in livepatch'
bdir=/sys/kernel/livepatch/klp_builtin_sample

builtin_wait() {
	i=0
	while [ "$(cat "$bdir/transition")" != 0 ]; do
		i=$((i + 1))
		[ $i -le 300 ] || die "built-in livepatch transition stuck"
		sleep 0.1
	done
}

builtin_remove() {
	write_sysfs 0 "$bdir/enabled" || die "cannot disable the built-in patch"
	i=0
	while [ -e "$bdir" ]; do
		i=$((i + 1))
		[ $i -le 300 ] || die "built-in patch not released"
		sleep 0.1
	done
	unload klp-builtin-sample
}

orig=$(cat /proc/cmdline)
klpc_core_load

# built-in first, klpc second
load klp-builtin-sample
builtin_wait
assert_eq "$builtin_text" "$(cat /proc/cmdline)" "built-in patch"
dmesg_mark
expect_load_error EBUSY klpc-sample
# one line, naming the function and who holds it
n=$(dmesg_since_mark | grep -c "cmdline_proc_show" || true)
assert_eq 1 "$n" "kernel log lines naming cmdline_proc_show"
assert_dmesg_has "klpc: patch 'klpc_sample': object 'vmlinux': function 'cmdline_proc_show' is already redirected by the kernel's livepatch \(patch 'klp_builtin_sample'\) \(-16\)$"
assert_not_exists "$(patch_dir klpc_sample)"
assert_eq "$builtin_text" "$(cat /proc/cmdline)" "built-in patch intact"
builtin_remove
assert_eq "$orig" "$(cat /proc/cmdline)" "built-in patch removed"

# klpc first, built-in second
load klpc-sample
wait_transition klpc_sample
dmesg_mark
expect_load_fail klp-builtin-sample
assert_dmesg_has "livepatch: .*'cmdline_proc_show'"
assert_not_exists "$bdir"
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "klpc patch intact"
disable_patch klpc_sample
assert_eq "$orig" "$(cat /proc/cmdline)" "klpc patch removed"
unload klpc-sample
unload klpc
