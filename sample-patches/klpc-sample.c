// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample.c - the "hello world" of klpc
 *
 * Replaces cmdline_proc_show(), so that after
 *	insmod klpc-sample.ko
 * /proc/cmdline reads "this has been live patched by klpc".  Disable with
 *	echo 0 > /sys/kernel/klpc/klpc_sample/enabled
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc.h>

static int klpc_sample_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "this has been live patched by klpc\n");
	return 0;
}

static struct klpc_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = klpc_sample_cmdline_proc_show,
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

static int __init klpc_sample_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_sample_exit(void)
{
}

module_init(klpc_sample_init);
module_exit(klpc_sample_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: live patch /proc/cmdline");
/* what 'klpc info' shows; the CVE ids are placeholders of the sample */
KLPC_PATCH_DESC("/proc/cmdline reads a fixed line instead of the kernel's command line");
KLPC_PATCH_CVE("CVE-0000-0001");
KLPC_PATCH_CVE("CVE-0000-0002");
KLPC_PATCH_REF("https://example.org/klpc/sample");
