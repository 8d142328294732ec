// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample-syms.c - new code that calls a static vmlinux function
 *
 * Replaces version_proc_show() with a version that also prints the
 * uptime, through uptime_proc_show(): a static function of fs/proc/uptime.c
 * that no module can link against.  It is declared and called as if it
 * were exported: the build (klpc-patch.mk, or make for the modules listed
 * in klpc-convert.list) runs klpc-convert, which turns the call into a
 * livepatch relocation that the kernel resolves when the patch loads.  A
 * name that is not unique in vmlinux, or that lives in a module, is
 * placed with KLPC_SYMBOL() (klpc-sample-dup.c, klpc-sample-elf-mod.c).
 * After
 *	insmod klpc-sample-syms.ko
 * /proc/version reads "klpc-sample-syms: uptime <uptime> <idle>".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

/* static in vmlinux (fs/proc/uptime.c), unique there */
int uptime_proc_show(struct seq_file *m, void *v);

static int klpc_sample_version_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "klpc-sample-syms: uptime ");
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

static int __init klpc_sample_syms_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_sample_syms_exit(void)
{
}

module_init(klpc_sample_syms_init);
module_exit(klpc_sample_syms_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: patched code calling a static vmlinux function");
KLPC_PATCH_DESC("/proc/version through a static vmlinux function (klpc-convert)");
