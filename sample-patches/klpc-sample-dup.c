// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample-dup.c - patch one of two same-named static vmlinux
 * functions, and call one of two others by name
 *
 * Debian 6.1's vmlinux has two static full_scans_show() (mm/ksm.c, then
 * mm/khugepaged.c, in address order: the order kallsyms counts them in)
 * and two static pages_to_scan_show() (the same two files).  This patch
 * replaces the second full_scans_show (old_sympos 2: khugepaged's) with a
 * version that reports KSM's pages_to_scan instead, read through the first
 * pages_to_scan_show (KSM's), which it calls by name: KLPC_SYMBOL() gives
 * its position, and klpc-convert turns the call into a livepatch
 * relocation against .klp.sym.vmlinux.pages_to_scan_show,1.  After
 *	insmod klpc-sample-dup.ko
 * /sys/kernel/mm/transparent_hugepage/khugepaged/full_scans reads
 * "klpc-sample-dup: ksm pages_to_scan <n>", n as in
 * /sys/kernel/mm/ksm/pages_to_scan; /sys/kernel/mm/ksm/full_scans is as
 * it was.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <klpc.h>

/* static, twice in vmlinux: the first is mm/ksm.c's */
ssize_t pages_to_scan_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf);
KLPC_SYMBOL(pages_to_scan_show, "vmlinux", 1);

static ssize_t klpc_sample_full_scans_show(struct kobject *kobj,
					   struct kobj_attribute *attr,
					   char *buf)
{
	unsigned int n;
	ssize_t len;

	/* KSM's show ignores kobj and attr; it writes "<n>\n" to buf */
	len = pages_to_scan_show(kobj, attr, buf);
	if (len <= 0)
		return len;
	buf[len - 1] = '\0';
	if (kstrtouint(buf, 10, &n))
		return -EIO;
	return sysfs_emit(buf, "klpc-sample-dup: ksm pages_to_scan %u\n", n);
}

static struct klpc_func funcs[] = {
	{
		.old_name = "full_scans_show",
		.new_func = klpc_sample_full_scans_show,
		.old_sympos = 2,	/* mm/khugepaged.c's */
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

static int __init klpc_sample_dup_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_sample_dup_exit(void)
{
}

module_init(klpc_sample_dup_init);
module_exit(klpc_sample_dup_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: one of two same-named static functions, calling another by position");
KLPC_PATCH_DESC("khugepaged's full_scans shows KSM's pages_to_scan (sympos, KLPC_SYMBOL)");
