// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample-stack.c - a second patch stacked on klpc-sample
 *
 * Replaces cmdline_proc_show() again.  Loaded on top of klpc-sample, its
 * version wins: the top of the func stack is the live one.  Disabling it
 * reveals klpc-sample's version; klpc-sample cannot be disabled first.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

static int klpc_stack_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "this has been live patched twice by klpc\n");
	return 0;
}

static struct klpc_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = klpc_stack_cmdline_proc_show,
	}, { }
};

static struct klpc_object objs[] = {
	{
		/* name being NULL means vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_stack_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_stack_exit(void)
{
}

module_init(klpc_stack_init);
module_exit(klpc_stack_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: a second patch of /proc/cmdline");
KLPC_PATCH_DESC("/proc/cmdline reads a second fixed line, stacked over klpc-sample");
KLPC_PATCH_CVE("CVE-0000-0003");
