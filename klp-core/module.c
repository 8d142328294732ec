// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - patching modules that come and go
 *
 * A patch may replace functions of a module that is not loaded yet.  When
 * such a module loads, every patch that is enabled, or in transition, is
 * applied to it before it can run, and the load fails if one cannot be;
 * when it goes, what the patches did to it is reverted.  When a patch
 * module itself goes, its patch is unregistered, and taken to the
 * unpatched state first if it is still enabled.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/string.h>

#include "core.h"
#include "patch.h"
#include "replace.h"
#include "transition.h"

/* Revert what the patches did to a module object that loads or goes. */
static void klpc_revert_module_object(struct klpc_patch *patch,
				      struct klpc_object *obj)
{
	if (obj->patched) {
		if (patch != klpc_transition_patch)
			klpc_pre_unpatch_callback(obj);
		pr_notice("reverting patch '%s' on unloading module '%s'\n",
			  klpc_name(patch), obj->name);
		klpc_unpatch_object(obj);
		klpc_post_unpatch_callback(obj);
	}
	klpc_free_object_loaded(obj);
}

static void klpc_cleanup_module(struct module *mod,
				struct klpc_patch *limit)
{
	struct klpc_patch *patch;
	struct klpc_object *obj;

	list_for_each_entry(patch, &klpc_patches, list) {
		if (patch == limit)
			break;
		klpc_for_each_object(patch, obj)
			if (obj->mod == mod)
				klpc_revert_module_object(patch, obj);
	}
}

static int klpc_apply_to_module(struct klpc_patch *patch,
				struct klpc_object *obj, struct module *mod)
{
	bool active = patch->enabled || patch == klpc_transition_patch;
	int ret;

	obj->mod = mod;
	ret = klpc_init_object_loaded(patch, obj);
	/*
	 * A disabled patch does not stand in the way of a module: the object
	 * stays unbound, and enabling the patch fails with the same message.
	 */
	if (ret && !active) {
		pr_warn("patch '%s' (disabled) does not apply to module '%s'; it cannot be enabled while the module is loaded\n",
			klpc_name(patch), mod->name);
		klpc_free_object_loaded(obj);
		return 0;
	}
	if (ret || !active)
		return ret;

	pr_notice("applying patch '%s' to loading module '%s'\n",
		  klpc_name(patch), obj->name);
	ret = klpc_pre_patch_callback(obj);
	if (ret) {
		klpc_patch_warn(patch,
				"pre-patch callback failed for object '%s' (%d)\n",
				obj->name, ret);
		return ret;
	}
	ret = klpc_patch_object(obj);
	if (ret) {
		klpc_post_unpatch_callback(obj);
		return ret;
	}
	if (patch != klpc_transition_patch)
		klpc_post_patch_callback(obj);
	return 0;
}

static int klpc_module_coming(struct module *mod)
{
	struct klpc_patch *patch;
	struct klpc_object *obj;
	int ret = 0;

	mutex_lock(&klpc_mutex);
	list_for_each_entry(patch, &klpc_patches, list) {
		klpc_for_each_object(patch, obj) {
			if (!klpc_is_module(obj) || obj->mod ||
			    strcmp(obj->name, mod->name))
				continue;
			ret = klpc_apply_to_module(patch, obj, mod);
			if (!ret)
				continue;
			pr_warn("patch '%s' failed for module '%s', refusing to load module '%s'\n",
				klpc_name(patch), mod->name, mod->name);
			klpc_free_object_loaded(obj);
			klpc_cleanup_module(mod, patch);
			goto out;
		}
	}
	klpc_transition_refresh();
out:
	mutex_unlock(&klpc_mutex);
	return ret;
}

static struct klpc_patch *klpc_patch_of(struct module *mod)
{
	struct klpc_patch *patch;

	list_for_each_entry(patch, &klpc_patches, list)
		if (patch->mod == mod)
			return patch;
	return NULL;
}

/*
 * The module of an enabled patch, or of the patch in transition, goes: its
 * init failed after klpc_enable_patch() succeeded, or "rmmod -f".  Tasks
 * may run its code, so the patch is taken to the unpatched state by a
 * transition (a reversal, if it is in one), and the module's removal waits
 * for it.  Only if that cannot start is the patch reverted at once.
 */
static void klpc_unpatch_going(struct klpc_patch *patch)
{
	struct klpc_patch *busy;

	lockdep_assert_held(&klpc_mutex);
	patch->going = true;
	for (;;) {
		busy = klpc_transition_patch;
		if (busy == patch && patch->enabled &&
		    klpc_reverse_transition())
			klpc_force_transition();
		else if (!busy && !patch->enabled)
			return;
		else if (!busy && __klpc_disable_patch(patch))
			break;
		busy = klpc_transition_patch;
		if (!busy)
			continue;
		klpc_patch_notice(patch,
				  "module going while enabled, waiting for %s transition\n",
				  busy == patch ? "its unpatching" : "another patch's");
		mutex_unlock(&klpc_mutex);
		klpc_transition_wait(busy);
		mutex_lock(&klpc_mutex);
	}
	klpc_patch_warn(patch,
			"module removed while enabled, reverting it at once\n");
	klpc_unpatch_objects(patch);
	patch->enabled = false;
}

static void klpc_module_going(struct module *mod)
{
	struct klpc_patch *patch, *freed = NULL;

	mutex_lock(&klpc_mutex);
	patch = klpc_patch_of(mod);
	if (patch && (patch->enabled || patch == klpc_transition_patch))
		klpc_unpatch_going(patch);
	klpc_cleanup_module(mod, NULL);
	klpc_transition_refresh();
	list_for_each_entry(patch, &klpc_replaced_patches, list)
		if (patch->mod == mod)
			freed = patch;
	patch = klpc_patch_of(mod);
	if (patch)
		freed = patch;
	if (freed)
		klpc_free_patch_start(freed);
	mutex_unlock(&klpc_mutex);

	if (!freed)
		return;
	/*
	 * No handler may still read the patch's funcs, and no task may be
	 * about to enter or return into the module's code: a task preempted
	 * in an ftrace trampoline on its way to a new function shows no such
	 * frame on its stack.
	 */
	klpc_synchronize();
	synchronize_rcu_tasks();
	klpc_free_patch_finish(freed);
}

/*
 * A later COMING notifier that refuses the module makes the chain send
 * GOING back to the notifiers already called, this one but not the going
 * one, while the module is still in the COMING state.  Every other GOING
 * comes with the module in the GOING state.
 */
static int klpc_module_coming_notify(struct notifier_block *nb,
				     unsigned long action, void *data)
{
	struct module *mod = data;

	if (action == MODULE_STATE_COMING)
		return notifier_from_errno(klpc_module_coming(mod));
	if (action == MODULE_STATE_GOING && mod->state == MODULE_STATE_COMING)
		klpc_module_going(mod);
	return NOTIFY_DONE;
}

static int klpc_module_going_notify(struct notifier_block *nb,
				    unsigned long action, void *data)
{
	struct module *mod = data;

	if (action == MODULE_STATE_GOING && mod->state == MODULE_STATE_GOING)
		klpc_module_going(mod);
	return NOTIFY_DONE;
}

/*
 * Patch a coming module before any other notifier can call into it, and
 * revert a going one only after every other notifier is done with it, as
 * the built-in livepatch does from the module loader itself.  A module
 * refused by a later COMING notifier is reverted by the coming block.
 */
static struct notifier_block klpc_module_coming_nb = {
	.notifier_call	= klpc_module_coming_notify,
	.priority	= INT_MAX,
};

static struct notifier_block klpc_module_going_nb = {
	.notifier_call	= klpc_module_going_notify,
	.priority	= INT_MIN,
};

/**
 * klpc_module_notifiers_init() - start following module loads and removals
 *
 * Return: 0, or the error of registering a notifier, with none registered.
 */
int klpc_module_notifiers_init(void)
{
	int ret;

	ret = register_module_notifier(&klpc_module_coming_nb);
	if (ret)
		return ret;
	ret = register_module_notifier(&klpc_module_going_nb);
	if (ret)
		unregister_module_notifier(&klpc_module_coming_nb);
	return ret;
}

/**
 * klpc_module_notifiers_exit() - stop following module loads and removals
 */
void klpc_module_notifiers_exit(void)
{
	unregister_module_notifier(&klpc_module_going_nb);
	unregister_module_notifier(&klpc_module_coming_nb);
}
