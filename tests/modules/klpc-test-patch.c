// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-patch.c - a one-function patch whose target the test chooses
 *
 *	insmod klpc-test-patch.ko obj=klpc_target func=klpc_target_dup sympos=2
 *
 * replaces that function with one returning 42 (so it fits int (*)(void)
 * targets; tests that expect the load to fail may name anything).  replace=1
 * makes it an atomic replace patch.  broken=
 * makes the patch itself malformed: "no_new_func", "no_old_name",
 * "no_funcs" or "no_objs"; or, with "fail_init", the init function fails
 * with -EINVAL after klpc_enable_patch() succeeded.
 */

#include <linux/module.h>
#include <klpc.h>

static char *obj;
module_param(obj, charp, 0444);
MODULE_PARM_DESC(obj, "object to patch: a module name, or empty for vmlinux");

static char *func = "klpc_target_dup";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "function to patch");

static ulong sympos;
module_param(sympos, ulong, 0444);
MODULE_PARM_DESC(sympos, "old_sympos of the function");

static bool replace;
module_param(replace, bool, 0444);
MODULE_PARM_DESC(replace, "make it an atomic replace patch");

static char *broken;
module_param(broken, charp, 0444);
MODULE_PARM_DESC(broken, "no_new_func, no_old_name, no_funcs, no_objs or fail_init");

static int klpc_test_ret42(void)
{
	return 42;
}

static struct klpc_func funcs[2];
static struct klpc_object objs[2];

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static bool is_broken(const char *how)
{
	return broken && !strcmp(broken, how);
}

static int __init klpc_test_patch_init(void)
{
	int ret;

	funcs[0].old_name = is_broken("no_old_name") ? NULL : func;
	funcs[0].new_func = is_broken("no_new_func") ? NULL : klpc_test_ret42;
	funcs[0].old_sympos = sympos;
	objs[0].name = obj && *obj ? obj : NULL;
	objs[0].funcs = funcs;
	if (is_broken("no_funcs"))
		objs[0].funcs = &funcs[1];
	if (is_broken("no_objs"))
		patch.objs = &objs[1];
	patch.replace = replace;
	ret = klpc_enable_patch(&patch);
	if (ret)
		return ret;
	/* the patch module goes away during its own transition */
	if (is_broken("fail_init"))
		return -EINVAL;
	return 0;
}

static void __exit klpc_test_patch_exit(void)
{
}

module_init(klpc_test_patch_init);
module_exit(klpc_test_patch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a one-function patch chosen at load time");
