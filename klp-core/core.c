// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - klpc patch registration, enabling and disabling
 *
 * A patch module calls klpc_enable_patch() from its init function: the
 * patch is checked, its symbols resolved, its sysfs directory created and
 * it is enabled, or the load fails with nothing left behind.  Afterwards
 * the patch is controlled through /sys/kernel/klpc/<patch>/enabled and is
 * unregistered when its module is removed, which klpc only allows while
 * the patch is disabled.
 *
 * A patch is enabled or disabled; its objects and funcs are patched or
 * unpatched.  The two differ while a transition is in progress.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/kallsyms.h>
#include <linux/ftrace.h>

#include "core.h"
#include "hooks.h"
#include "kallsyms.h"
#include "patch.h"
#include "procfs.h"
#include "record.h"
#include "reloc.h"
#include "replace.h"
#include "shadow.h"
#include "state.h"
#include "tasks.h"
#include "transition.h"

/* serializes all patch state changes; see core.h */
DEFINE_MUTEX(klpc_mutex);
LIST_HEAD(klpc_patches);

/**
 * klpc_first_func_name() - name of the first function a patch replaces
 * @patch:	the patch
 *
 * Return: the name, for messages about the patch as a whole.
 */
const char *klpc_first_func_name(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	klpc_for_each_object(patch, obj)
		klpc_for_each_func(obj, func)
			return func->old_name;
	return "";
}

/* Checks that need no lock: the patch module's own tables. */
static int klpc_check_patch(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;
	struct klpc_sym *sym;

	if (!patch || !patch->mod || !patch->objs) {
		pr_err("invalid patch: no module or no objects\n");
		return -EINVAL;
	}
	for (obj = patch->objs; klpc_obj_static_valid(obj); obj++) {
		/* as upstream, an object may carry only callbacks */
		if (!obj->funcs || (!klpc_func_static_valid(obj->funcs) &&
				    !klpc_has_callbacks(obj))) {
			klpc_patch_err(patch, "object '%s' has no functions\n",
				       klpc_obj_name(obj));
			return -EINVAL;
		}
		for (func = obj->funcs; klpc_func_static_valid(func); func++) {
			if (func->old_name && func->new_func)
				continue;
			klpc_obj_err(patch, klpc_obj_name(obj),
				     "function '%s' has no %s\n",
				     func->old_name ?: "(null)",
				     func->old_name ? "new_func" : "old_name");
			return -EINVAL;
		}
		for (sym = obj->syms; sym && sym->name; sym++) {
			if (sym->addr)
				continue;
			klpc_obj_err(patch, klpc_obj_name(obj),
				     "symbol '%s' has no addr\n", sym->name);
			return -EINVAL;
		}
	}
	if (obj == patch->objs) {
		pr_err("patch '%s' has no objects\n", klpc_name(patch));
		return -EINVAL;
	}
	return 0;
}

static void klpc_init_patch_early(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	INIT_LIST_HEAD(&patch->list);
	INIT_LIST_HEAD(&patch->obj_list);
	klpc_sysfs_init_patch(patch);
	patch->enabled = false;
	patch->forced = false;
	patch->replaced = false;
	patch->going = false;
	init_completion(&patch->finish);

	for (obj = patch->objs; klpc_obj_static_valid(obj); obj++) {
		INIT_LIST_HEAD(&obj->func_list);
		obj->mod = NULL;
		obj->patched = false;
		list_add_tail(&obj->node, &patch->obj_list);
		for (func = obj->funcs; klpc_func_static_valid(func); func++) {
			func->patched = false;
			func->transition = false;
			list_add_tail(&func->node, &obj->func_list);
		}
	}
}

/* kobject_add() fails silently when it cannot allocate the name */
static int klpc_sysfs_failed(struct klpc_patch *patch, const char *name,
			     int ret)
{
	klpc_patch_err(patch, "cannot create sysfs directory '%s' (%d)\n", name,
		       ret);
	return ret;
}

/*
 * Give every object and func its sysfs directory, unless it has one, and
 * resolve the loaded objects.  This runs again for a replace patch's nops,
 * which are made anew at every enable.
 */
static int klpc_init_objects(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;
	int ret;

	klpc_for_each_object(patch, obj) {
		if (!obj->kobj.state_in_sysfs) {
			ret = klpc_sysfs_add_object(patch, obj);
			if (ret)
				return klpc_sysfs_failed(patch,
							 klpc_obj_name(obj), ret);
		}
		klpc_for_each_func(obj, func) {
			if (func->kobj.state_in_sysfs)
				continue;
			ret = klpc_sysfs_add_func(obj, func);
			if (ret)
				return klpc_sysfs_failed(patch, func->old_name,
							 ret);
		}
		klpc_find_object_module(obj);
		if (klpc_is_object_loaded(obj)) {
			ret = klpc_init_object_loaded(patch, obj);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int klpc_init_patch(struct klpc_patch *patch)
{
	int ret;

	ret = klpc_sysfs_add_patch(patch);
	if (ret)
		return klpc_sysfs_failed(patch, klpc_name(patch), ret);
	if (patch->replace)
		ret = klpc_add_nops(patch);
	if (!ret)
		ret = klpc_init_objects(patch);
	if (ret)
		return ret;
	list_add_tail(&patch->list, &klpc_patches);
	return 0;
}

/* Start unregistering: no new operation may find the patch. */
void klpc_free_patch_start(struct klpc_patch *patch)
{
	patch->going = true;
	if (!list_empty(&patch->list))
		list_del_init(&patch->list);
}

/*
 * Drop the sysfs directory and wait until nothing uses the patch, so that
 * the patch module's memory can go.  Called without klpc_mutex: removing a
 * sysfs file waits for writers of it, which take klpc_mutex.
 */
void klpc_free_patch_finish(struct klpc_patch *patch)
{
	struct klpc_object *obj, *tmp_obj;
	struct klpc_func *func, *tmp_func;

	klpc_for_each_object_safe(patch, obj, tmp_obj) {
		klpc_for_each_func_safe(obj, func, tmp_func) {
			list_del(&func->node);
			kobject_put(&func->kobj);
		}
		list_del(&obj->node);
		kobject_put(&obj->kobj);
	}
	kobject_put(&patch->kobj);
	wait_for_completion(&patch->finish);
}

static int __klpc_enable_patch(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	int ret;

	pr_notice("enabling patch '%s'\n", klpc_name(patch));
	ret = klpc_init_transition(patch, KLPC_PATCHED);
	if (ret)
		return ret;
	/* func->transition must be set before the funcs enter the stacks */
	smp_wmb();

	klpc_for_each_object(patch, obj) {
		if (!klpc_is_object_loaded(obj))
			continue;
		ret = klpc_pre_patch_callback(obj);
		if (ret) {
			klpc_patch_warn(patch,
					"pre-patch callback failed for object '%s' (%d)\n",
					klpc_obj_name(obj), ret);
			goto err;
		}
	}

	ret = klpc_patch_objects(patch);
	if (ret)
		goto err;
	ret = klpc_start_transition();
	if (ret)
		goto err;
	patch->enabled = true;
	return 0;
err:
	pr_warn("failed to enable patch '%s'\n", klpc_name(patch));
	klpc_cancel_transition();
	return ret;
}

int __klpc_disable_patch(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	int ret;

	ret = klpc_init_transition(patch, KLPC_UNPATCHED);
	if (ret)
		return ret;
	klpc_for_each_object(patch, obj)
		if (obj->patched)
			klpc_pre_unpatch_callback(obj);
	/* the callbacks' writes are visible before any task moves */
	smp_wmb();

	klpc_start_transition();
	patch->enabled = false;
	return 0;
}

/* Only the first disabled patch may be enabled: all below it are enabled. */
static struct klpc_patch *klpc_disabled_below(struct klpc_patch *patch)
{
	struct klpc_patch *other;

	list_for_each_entry(other, &klpc_patches, list) {
		if (other == patch)
			break;
		if (!other->enabled)
			return other;
	}
	return NULL;
}

/* Only the most recently enabled patch may be disabled. */
static struct klpc_patch *klpc_enabled_above(struct klpc_patch *patch)
{
	struct klpc_patch *other = patch;

	list_for_each_entry_continue(other, &klpc_patches, list)
		if (other->enabled)
			return other;
	return NULL;
}

/*
 * A failed enable leaves a disabled patch as it found it, with no module
 * object bound to code it could not resolve; the next enable binds again.
 */
static void klpc_unbind_modules(struct klpc_patch *patch)
{
	struct klpc_object *obj;

	klpc_for_each_object(patch, obj)
		if (klpc_is_module(obj) && !obj->patched)
			klpc_free_object_loaded(obj);
}

static int klpc_enable_registered(struct klpc_patch *patch)
{
	struct klpc_patch *below = klpc_disabled_below(patch);
	int ret;

	if (patch->replaced) {
		pr_warn("patch '%s' was replaced by a replace patch and cannot be enabled again; remove and reload it (-EINVAL)\n",
			klpc_name(patch));
		return -EINVAL;
	}
	if (below && !patch->replace) {
		klpc_patch_warn(patch,
				"cannot enable, patch '%s' below it is disabled (-EBUSY)\n",
				klpc_name(below));
		return -EBUSY;
	}
	ret = klpc_check_states(patch);
	if (ret)
		return ret;
	/* an enabled patch pins its module */
	if (!try_module_get(patch->mod))
		return -ENODEV;
	if (patch->replace)
		ret = klpc_add_nops(patch);
	/*
	 * Bind what loaded meanwhile: a module object a disabled patch did
	 * not resolve in stayed unbound (klpc_apply_to_module()).
	 */
	if (!ret)
		ret = klpc_init_objects(patch);
	if (!ret)
		ret = __klpc_enable_patch(patch);
	if (!ret)
		return 0;

	klpc_unbind_modules(patch);
	/* the nops name functions of other patch modules: never keep them */
	klpc_free_nops(patch);
	module_put(patch->mod);
	return ret;
}

/**
 * klpc_set_enabled() - enable or disable a registered patch
 * @patch:	the patch
 * @enable:	the new state
 *
 * Writing the opposite state during the patch's own transition reverses it.
 *
 * Return: 0; -EINVAL if the patch is already in that state; -EBUSY if
 * another patch is in transition or the stacking order forbids it; or an
 * error from enabling, with the patch left disabled.
 */
int klpc_set_enabled(struct klpc_patch *patch, bool enable)
{
	struct klpc_patch *above;
	int ret = -EINVAL;

	mutex_lock(&klpc_mutex);
	if (patch->going) {
		ret = -ENODEV;
	} else if (patch->enabled == enable) {
		pr_warn("patch '%s' is already %s\n", klpc_name(patch),
			enable ? "enabled" : "disabled");
	} else if (klpc_transition_patch == patch) {
		ret = klpc_reverse_transition();
	} else if (klpc_transition_patch) {
		klpc_patch_warn(patch,
				"cannot %s, patch '%s' is in transition (-EBUSY)\n",
				enable ? "enable" : "disable",
				klpc_name(klpc_transition_patch));
		ret = -EBUSY;
	} else if (enable) {
		ret = klpc_enable_registered(patch);
	} else {
		above = klpc_enabled_above(patch);
		if (above) {
			klpc_patch_warn(patch,
					"cannot disable, patch '%s' above it is enabled (-EBUSY)\n",
					klpc_name(above));
			ret = -EBUSY;
		} else {
			ret = __klpc_disable_patch(patch);
		}
	}
	mutex_unlock(&klpc_mutex);
	if (!ret)
		klpc_transition_flush();
	return ret;
}

/**
 * klpc_force() - complete a patch's transition by force
 * @patch:	the patch, which must be in transition
 *
 * Return: 0, or -EINVAL if @patch is not in transition.
 */
int klpc_force(struct klpc_patch *patch)
{
	int ret = 0;

	mutex_lock(&klpc_mutex);
	if (patch != klpc_transition_patch) {
		pr_warn("patch '%s' is not in transition, nothing to force (-EINVAL)\n",
			klpc_name(patch));
		ret = -EINVAL;
	} else {
		klpc_force_transition();
	}
	mutex_unlock(&klpc_mutex);
	return ret;
}

/**
 * klpc_enable_patch() - register and enable a live patch
 * @patch:	patch to be enabled, owned by the calling patch module
 *
 * Called from the init function of a patch module.  Resolves the symbols
 * of every loaded object, creates /sys/kernel/klpc/<patch>/ and starts the
 * patching transition.  Objects that are modules not loaded yet are
 * patched when they load.  The patch module cannot be removed while the
 * patch is enabled; removing it after disabling unregisters the patch.
 *
 * Return: 0 on success; otherwise an error, with nothing registered or
 * patched, which the caller returns from its init function.
 */
int klpc_enable_patch(struct klpc_patch *patch)
{
	struct klpc_patch *below;
	int ret;

	ret = klpc_check_patch(patch);
	if (!ret)
		ret = klpc_reloc_check_patch(patch);
	if (!ret)
		ret = klpc_record_check_patch(patch);
	if (ret)
		return ret;

	mutex_lock(&klpc_mutex);
	if (klpc_transition_patch) {
		klpc_patch_err(patch,
			       "cannot enable, patch '%s' is in transition (-EBUSY)\n",
			       klpc_name(klpc_transition_patch));
		ret = -EBUSY;
		goto unlock;
	}
	below = list_empty(&klpc_patches) ? NULL :
		list_last_entry(&klpc_patches, struct klpc_patch, list);
	if (below && !below->enabled && !patch->replace) {
		klpc_patch_err(patch,
			       "cannot enable, patch '%s' below it is disabled; enable or remove it first (-EBUSY)\n",
			       klpc_name(below));
		ret = -EBUSY;
		goto unlock;
	}
	ret = klpc_check_states(patch);
	if (ret)
		goto unlock;
	if (!try_module_get(patch->mod)) {
		ret = -ENODEV;
		goto unlock;
	}

	klpc_init_patch_early(patch);
	ret = klpc_init_patch(patch);
	if (!ret)
		ret = __klpc_enable_patch(patch);
	if (ret)
		goto err;
	mutex_unlock(&klpc_mutex);
	klpc_transition_flush();
	return 0;
err:
	klpc_free_patch_start(patch);
	mutex_unlock(&klpc_mutex);
	/*
	 * Funcs pushed on the stack of an address another patch keeps can
	 * still be read by a handler on another CPU: wait for it before the
	 * module (hence the funcs) can be freed.
	 */
	klpc_synchronize();
	klpc_free_patch_finish(patch);
	module_put(patch->mod);
	return ret;
unlock:
	mutex_unlock(&klpc_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(klpc_enable_patch);

static int __init klpc_init(void)
{
	int ret;

	ret = klpc_kallsyms_init();
	if (ret)
		return ret;
	ret = klpc_patch_init();
	if (ret)
		return ret;
	ret = klpc_hooks_init();
	if (ret)
		goto err_patch;
	klpc_transition_init();
	ret = klpc_sysfs_init();
	if (ret)
		goto err_hooks;
	ret = klpc_proc_init();
	if (ret)
		goto err_sysfs;
	ret = klpc_module_notifiers_init();
	if (ret)
		goto err_proc;
	pr_info("klpc loaded\n");
	return 0;

err_proc:
	klpc_proc_exit();
err_sysfs:
	klpc_sysfs_exit();
err_hooks:
	klpc_hooks_exit();
err_patch:
	klpc_patch_exit();
	return ret;
}

/* Only reachable when no patch module is loaded: they all use our symbols. */
static void __exit klpc_exit(void)
{
	klpc_module_notifiers_exit();
	klpc_proc_exit();
	klpc_sysfs_exit();
	klpc_transition_exit();
	klpc_hooks_exit();
	klpc_patch_exit();
	klpc_shadow_exit();
}

module_init(klpc_init);
module_exit(klpc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc: a live patching core with a per-task consistency model");
/* also gives the module a srcversion, which klpc status shows */
MODULE_VERSION("0.1.0");
