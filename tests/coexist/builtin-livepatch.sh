#!/bin/sh
# was t-4c-coexist-builtin
# klpc beside the kernel's built-in livepatch. On different functions
# both work, in either order, and while a klpc transition is held by a
# sleeper (the two consistency models at once). On the same function
# while klpc's transition runs, the built-in one comes second and is
# refused (EBUSY, its own log line naming the function), with nothing
# half-applied: no sysfs directory, klpc's text still shown, and klpc's
# transition goes on and completes. (The same function in either order,
# settled, with klpc's line naming the built-in patch:
# coexist/builtin-same-function.)
# klpc-timeout: 240
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-coexist.sh
. "${0%/*}/../lib-coexist.sh"

version=$(cat /proc/version)
cmdline=$(cat /proc/cmdline)
upstream='^upstream-sample: uptime [0-9]+\.[0-9]+ [0-9]+\.[0-9]+$'

# assert_both KLPC BUILTIN: whether /proc/cmdline shows klpc-sample's
# text and /proc/version klp-upstream-sample's (1 or 0 each)
assert_both() {
	if [ "$1" = 1 ]; then
		assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline (klpc)"
	else
		assert_eq "$cmdline" "$(cat /proc/cmdline)" "/proc/cmdline (klpc off)"
	fi
	if [ "$2" = 1 ]; then
		grep -Eq "$upstream" /proc/version ||
			die "/proc/version (built-in): $(cat /proc/version)"
	else
		assert_eq "$version" "$(cat /proc/version)" "/proc/version (built-in off)"
	fi
}

klpc_core_load

# different functions: the built-in first
builtin_load klp-upstream-sample
load klpc-sample
wait_transition klpc_sample
assert_both 1 1
disable_patch klpc_sample
assert_both 0 1
builtin_remove klp-upstream-sample
assert_both 0 0

# different functions: klpc first
enable_patch klpc_sample
builtin_load klp-upstream-sample
assert_both 1 1
builtin_remove klp-upstream-sample
assert_both 1 0

# during a klpc transition (klpc_sample stays enabled below it)
load_cm_patch_blocked
sleeper=$SLEEPER
builtin_load klp-upstream-sample
assert_both 1 1
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
dmesg_mark
expect_load_error EBUSY klp-builtin-sample
assert_not_exists "$KLPC_LP_SYSFS/klp_builtin_sample"
n=$(dmesg_since_mark | grep -c "livepatch: .*'cmdline_proc_show'" || true)
[ "$n" -ge 1 ] || die "no livepatch line names cmdline_proc_show: $(dmesg_since_mark)"
assert_both 1 1
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
tasks_blocking | grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" ||
	die "the sleeper no longer blocks: $(tasks_blocking)"
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
assert_eq "slept v2" "$(cat /proc/klpc_cm_sleep)" "klpc_cm_patch completed"
assert_eq 0 "$(cm_mismatches)" "mismatches"
assert_both 1 1
builtin_remove klp-upstream-sample
disable_patch klpc_cm_patch
disable_patch klpc_sample
assert_both 0 0
unload klpc-cm-patch
unload klpc-cm-target
unload klpc-sample
unload klpc
