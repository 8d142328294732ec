// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-cb-mod.c - the target module of klpc-test-cb-demo
 *
 * /proc/klpc_cb_mod reads what klpc_cb_mod_message() returns: "original",
 * or what the patch made of it.  init and exit print a line each, so that
 * the tests see where the callbacks run relative to them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

/* noipa: the function is live patched, so every call must really reach it */
static __attribute__((__noipa__)) const char *klpc_cb_mod_message(void)
{
	return "original";
}

static int klpc_cb_mod_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", klpc_cb_mod_message());
	return 0;
}

static int __init klpc_cb_mod_init(void)
{
	if (!proc_create_single("klpc_cb_mod", 0444, NULL, klpc_cb_mod_show))
		return -ENOMEM;
	pr_info("init\n");
	return 0;
}

static void __exit klpc_cb_mod_exit(void)
{
	remove_proc_entry("klpc_cb_mod", NULL);
	pr_info("exit\n");
}

module_init(klpc_cb_mod_init);
module_exit(klpc_cb_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: target module of the callback demo patch");
