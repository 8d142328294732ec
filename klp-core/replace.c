// SPDX-License-Identifier: GPL-2.0
/*
 * replace.c - atomic replace: one patch takes the place of all others
 *
 * A patch with ->replace set carries the whole wanted state of the
 * system.  For every function that an enabled patch changes and it does
 * not, it gets a "nop" func meaning "the original function", in an object
 * of its own ("dynamic") where it has none for that object.  Its
 * transition then moves each task, in one step, from whatever the patches
 * below gave it to what the replace patch wants.
 *
 * When that transition completes, the replaced patches leave the func
 * stacks without a transition of their own (no task runs their code any
 * more), become disabled for good and can be removed; the nops go too,
 * since the original function is what an empty func stack runs.  As
 * upstream, this happens before the replace patch's post-patch callbacks,
 * but the patches that were enabled stay on klpc_patches until those
 * callbacks have run: klpc_get_prev_state() finds their states there.  If
 * the transition is reversed instead, the nops go and nothing else
 * changes.
 *
 * The nops exist only while the replace patch is in transition, so the
 * names they point to, owned by the enabled (hence pinned) patch modules
 * they shadow, outlive them.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "core.h"
#include "patch.h"
#include "replace.h"

/* klpc_patches' former members, until their modules are removed */
LIST_HEAD(klpc_replaced_patches);

static bool klpc_same_name(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* sympos 0 (unique) and 1 (the first) name the same function */
static bool klpc_same_sympos(unsigned long a, unsigned long b)
{
	return (a ? a : 1) == (b ? b : 1);
}

static struct klpc_object *klpc_find_object(struct klpc_patch *patch,
					    struct klpc_object *old_obj)
{
	struct klpc_object *obj;

	klpc_for_each_object(patch, obj)
		if (klpc_same_name(obj->name, old_obj->name))
			return obj;
	return NULL;
}

static struct klpc_func *klpc_find_func(struct klpc_object *obj,
					struct klpc_func *old_func)
{
	struct klpc_func *func;

	klpc_for_each_func(obj, func)
		if (!strcmp(func->old_name, old_func->old_name) &&
		    klpc_same_sympos(func->old_sympos, old_func->old_sympos))
			return func;
	return NULL;
}

static struct klpc_object *klpc_alloc_dynamic_object(struct klpc_patch *patch,
						     const char *name)
{
	struct klpc_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return NULL;
	obj->name = name;
	obj->dynamic = true;
	INIT_LIST_HEAD(&obj->func_list);
	klpc_sysfs_init_object(obj);
	list_add_tail(&obj->node, &patch->obj_list);
	return obj;
}

static int klpc_add_nop(struct klpc_object *obj, struct klpc_func *old_func)
{
	struct klpc_func *func = kzalloc(sizeof(*func), GFP_KERNEL);

	if (!func)
		return -ENOMEM;
	func->old_name = old_func->old_name;
	func->old_sympos = old_func->old_sympos;
	func->nop = true;
	klpc_sysfs_init_func(func);
	list_add_tail(&func->node, &obj->func_list);
	return 0;
}

static int klpc_add_object_nops(struct klpc_patch *patch,
				struct klpc_object *old_obj)
{
	struct klpc_object *obj = klpc_find_object(patch, old_obj);
	struct klpc_func *old_func;
	int ret;

	/* an object of callbacks only changes no function */
	if (list_empty(&old_obj->func_list))
		return 0;
	if (!obj) {
		obj = klpc_alloc_dynamic_object(patch, old_obj->name);
		if (!obj)
			return -ENOMEM;
	}
	klpc_for_each_func(old_obj, old_func) {
		if (klpc_find_func(obj, old_func))
			continue;
		ret = klpc_add_nop(obj, old_func);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * klpc_add_nops() - give a replace patch a nop for each function it drops
 * @patch:	the replace patch, about to be enabled
 *
 * Called with klpc_mutex held.  The new funcs and objects still have to be
 * added to sysfs and resolved like the patch's own.
 *
 * Return: 0, or -ENOMEM with the nops added so far left for
 * klpc_free_nops().
 */
int klpc_add_nops(struct klpc_patch *patch)
{
	struct klpc_patch *old;
	struct klpc_object *old_obj;
	int ret;

	list_for_each_entry(old, &klpc_patches, list) {
		if (old == patch || !old->enabled)
			continue;
		klpc_for_each_object(old, old_obj) {
			ret = klpc_add_object_nops(patch, old_obj);
			if (!ret)
				continue;
			/* else the load or the write fails with no word why */
			klpc_patch_err(patch, "cannot allocate its nops (%d)\n",
				       ret);
			return ret;
		}
	}
	return 0;
}

static bool klpc_has_nops(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	klpc_for_each_object(patch, obj) {
		if (obj->dynamic)
			return true;
		klpc_for_each_func(obj, func)
			if (func->nop)
				return true;
	}
	return false;
}

/**
 * klpc_free_nops() - drop a replace patch's nops and dynamic objects
 * @patch:	the patch, none of whose nops is on a func stack
 *
 * Called with klpc_mutex held.  Their sysfs directories have no attribute
 * that takes klpc_mutex, so they can be removed here.
 */
void klpc_free_nops(struct klpc_patch *patch)
{
	struct klpc_object *obj, *tmp_obj;
	struct klpc_func *func, *tmp_func;

	if (!klpc_has_nops(patch))
		return;
	/* a handler may still be reading one of them */
	klpc_synchronize();
	klpc_for_each_object_safe(patch, obj, tmp_obj) {
		klpc_for_each_func_safe(obj, func, tmp_func) {
			if (!func->nop)
				continue;
			list_del(&func->node);
			kobject_put(&func->kobj);
		}
		if (obj->dynamic) {
			list_del(&obj->node);
			kobject_put(&obj->kobj);
		}
	}
}

/*
 * Take one patch off the stacks for good; its module becomes removable.
 * An enabled one stays listed, for klpc_replace_unlist() to move; one
 * that was disabled already holds no state and leaves klpc_patches now,
 * so that klpc_get_prev_state() cannot take it for a replaced patch.
 */
static void klpc_retire_patch(struct klpc_patch *patch, struct klpc_patch *by)
{
	struct klpc_object *obj;
	bool was_enabled = patch->enabled;

	if (was_enabled) {
		klpc_unpatch_objects(patch);
		patch->enabled = false;
		/*
		 * A forced patch keeps a reference of its own.  The module
		 * may now be on its way out, but its removal waits for
		 * klpc_mutex, held until the patch is unlisted.
		 */
		module_put(patch->mod);
	}
	klpc_for_each_object(patch, obj)
		klpc_free_object_loaded(obj);
	patch->replaced = true;
	if (!was_enabled)
		list_move_tail(&patch->list, &klpc_replaced_patches);
	pr_notice("patch '%s' replaced by '%s'\n", patch->mod->name,
		  by->mod->name);
}

/**
 * klpc_replace_complete() - finish a replace patch's transition
 * @patch:	the replace patch
 * @state:	the state its transition ended in
 *
 * Called with klpc_mutex held, once no func of @patch is in transition,
 * before its post-(un)patch callbacks.  Every task runs what @patch wants:
 * if that is @patch itself, every other patch is retired (those that were
 * enabled stay listed until klpc_replace_unlist()); either way the nops
 * go.
 */
void klpc_replace_complete(struct klpc_patch *patch, int state)
{
	struct klpc_patch *old, *tmp;

	if (state == KLPC_PATCHED) {
		list_for_each_entry_safe(old, tmp, &klpc_patches, list)
			if (old != patch)
				klpc_retire_patch(old, patch);
		klpc_unpatch_nops(patch);
	}
	klpc_free_nops(patch);
}

/**
 * klpc_replace_unlist() - let go of the patches a replace patch retired
 *
 * Called with klpc_mutex held at the end of a replace patch's transition,
 * after its post-(un)patch callbacks.  Until then the patches it took over
 * stayed on klpc_patches, disabled and flagged 'replaced', so that the
 * callbacks could take their states over with klpc_get_prev_state(), as
 * upstream keeps them listed until after post_patch.  From now on only the
 * removal of their modules looks at them.  After a reversed transition
 * there are none.
 */
void klpc_replace_unlist(void)
{
	struct klpc_patch *old, *tmp;

	list_for_each_entry_safe(old, tmp, &klpc_patches, list)
		if (old->replaced)
			list_move_tail(&old->list, &klpc_replaced_patches);
}
