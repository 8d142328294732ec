// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-shadow-patch.c - a patch that adds a field with a shadow variable
 *
 * klpc_shadow_target's objects get a poke counter they have no room for:
 * the new poke function attaches it on first use
 * (klpc_shadow_get_or_alloc), the new show function prints it, and the
 * new release function frees it with its object, so that a later object
 * at the same address starts from 0.  When the patch is disabled, its
 * post-unpatch callback frees every counter: the old code does not keep
 * them up to date.  live_vars (read-only parameter) counts the counters
 * that exist, for the test.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <klpc.h>

#include "klpc-shadow-target.h"

/* the shadow variable id: "poke" */
#define KST_POKES	0x706f6b65UL

static int live_vars;
module_param(live_vars, int, 0444);
MODULE_PARM_DESC(live_vars, "number of poke counters attached (read-only)");

/* ctor and dtor run under klpc's shadow lock, which serializes them */
static int pokes_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	WRITE_ONCE(live_vars, live_vars + 1);
	return 0;
}

static void pokes_dtor(void *obj, void *shadow_data)
{
	WRITE_ONCE(live_vars, live_vars - 1);
}

/* the target serializes calls on an object: a plain increment will do */
static void klpc_shadow_patch_poke(struct kst_obj *obj)
{
	unsigned int *pokes;

	pokes = klpc_shadow_get_or_alloc(obj, KST_POKES, sizeof(*pokes),
					 GFP_KERNEL, pokes_ctor, NULL);
	if (pokes)
		(*pokes)++;
}

static void klpc_shadow_patch_show_obj(struct seq_file *m,
				       struct kst_obj *obj)
{
	unsigned int *pokes = klpc_shadow_get(obj, KST_POKES);

	seq_printf(m, "obj %u: pokes=%u\n", obj->id, pokes ? *pokes : 0);
}

static void klpc_shadow_patch_release(struct kst_obj *obj)
{
	klpc_shadow_free(obj, KST_POKES, pokes_dtor);
}

static void klpc_shadow_patch_post_unpatch(struct klpc_object *obj)
{
	klpc_shadow_free_all(KST_POKES, pokes_dtor);
}

static struct klpc_func funcs[] = {
	{
		.old_name = "klpc_shadow_target_poke",
		.new_func = klpc_shadow_patch_poke,
	}, {
		.old_name = "klpc_shadow_target_show_obj",
		.new_func = klpc_shadow_patch_show_obj,
	}, {
		.old_name = "klpc_shadow_target_release",
		.new_func = klpc_shadow_patch_release,
	}, { }
};

static struct klpc_object objs[] = {
	{
		.name = "klpc_shadow_target",
		.funcs = funcs,
		.callbacks = {
			.post_unpatch = klpc_shadow_patch_post_unpatch,
		},
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_shadow_patch_init(void)
{
	return klpc_enable_patch(&patch);
}

/* the patch is disabled, its counters gone; this is only a safety net */
static void __exit klpc_shadow_patch_exit(void)
{
	klpc_shadow_free_all(KST_POKES, pokes_dtor);
}

module_init(klpc_shadow_patch_init);
module_exit(klpc_shadow_patch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a patch adding shadow counters to objects");
