#!/bin/sh
# was t-2e-cli-no-userns
# On a kernel without user namespaces (CONFIG_USER_NS=n: the debug
# kernel) there is no /proc/self/ns/user and root is the initial
# namespace's: the klpc command must not refuse it as a container's root.
# Found by the torture driver on the debug kernel (seed 5): 'klpc
# blocking' exited 3, "needs root of the initial user namespace: this is
# root in a user namespace".
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

[ ! -e /proc/self/ns/user ] ||
	skip "this kernel has user namespaces (contain/cli-refusals covers them); the debug kernel has none"
klpc_core_load
for cmd in blocking status; do
	out=$(klpc "$cmd" 2>&1) || die "klpc $cmd failed: $out"
done
load klpc-sample
out=$(klpc disable klpc_sample 2>&1) || die "klpc disable failed: $out"
assert_file_eq "$(patch_dir klpc_sample)/enabled" 0
unload klpc-sample
