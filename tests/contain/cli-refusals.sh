#!/bin/sh
# was t-2d-contain-cli
# Containment and the klpc command: root of a user namespace (made by a
# user or by root) and a root without CAP_SYS_MODULE get a clear refusal
# from every command that changes something (exit 3, naming what is
# missing) and change nothing; 'klpc blocking' tells them it cannot see
# the tasks rather than "no transition"; 'klpc status' still works.
# klpc-timeout: 300
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"
# shellcheck source=tests/lib-contain.sh
. "${0%/*}/../lib-contain.sh"

# cli_ctx CTX RC ARGS...: 'klpc ARGS' in context CTX, like cli
cli_ctx() {
	_ctx=$1
	_want=$2
	shift 2
	_rc=0
	in_ctx "$_ctx" 'exec klpc "$@"' "$@" >"$OUT" 2>&1 </dev/null || _rc=$?
	[ "$_want" = any ] || [ "$_rc" = "$_want" ] || die "klpc $* ($_ctx): exit status $_rc, expected $_want; output:
$(cat "$OUT")"
}

# why CTX: what the refusal must say in context CTX
why() {
	case $1 in
	capless) echo "needs the CAP_SYS_MODULE capability, which this root lacks" ;;
	*) echo "needs root of the initial user namespace: this is root in a user namespace" ;;
	esac
}

sample=$(ko klpc-sample)
klpc_core_load
cli 0 load "$sample"
for ctx in $(ctx_list userns rootns capless); do
	for args in "disable klpc_sample" "enable klpc_sample" "unload klpc_sample" \
		"force klpc_sample --yes" "load $(ko klpc-sample-stack)" \
		"install $(ko klpc-sample-stack)" "uninstall klpc_sample" "boot"; do
		# shellcheck disable=SC2086 # the arguments are words
		cli_ctx "$ctx" 3 $args
		out_has "'klpc ${args%% *}' $(why "$ctx")"
	done
	assert_file_eq "$(patch_dir klpc_sample)/enabled" 1
	! is_loaded klpc_sample_stack || die "$ctx loaded klpc_sample_stack"
	assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline after $ctx's commands"
	cli_ctx "$ctx" 0 status
	out_has '^patches: +klpc_sample \(klpc\): enabled'
done
cli 0 disable klpc_sample
cli 0 unload klpc_sample

# during a transition
load_cm_patch_blocked
sleeper=$SLEEPER
cli 0 blocking
out_has "^$sleeper +cat +unpatched +klpc_cm_sleeper"
for ctx in $(ctx_list userns rootns); do
	cli_ctx "$ctx" 3 blocking
	out_has "'klpc blocking' needs root of the initial user namespace"
	cli_ctx "$ctx" 3 disable klpc_cm_patch
	out_has "'klpc disable' $(why "$ctx")"
	cli_ctx "$ctx" any status
	out_has '^state: +(transition|stalled)'
done
cli_ctx capless 3 blocking
out_has "'klpc blocking' needs the CAP_SYS_ADMIN capability, which this root lacks"
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
assert_file_eq "$(patch_dir klpc_cm_patch)/enabled" 1
write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
