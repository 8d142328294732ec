// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-cb-demo2.c - a second callback patch
 *
 * Replaces cmdline_proc_show() (/proc/cmdline reads "patched by
 * klpc_test_cb_demo2"), and with with_mod=1 klpc_test_cb_mod's function
 * too (/proc/klpc_cb_mod reads the same); under klpc-test-cb-demo, on top
 * of it or, with replace=1, instead of it.  Its callbacks print the lines
 * of klpc-test-cb.h and never fail.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <klpc.h>

#include "klpc-test-cb.h"

static bool replace;
module_param(replace, bool, 0444);
MODULE_PARM_DESC(replace, "load as an atomic-replace patch");

static bool with_mod;
module_param(with_mod, bool, 0444);
MODULE_PARM_DESC(with_mod, "patch klpc_test_cb_mod too");

static int klpc_cb_demo2_pre_patch(struct klpc_object *obj)
{
	klpc_test_cb_report("pre_patch", obj);
	return 0;
}

static void klpc_cb_demo2_post_patch(struct klpc_object *obj)
{
	klpc_test_cb_report("post_patch", obj);
}

static void klpc_cb_demo2_pre_unpatch(struct klpc_object *obj)
{
	klpc_test_cb_report("pre_unpatch", obj);
}

static void klpc_cb_demo2_post_unpatch(struct klpc_object *obj)
{
	klpc_test_cb_report("post_unpatch", obj);
}

static int klpc_cb_demo2_cmdline_show(struct seq_file *m, void *v)
{
	seq_puts(m, "patched by " KBUILD_MODNAME "\n");
	return 0;
}

static const char *klpc_cb_demo2_mod_message(void)
{
	return "patched by " KBUILD_MODNAME;
}

static struct klpc_func vmlinux_funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = klpc_cb_demo2_cmdline_show,
	}, { }
};

static struct klpc_func mod_funcs[] = {
	{
		.old_name = "klpc_cb_mod_message",
		.new_func = klpc_cb_demo2_mod_message,
	}, { }
};

#define KLPC_CB_DEMO2_CALLBACKS {				\
	.pre_patch = klpc_cb_demo2_pre_patch,			\
	.post_patch = klpc_cb_demo2_post_patch,			\
	.pre_unpatch = klpc_cb_demo2_pre_unpatch,		\
	.post_unpatch = klpc_cb_demo2_post_unpatch,		\
}

static struct klpc_object objs[] = {
	{
		.name = NULL,	/* vmlinux */
		.funcs = vmlinux_funcs,
		.callbacks = KLPC_CB_DEMO2_CALLBACKS,
	}, {
		/* cleared, hence the end of the table, without with_mod */
		.name = "klpc_test_cb_mod",
		.funcs = mod_funcs,
		.callbacks = KLPC_CB_DEMO2_CALLBACKS,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_cb_demo2_init(void)
{
	patch.replace = replace;
	if (!with_mod)
		memset(&objs[1], 0, sizeof(objs[1]));
	return klpc_enable_patch(&patch);
}

static void __exit klpc_cb_demo2_exit(void)
{
}

module_init(klpc_cb_demo2_init);
module_exit(klpc_cb_demo2_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a second callback patch, optionally atomic-replace");
