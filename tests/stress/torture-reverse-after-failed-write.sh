#!/bin/sh
# was t-3e-torture-fault-reverse
# The torture driver's reverse after a first write that an injected fault
# failed (seed 201, step 460, 6.1 debug kernel): op_reverse wrote 0 to an
# enabled patch's 'enabled', the write failed in the kernel's allocation
# before klpc saw it, and the driver still wrote 1 "at once"; klpc
# refused that, rightly (EINVAL: already enabled), and the driver took
# the refusal for klpc's failure. Here op_reverse, the driver's own,
# runs on a real enabled patch with its first write failed as that fault
# failed it (ENOMEM, nothing written): it must stop there, and the patch
# stays enabled with no transition.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/torture/ops.sh
. "${0%/*}/../torture/ops.sh"

# The driver's context cut down to one slot, s (klpc-sample), which the
# model sees loaded and enabled, nothing in transition; what the driver
# would tell its model is recorded in STARTED.
STEP=460
M_TRANS=
FAULTS_HIT=0
STARTED=
note() { echo "torture: step $STEP: $*"; }
slot_name() { echo klpc_sample; }
pick_loaded() { R=s; }
m_is() { [ "$2" = enabled ]; }
m_get() { echo 0; }
predict_enable() { echo ok; }
m_start() { STARTED="$STARTED $1<-$2"; }
m_complete() { :; }
# the fault: the write fails with ENOMEM before it reaches klpc
fault_plan() {
	FAULTED=1
	FAULT_N=1
}
faulty_write() {
	echo "printf: write error: $(errno_text ENOMEM)" >&2
	return 1
}

klpc_core_load
load klpc-sample
wait_transition klpc_sample
d=$(patch_dir klpc_sample)

op_reverse
assert_eq "" "$STARTED" "transitions the driver's model started"
assert_eq 1 "$FAULTS_HIT" "operations failed by the injected fault"
assert_file_eq "$d/enabled" 1
assert_file_eq "$d/transition" 0
assert_eq "$KLPC_SAMPLE_TEXT" "$(cat /proc/cmdline)" "/proc/cmdline still patched"

disable_patch klpc_sample
unload klpc-sample
