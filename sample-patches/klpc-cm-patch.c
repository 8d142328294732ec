// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-cm-patch.c - an incompatible change that needs the consistency model
 *
 * The new klpc_cm_callee() returns (x + 1) * 1000 and the new caller
 * expects exactly that.  With an immediate switch a task could run the old
 * caller into the new callee (or the reverse) and count a mismatch; klpc's
 * per-task transition must never let that happen.  klpc_cm_sleeper() is
 * patched too, so a task sleeping in it blocks the transition.
 *
 * Uses symbols klpc_cm_target exports, so that module must be loaded first.
 */

#include <linux/module.h>
#include <klpc.h>

#include "cm-target.h"

static int klpc_cm_callee_v2(int x)
{
	return (x + 1) * 1000;
}

/* calls the target's callee: klpc decides which version this task runs */
static int klpc_cm_caller_v2(int x)
{
	return klpc_cm_callee(x) != (x + 1) * 1000;
}

static const char *klpc_cm_sleeper_v2(void)
{
	return klpc_cm_wait() ? NULL : "slept v2";
}

static struct klpc_func funcs[] = {
	{ .old_name = "klpc_cm_callee", .new_func = klpc_cm_callee_v2 },
	{ .old_name = "klpc_cm_caller", .new_func = klpc_cm_caller_v2 },
	{ .old_name = "klpc_cm_sleeper", .new_func = klpc_cm_sleeper_v2 },
	{ }
};

static struct klpc_object objs[] = {
	{ .name = "klpc_cm_target", .funcs = funcs },
	{ }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_cm_patch_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_cm_patch_exit(void)
{
}

module_init(klpc_cm_patch_init);
module_exit(klpc_cm_patch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: change a callee's return convention and its caller");
KLPC_PATCH_DESC("a callee's return convention and its caller change together");
