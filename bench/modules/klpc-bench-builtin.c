// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-bench-builtin.c - the benchmark patch for the built-in livepatch
 * (see bench-patch.h)
 */
#include <linux/livepatch.h>

#define KLPC_BENCH_IMPL "the built-in livepatch"
#include "bench-patch.h"
