#!/bin/sh
# was t-3d-torture
# A short run of the torture driver (tests/torture/torture.sh; 'make
# vm-torture' runs it long): random operations on the pool of patch
# modules beside forks, exec from threads, io_uring, stopped and frozen
# tasks, CPU hot-plug and memory pressure, every invariant checked after
# each step.  A random seed each run (printed: replay it with 'make
# vm-torture SEED=N'), KLPC_TORTURE_SEED to pick one.  No forced
# transition (-N): a forced patch's module could never be removed, and
# the tests after this one need them gone.
# klpc-timeout: 600
# klpc-weight: 400
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"

# the driver's output is the test's: shown when it fails
sh "$KLPC_DIR/tests/torture/torture.sh" -N -d "${KLPC_TORTURE_DURATION:-150}" ||
	die "the torture run failed (its seed and last operations above)"
