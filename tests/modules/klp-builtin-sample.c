// SPDX-License-Identifier: GPL-2.0
/*
 * klp-builtin-sample.c - a patch for the kernel's own livepatch
 *
 * Uses the built-in livepatch (<linux/livepatch.h>, klp_enable_patch()) on
 * cmdline_proc_show(), the function klpc-sample patches, to check that the
 * two cannot both redirect one function and that the loser fails cleanly.
 */

#include <linux/module.h>
#include <linux/livepatch.h>
#include <linux/seq_file.h>

static int builtin_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "this has been live patched by the built-in livepatch\n");
	return 0;
}

static struct klp_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = builtin_cmdline_proc_show,
	}, { }
};

static struct klp_object objs[] = {
	{
		.funcs = funcs,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init builtin_sample_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit builtin_sample_exit(void)
{
}

module_init(builtin_sample_init);
module_exit(builtin_sample_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("built-in livepatch sample, as a peer of klpc");
