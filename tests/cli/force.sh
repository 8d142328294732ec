#!/bin/sh
# was t-92-cli-force
# klpc force: refused without --yes (with the warning) and for a patch
# not in transition; with --yes it ends a transition a sleeper blocks,
# and klpc unload then refuses the forced patch. The forced module stays
# loaded for good, as after consistency/force: this runs after it, before
# contain/signatures-and-lockdown.
# klpc-timeout: 300
# klpc-group: tail
# klpc-order: 94 (the tail that leaves state for good, in this order)
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-cli.sh
. "${0%/*}/../lib-cli.sh"

is_loaded klpc_cm_target || load klpc-cm-target
if ! is_loaded klpc_cm_patch; then
	cli 0 load "$(ko klpc-cm-patch)"
fi
[ "$(cat "$(patch_dir klpc_cm_patch)/enabled")" = 0 ] || cli 0 disable klpc_cm_patch
cli 3 force klpc_cm_patch --yes
out_has "'klpc_cm_patch' is not in transition: there is nothing to force"

# no fake signal may wake the sleeper before the force
signal_secs=/sys/module/klpc/parameters/signal_secs
expect_write_ok "$signal_secs" 0
start_sleeper
cli 1 enable klpc_cm_patch --wait 1 --keep
dmesg_mark
cli 3 force klpc_cm_patch
out_has 'WARNING: forcing moves every task'
out_has 'can never be removed'
out_has 'not forced: add --yes to confirm'
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 1
klog_has 'action=force patch=klpc_cm_patch result=failed detail="not forced: add --yes to confirm"'
cli 0 force klpc_cm_patch --yes
out_has '^klpc: klpc_cm_patch: forced, enabled$'
assert_file_eq "$(patch_dir klpc_cm_patch)/transition" 0
assert_file_eq "$(patch_dir klpc_cm_patch)/forced" 1
klog_has 'action=force patch=klpc_cm_patch result=ok$'
cli 0 status --json
assert_json last_transition.end forced
assert_json patches.name=klpc_cm_patch.forced true
assert_json state settled
cli 0 list
out_has '^klpc_cm_patch +klpc +enabled +0 +1$'

release_sleeper
wait "$SLEEPER"
expect_write_ok "$signal_secs" 15
cli 3 unload klpc_cm_patch
out_has "'klpc_cm_patch' was forced: its module can never be removed"
cli 0 disable klpc_cm_patch
is_loaded klpc_cm_patch || die "the forced module went away"
