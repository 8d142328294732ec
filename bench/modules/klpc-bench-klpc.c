// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-bench-klpc.c - the benchmark patch for klpc
 * (see bench-patch.h)
 */
#include <klpc-compat.h>

#define KLPC_BENCH_IMPL "klpc"
#include "bench-patch.h"
