// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-lp-livepatch.c - the patch of the upstream livepatch selftests'
 * "basic function patching" scenario, for klpc
 *
 * Replaces cmdline_proc_show(): /proc/cmdline reads
 *	klpc_test_lp_livepatch: this has been live patched
 * The module name is part of the text so that a test that stacks several
 * patches can tell which one is live.
 */

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

static int klpc_lp_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s: this has been live patched\n", THIS_MODULE->name);
	return 0;
}

static struct klpc_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = klpc_lp_cmdline_proc_show,
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

static int __init klpc_lp_livepatch_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_lp_livepatch_exit(void)
{
}

module_init(klpc_lp_livepatch_init);
module_exit(klpc_lp_livepatch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: patch /proc/cmdline, naming the patch module");
