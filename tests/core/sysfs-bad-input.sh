#!/bin/sh
# was t-20-sysfs-bad-input
# Bad writes to 'enabled' fail with EINVAL, say so in dmesg and change
# nothing; as upstream, 'enabled' takes what kstrtobool() takes (1/0,
# y/n, on/off, true/false); read-only files refuse writes; only root may
# write.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

klpc_core_load
load klpc-sample
wait_transition klpc_sample
d=$(patch_dir klpc_sample)
long=$(head -c 5000 /dev/zero | tr '\0' 1)

# not a boolean, or the state the patch is in already
for value in 2 -1 abc "" " 1" x o ox 1 y on true Yes 10; do
	dmesg_mark
	expect_write_error "$d/enabled" "$value" EINVAL
	assert_dmesg_has "klpc: patch 'klpc_sample'"
	assert_file_eq "$d/enabled" 1
	assert_file_eq "$d/transition" 0
	assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "after writing '$(echo "$value" | cut -c1-10)'"
done

# sysfs itself refuses a write longer than a page: it never reaches klpc
expect_write_error "$d/enabled" "$long"
assert_file_eq "$d/enabled" 1
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "after a 5000-byte write"

# the words kstrtobool() takes, in both directions
for pair in off:on n:y N:Y false:true 0:1; do
	expect_write_ok "$d/enabled" "${pair%:*}"
	wait_transition klpc_sample
	assert_file_eq "$d/enabled" 0
	expect_write_ok "$d/enabled" "${pair#*:}"
	wait_transition klpc_sample
	assert_file_eq "$d/enabled" 1
done
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "after the boolean words"

disable_patch klpc_sample
expect_write_error "$d/enabled" 0 EINVAL
expect_write_error "$d/enabled" off EINVAL
assert_file_eq "$d/enabled" 0
for value in 0 n off; do
	expect_write_error "$d/force" "$value" EINVAL
done

for f in transition replace vmlinux/patched; do
	expect_fail write_sysfs 1 "$d/$f"
done
assert_file_eq "$d/vmlinux/patched" 0

if command -v setpriv >/dev/null; then
	expect_fail setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c "echo 1 > $d/enabled"
	assert_file_eq "$d/enabled" 0
fi

unload klpc-sample
unload klpc
