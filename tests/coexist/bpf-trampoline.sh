#!/bin/sh
# was t-4f-coexist-bpf
# A BPF fentry and fexit program on the function a klpc patch replaces
# (tests/tools/klpc-bpf: a real BPF trampoline, attached as bpftool
# attaches one, with no libbpf in the guest).
# - klpc first: the program attaches (ftrace lets the trampoline share
#   the function with klpc's IPMODIFY ops) and both work: the program
#   counts the call, the patched function runs.
# - the program first: klpc refuses (EBUSY) with one line naming patch,
#   function and the BPF trampoline, and nothing is left half-applied:
#   no patch directory, the original function runs, the program counts.
# - a patch disabled under the program cannot be enabled again (EBUSY,
#   the same line); once the program is gone it can.
# klpc refuses the second case because a direct call that ftrace does not
# share (a module's register_ftrace_direct(),
# coexist/ftrace-direct-call) would run the original
# function while 'enabled' read 1; it cannot yet tell a trampoline that
# shares from one that does not (docs/reliability.md).
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

BPF=$KLPC_DIR/tests/bin/klpc-bpf
# Debian's kernels have it; the debug kernel (tinyconfig, no BPF) does not
[ -r /sys/kernel/btf/vmlinux ] ||
	skip "kernel $(uname -r) has no BTF (CONFIG_DEBUG_INFO_BTF): no BPF trampoline to attach"
f=cmdline_proc_show
p=klpc_sample
d=$(patch_dir $p)
orig=$(cat /proc/cmdline)
patched="this has been live patched by klpc"
busy_line="klpc: patch '$p': object 'vmlinux': function '$f' has an ftrace direct call \(BPF trampoline\) attached \(-16\)"

# bpf_run KIND CMD...: klpc-bpf KIND on f around CMD; its output
bpf_run() {
	_k=$1
	shift
	"$BPF" "$_k" $f -- "$@" 2>&1 || die "klpc-bpf $_k $f -- $*: exit $?"
}

# assert_bpf_output OUT LINES CALLS: OUT is "attached", LINES, then
# "calls N", N at least CALLS (insmod reads /proc/cmdline too: kmod
# looks there for module parameters)
assert_bpf_output() {
	_n=$(echo "$1" | sed -n '$s/^calls \([0-9]*\)$/\1/p')
	assert_eq "$(printf 'attached\n%s' "$2")" "$(echo "$1" | sed '$d')" "klpc-bpf's output"
	if [ -z "$_n" ] || [ "$_n" -lt "$3" ]; then
		die "the program counted '${_n:-?}' calls of $f, expected at least $3: $1"
	fi
}

klpc_core_load
command -v insmod >/dev/null

info "the program first"
dmesg_mark
out=$(bpf_run fentry sh -c "insmod $KLPC_MODDIR/klpc-sample.ko 2>/dev/null && echo loaded || echo refused; cat /proc/cmdline")
assert_bpf_output "$out" "$(printf 'refused\n%s' "$orig")" 1
assert_dmesg_has "$busy_line"
assert_not_exists "$d"
! is_loaded $p || die "$p stayed loaded"
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after the refusal"

info "klpc first"
load klpc-sample
wait_transition $p
for kind in fentry fexit; do
	assert_bpf_output "$(bpf_run $kind cat /proc/cmdline)" "$patched" 1
done
assert_eq "$patched" "$(cat /proc/cmdline)" "/proc/cmdline after the programs"

info "disabled under the program, enabled again after it"
out=$(bpf_run fentry sh -c "echo 0 > $d/enabled && cat /proc/cmdline")
assert_bpf_output "$out" "$orig" 1
wait_transition $p
dmesg_mark
out=$(bpf_run fentry sh -c "echo 1 2>/dev/null > $d/enabled && echo enabled || echo refused")
assert_bpf_output "$out" refused 0
assert_dmesg_has "$busy_line"
assert_file_eq "$d/enabled" 0
assert_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline after the refused enable"
enable_patch $p
assert_eq "$patched" "$(cat /proc/cmdline)" "/proc/cmdline enabled again"
disable_patch $p
unload klpc-sample
