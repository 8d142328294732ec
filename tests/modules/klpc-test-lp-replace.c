// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-lp-replace.c - the port of upstream's test_klp_atomic_replace
 *
 *	insmod klpc-test-lp-replace.ko replace=1
 *
 * replaces meminfo_proc_show() only: /proc/meminfo reads
 * "klpc_test_lp_replace: this has been live patched".  With replace=1 it
 * is an atomic-replace patch, and every patch below it reverts in its
 * transition, /proc/cmdline included.
 */

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

static int replace;
module_param(replace, int, 0644);
MODULE_PARM_DESC(replace, "load as an atomic-replace patch (default 0)");

static int klpc_lp_replace_meminfo_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s: this has been live patched\n", THIS_MODULE->name);
	return 0;
}

static struct klpc_func funcs[] = {
	{
		.old_name = "meminfo_proc_show",
		.new_func = klpc_lp_replace_meminfo_show,
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

static int __init klpc_lp_replace_init(void)
{
	/* set here, as upstream's module does, so one binary serves both */
	patch.replace = replace;
	return klpc_enable_patch(&patch);
}

static void __exit klpc_lp_replace_exit(void)
{
}

module_init(klpc_lp_replace_init);
module_exit(klpc_lp_replace_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a patch of /proc/meminfo, atomic replace at will");
