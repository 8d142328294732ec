/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-patch.h - the benchmark patch, one source for both implementations
 *
 *	insmod klpc-bench-klpc.ko funcs=N hold=0|1 [first=F]
 *	insmod klpc-bench-builtin.ko funcs=N hold=0|1 [first=F]
 *
 * replaces klpc_bench_fn_000() ... of klpc_bench_target, N (1 to 1000) of
 * them from the Fth (0 by default; the tests use it), all with one
 * function, and klpc_bench_hold() too when hold=1.  It is written against the upstream livepatch API; the
 * including file picks the implementation with its include line:
 * <linux/livepatch.h> for the built-in livepatch, <klpc-compat.h> for
 * klpc.  Both patches are thus the same code, as the benchmark requires.
 */

#include <linux/module.h>

#include "klpc-bench.h"

static uint funcs = KLPC_BENCH_NR_FUNCS;
module_param(funcs, uint, 0444);
MODULE_PARM_DESC(funcs, "how many of the target's functions to patch (1-1000)");

static uint first;
module_param(first, uint, 0444);
MODULE_PARM_DESC(first, "the first of the target's functions to patch (0-999)");

static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "patch klpc_bench_hold() too");

#define KLPC_BENCH_ELEM(n)	KLPC_BENCH_NAME(n)

static const char * const klpc_bench_names[10][10][10] = KLPC_BENCH_TABLE;

static noinline int klpc_bench_new(int x)
{
	return x + KLPC_BENCH_NEW_DELTA;
}

static noinline int klpc_bench_new_hold(int gen)
{
	return gen;
}

/* up to 1000 funcs, the hold func and the terminator */
static struct klp_func klpc_bench_funcs[KLPC_BENCH_NR_FUNCS + 2];

static struct klp_object klpc_bench_objs[] = {
	{
		.name = KLPC_BENCH_OBJ,
		.funcs = klpc_bench_funcs,
	}, { }
};

static struct klp_patch klpc_bench_patch = {
	.mod = THIS_MODULE,
	.objs = klpc_bench_objs,
};

static int __init klpc_bench_patch_init(void)
{
	unsigned int i, n;

	if (first >= KLPC_BENCH_NR_FUNCS || !funcs ||
	    funcs > KLPC_BENCH_NR_FUNCS - first)
		return -EINVAL;
	for (i = 0; i < funcs; i++) {
		n = first + i;
		klpc_bench_funcs[i].old_name =
			klpc_bench_names[n / 100][n / 10 % 10][n % 10];
		klpc_bench_funcs[i].new_func = klpc_bench_new;
	}
	if (hold) {
		klpc_bench_funcs[i].old_name = KLPC_BENCH_HOLD_NAME;
		klpc_bench_funcs[i].new_func = klpc_bench_new_hold;
	}
	return klp_enable_patch(&klpc_bench_patch);
}

static void __exit klpc_bench_patch_exit(void)
{
}

module_init(klpc_bench_patch_init);
module_exit(klpc_bench_patch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc benchmark: a patch of 1 to 1000 functions, for "
		   KLPC_BENCH_IMPL);
MODULE_INFO(livepatch, "Y");
