// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample-mod.c - a patch whose object is a module: klpc_target
 *
 * Loaded before klpc_target, it waits and applies when klpc_target loads;
 * loaded after, it applies at once.  Either way /proc/klpc_target then
 * shows "message=patched by klpc".  When klpc_target unloads the object is
 * reverted, and re-applied if it loads again.
 */

#include <linux/module.h>
#include <klpc.h>

static const char *klpc_sample_mod_message(void)
{
	return "patched by klpc";
}

static struct klpc_func funcs[] = {
	{
		.old_name = "klpc_target_message",
		.new_func = klpc_sample_mod_message,
	}, { }
};

static struct klpc_object objs[] = {
	{
		.name = "klpc_target",
		.funcs = funcs,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_sample_mod_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_sample_mod_exit(void)
{
}

module_init(klpc_sample_mod_init);
module_exit(klpc_sample_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: patch a function of the klpc_target module");
KLPC_PATCH_DESC("klpc_target's message, patched in the module");
