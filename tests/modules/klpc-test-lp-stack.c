// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-lp-stack.c - a second, non-replace patch for the "multiple
 * livepatches" scenario
 *
 * Replaces cmdline_proc_show(), which klpc-test-lp-livepatch replaces too,
 * so the two stack on one address, and meminfo_proc_show(), which only this
 * patch touches.  Both files then read
 *	klpc_test_lp_stack: this has been live patched
 */

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

static int klpc_lp_stack_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s: this has been live patched\n", THIS_MODULE->name);
	return 0;
}

/* the two functions have the same prototype, so one replacement serves */
static struct klpc_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = klpc_lp_stack_show,
	}, {
		.old_name = "meminfo_proc_show",
		.new_func = klpc_lp_stack_show,
	}, { }
};

static struct klpc_object objs[] = {
	{
		/* vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_lp_stack_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_lp_stack_exit(void)
{
}

module_init(klpc_lp_stack_init);
module_exit(klpc_lp_stack_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a second patch of /proc/cmdline, and of /proc/meminfo");
