// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-bench-percall.c - the cost of one call of a patched function
 *
 * Reading /proc/klpc_bench_percall calls klpc_bench_fn_000() of
 * klpc_bench_target 'calls' times (default 10^6) in a kernel loop and
 * prints "ns T calls N value V": T the loop's time in nanoseconds and V
 * what klpc_bench_fn_000(0) returns, which tells whether the call was
 * redirected.  The benchmark runs it unpatched and patched; the
 * difference divided by N is the cost of the redirection.
 */

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#include "klpc-bench.h"

static uint calls = 1000000;
module_param(calls, uint, 0644);
MODULE_PARM_DESC(calls, "calls per read of /proc/klpc_bench_percall");

/* a resched point this often, so a long loop does not hog its CPU */
#define KLPC_BENCH_RESCHED_MASK	0xffff

static int klpc_bench_percall_show(struct seq_file *m, void *v)
{
	unsigned int i, n = READ_ONCE(calls);
	u64 start, ns;
	int sum = 0;

	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		sum += klpc_bench_fn_000(i);
		if (!(i & KLPC_BENCH_RESCHED_MASK))
			cond_resched();
	}
	ns = ktime_get_ns() - start;
	/* sum keeps the calls; it is printed so it cannot be dropped */
	seq_printf(m, "ns %llu calls %u value %d sum %d\n", ns, n,
		   klpc_bench_fn_000(0), sum);
	return 0;
}

static int __init klpc_bench_percall_init(void)
{
	if (!proc_create_single("klpc_bench_percall", 0444, NULL,
				klpc_bench_percall_show))
		return -ENOMEM;
	return 0;
}

static void __exit klpc_bench_percall_exit(void)
{
	remove_proc_entry("klpc_bench_percall", NULL);
}

module_init(klpc_bench_percall_init);
module_exit(klpc_bench_percall_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc benchmark: per-call cost of a patched function");
