// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample-extern.c - new code that calls a static vmlinux function by
 * name, converted by klpc-convert
 *
 * The annotated twin of klpc-sample-syms.c: version_proc_show() is replaced
 * with a version that also prints the uptime through uptime_proc_show(),
 * a static function of fs/proc/uptime.c, declared extern and called
 * directly.  klpc-convert turns the call's relocation into a
 * .klp.rela.vmlinux..text entry against .klp.sym.vmlinux.uptime_proc_show,0
 * that the kernel's module loader applies at load.  After
 *	insmod klpc-sample-extern.ko
 * /proc/version reads "klpc-sample-extern: uptime <uptime> <idle>".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

/*
 * static in vmlinux (fs/proc/uptime.c): klpc-convert makes this work; the
 * annotation is optional for a name unique in vmlinux
 */
extern int uptime_proc_show(struct seq_file *m, void *v);
KLPC_SYMBOL(uptime_proc_show, "vmlinux", 0);

static int klpc_sample_version_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "klpc-sample-extern: uptime ");
	return uptime_proc_show(m, v);
}

static struct klpc_func funcs[] = {
	{
		.old_name = "version_proc_show",
		.new_func = klpc_sample_version_proc_show,
	}, { }
};

static struct klpc_object objs[] = {
	{
		.funcs = funcs,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_sample_extern_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_sample_extern_exit(void)
{
}

module_init(klpc_sample_extern_init);
module_exit(klpc_sample_extern_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: patched code calling a static vmlinux function by name");
KLPC_PATCH_DESC("/proc/version through a static vmlinux function (klpc-convert)");
