// SPDX-License-Identifier: GPL-2.0
/*
 * klp-upstream-sample.c - an upstream livepatch module, for both cores
 *
 * Plain upstream source: <linux/livepatch.h>, klp_patch/klp_object/
 * klp_func, klp_enable_patch(), and a static vmlinux function,
 * uptime_proc_show() (fs/proc/uptime.c), called by its plain name.  The
 * build makes two modules of it (sample-patches/Kbuild): this file as it
 * is, klp-upstream-sample.ko, for the kernel's built-in livepatch; and
 * klpc-upstream-sample.c, this file with <klpc-compat.h> in place of
 * <linux/livepatch.h>, for klpc.  klpc-convert converts both the same
 * way: the call becomes a .klp.rela.vmlinux..text relocation against
 * .klp.sym.vmlinux.uptime_proc_show,0, which the kernel's module loader
 * applies at load.  Either one makes /proc/version read
 * "upstream-sample: uptime <uptime> <idle>".
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/livepatch.h>

/* static in vmlinux, unique there */
int uptime_proc_show(struct seq_file *m, void *v);

static int livepatch_version_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "upstream-sample: uptime ");
	return uptime_proc_show(m, v);
}

static struct klp_func funcs[] = {
	{
		.old_name = "version_proc_show",
		.new_func = livepatch_version_proc_show,
	}, { }
};

static struct klp_object objs[] = {
	{
		/* name being NULL means vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int livepatch_init(void)
{
	return klp_enable_patch(&patch);
}

static void livepatch_exit(void)
{
}

module_init(livepatch_init);
module_exit(livepatch_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
