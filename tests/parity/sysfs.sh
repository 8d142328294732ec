#!/bin/sh
# was t-42-lp-sysfs
# Upstream test-sysfs.sh "sysfs test": the files of a patch exist with the
# right modes and values: enabled rw, transition and replace ro, force wo,
# the vmlinux object's patched ro, one directory "name,sympos" per
# function.  Read-only files refuse writes, the write-only one reads.
# klpc differs: the disabled patch keeps its directory until rmmod.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-lp.sh
. "${0%/*}/../lib-lp.sh"

p=klpc_test_lp_livepatch
d=$(patch_dir $p)

klpc_core_load
load klpc-test-lp-livepatch
wait_transition $p

assert_mode "$d" drwxr-xr-x
assert_mode "$d/enabled" -rw-r--r--
assert_file_eq "$d/enabled" 1
assert_mode "$d/transition" -r--r--r--
assert_file_eq "$d/transition" 0
assert_mode "$d/replace" -r--r--r--
assert_file_eq "$d/replace" 0
assert_mode "$d/force" --w-------
assert_mode "$d/forced" -r--r--r--
assert_file_eq "$d/forced" 0
assert_mode "$d/vmlinux" drwxr-xr-x
assert_mode "$d/vmlinux/patched" -r--r--r--
assert_file_eq "$d/vmlinux/patched" 1
assert_mode "$d/vmlinux/cmdline_proc_show,1" drwxr-xr-x
entries=
for f in "$d/vmlinux"/*; do
	entries="$entries${entries:+ }${f##*/}"
done
assert_eq "cmdline_proc_show,1 patched" "$entries" "entries of $d/vmlinux"

# even root cannot read a write-only or write a read-only attribute
expect_fail cat "$d/force"
expect_write_error "$d/transition" 1 EACCES
expect_write_error "$d/replace" 1 EACCES
expect_write_error "$d/vmlinux/patched" 0 EACCES
assert_file_eq "$d/vmlinux/patched" 1
# force outside a transition
dmesg_mark
expect_write_error "$d/force" 1 EINVAL
assert_dmesg_has "klpc: patch '$p' is not in transition, nothing to force"

disable_patch $p
assert_file_eq "$d/enabled" 0
assert_file_eq "$d/transition" 0
assert_file_eq "$d/vmlinux/patched" 0
assert_mode "$d/enabled" -rw-r--r--
unload klpc-test-lp-livepatch
assert_not_exists "$d"
unload klpc
