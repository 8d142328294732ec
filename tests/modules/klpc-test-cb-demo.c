// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-cb-demo.c - a patch with all four callbacks on every object
 *
 * Objects: vmlinux (cmdline_proc_show(): /proc/cmdline reads "patched by
 * klpc_test_cb_demo"), klpc_test_cb_mod (/proc/klpc_cb_mod reads the same)
 * and klpc_test_cb_busy (its work function).  Each callback prints a line
 * (see klpc-test-cb.h).  Parameters, writable at run time through
 * /sys/module/klpc_test_cb_demo/parameters/:
 *
 *	pre_patch_ret=-19	pre_patch returns this (0 or a negative errno)
 *	fail_obj=NAME		... only for this object ("vmlinux" or a module
 *				name); empty: for every object
 *	replace=1		(load time only) an atomic-replace patch
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <klpc.h>

#include "klpc-test-cb.h"

static int pre_patch_ret;
module_param(pre_patch_ret, int, 0644);
MODULE_PARM_DESC(pre_patch_ret, "what pre_patch returns: 0 or a negative errno");

static char fail_obj[MODULE_NAME_LEN];
module_param_string(fail_obj, fail_obj, sizeof(fail_obj), 0644);
MODULE_PARM_DESC(fail_obj, "only this object's pre_patch returns pre_patch_ret (empty: all)");

static bool replace;
module_param(replace, bool, 0444);
MODULE_PARM_DESC(replace, "load as an atomic-replace patch");

/* pre_patch_ret applies to @obj: fail_obj is empty or names @obj */
static bool klpc_cb_demo_fails(struct klpc_object *obj)
{
	/* sysfs_streq(): a value written with echo ends with a newline */
	return !fail_obj[0] ||
	       sysfs_streq(fail_obj, obj->name ? obj->name : "vmlinux");
}

static int klpc_cb_demo_pre_patch(struct klpc_object *obj)
{
	klpc_test_cb_report("pre_patch", obj);
	return klpc_cb_demo_fails(obj) ? READ_ONCE(pre_patch_ret) : 0;
}

static void klpc_cb_demo_post_patch(struct klpc_object *obj)
{
	klpc_test_cb_report("post_patch", obj);
}

static void klpc_cb_demo_pre_unpatch(struct klpc_object *obj)
{
	klpc_test_cb_report("pre_unpatch", obj);
}

static void klpc_cb_demo_post_unpatch(struct klpc_object *obj)
{
	klpc_test_cb_report("post_unpatch", obj);
}

static int klpc_cb_demo_cmdline_show(struct seq_file *m, void *v)
{
	seq_puts(m, "patched by " KBUILD_MODNAME "\n");
	return 0;
}

static const char *klpc_cb_demo_mod_message(void)
{
	return "patched by " KBUILD_MODNAME;
}

/* never runs in the tests: the busy module queues its work only once */
static void klpc_cb_demo_busy_work(struct work_struct *work)
{
	pr_info("patched work function\n");
}

static struct klpc_func vmlinux_funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = klpc_cb_demo_cmdline_show,
	}, { }
};

static struct klpc_func mod_funcs[] = {
	{
		.old_name = "klpc_cb_mod_message",
		.new_func = klpc_cb_demo_mod_message,
	}, { }
};

static struct klpc_func busy_funcs[] = {
	{
		.old_name = "klpc_cb_busy_work_func",
		.new_func = klpc_cb_demo_busy_work,
	}, { }
};

#define KLPC_CB_DEMO_CALLBACKS {				\
	.pre_patch = klpc_cb_demo_pre_patch,			\
	.post_patch = klpc_cb_demo_post_patch,			\
	.pre_unpatch = klpc_cb_demo_pre_unpatch,		\
	.post_unpatch = klpc_cb_demo_post_unpatch,		\
}

static struct klpc_object objs[] = {
	{
		.name = NULL,	/* vmlinux */
		.funcs = vmlinux_funcs,
		.callbacks = KLPC_CB_DEMO_CALLBACKS,
	}, {
		.name = "klpc_test_cb_mod",
		.funcs = mod_funcs,
		.callbacks = KLPC_CB_DEMO_CALLBACKS,
	}, {
		.name = "klpc_test_cb_busy",
		.funcs = busy_funcs,
		.callbacks = KLPC_CB_DEMO_CALLBACKS,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_cb_demo_init(void)
{
	patch.replace = replace;
	return klpc_enable_patch(&patch);
}

static void __exit klpc_cb_demo_exit(void)
{
}

module_init(klpc_cb_demo_init);
module_exit(klpc_cb_demo_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: callbacks on vmlinux and two module objects");
