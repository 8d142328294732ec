/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_CORE_H
#define _KLPC_CORE_H

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <klpc.h>

/* serializes patch registration, enabling, disabling and module events */
extern struct mutex klpc_mutex;
/* registered patches, in the order they were registered (stack order) */
extern struct list_head klpc_patches;

/*
 * Walk the tables a patch module hands in, which end with an all-zero
 * entry, before they are linked into the patch's lists.
 */
static inline bool klpc_obj_static_valid(struct klpc_object *obj)
{
	return obj->funcs || obj->name;
}

static inline bool klpc_func_static_valid(struct klpc_func *func)
{
	return func->old_name || func->new_func || func->old_sympos;
}

static inline bool klpc_has_callbacks(struct klpc_object *obj)
{
	return obj->callbacks.pre_patch || obj->callbacks.post_patch ||
	       obj->callbacks.pre_unpatch || obj->callbacks.post_unpatch;
}

static inline bool klpc_is_module(struct klpc_object *obj)
{
	return obj->name;
}

/* vmlinux is always loaded; a module object only while its module is */
static inline bool klpc_is_object_loaded(struct klpc_object *obj)
{
	return !obj->name || obj->mod;
}

static inline const char *klpc_obj_name(struct klpc_object *obj)
{
	return obj->name ? obj->name : "vmlinux";
}

static inline struct klpc_patch *klpc_obj_patch(struct klpc_object *obj)
{
	return container_of(obj->kobj.parent, struct klpc_patch, kobj);
}

/*
 * Object callbacks.  Only pre_patch may fail; post_unpatch runs only for
 * objects whose pre_patch ran and succeeded.
 */
static inline int klpc_pre_patch_callback(struct klpc_object *obj)
{
	int ret = 0;

	if (obj->callbacks.pre_patch)
		ret = obj->callbacks.pre_patch(obj);
	obj->callbacks.post_unpatch_enabled = !ret;
	return ret;
}

static inline void klpc_post_patch_callback(struct klpc_object *obj)
{
	if (obj->callbacks.post_patch)
		obj->callbacks.post_patch(obj);
}

static inline void klpc_pre_unpatch_callback(struct klpc_object *obj)
{
	if (obj->callbacks.pre_unpatch)
		obj->callbacks.pre_unpatch(obj);
}

static inline void klpc_post_unpatch_callback(struct klpc_object *obj)
{
	if (obj->callbacks.post_unpatch && obj->callbacks.post_unpatch_enabled)
		obj->callbacks.post_unpatch(obj);
	obj->callbacks.post_unpatch_enabled = false;
}

static inline const char *klpc_name(struct klpc_patch *patch)
{
	return patch->mod->name;
}

/*
 * Messages about a patch start with "patch 'NAME': ", NAME being its
 * module's name, and those about one of its objects go on with "object
 * 'OBJ': ": users and the guest tests find them by that prefix.  @pr is
 * the pr_*() to print with and @name the patch module's name, for the
 * callers without a struct klpc_patch at hand; the others take @patch.
 */
#define klpc_pr_patch(pr, name, fmt, ...) \
	pr("patch '%s': " fmt, name, ##__VA_ARGS__)
#define klpc_pr_obj(pr, name, obj, fmt, ...) \
	pr("patch '%s': object '%s': " fmt, name, obj, ##__VA_ARGS__)

#define klpc_patch_err(patch, fmt, ...) \
	klpc_pr_patch(pr_err, klpc_name(patch), fmt, ##__VA_ARGS__)
#define klpc_patch_warn(patch, fmt, ...) \
	klpc_pr_patch(pr_warn, klpc_name(patch), fmt, ##__VA_ARGS__)
#define klpc_patch_notice(patch, fmt, ...) \
	klpc_pr_patch(pr_notice, klpc_name(patch), fmt, ##__VA_ARGS__)
#define klpc_obj_err(patch, obj, fmt, ...) \
	klpc_pr_obj(pr_err, klpc_name(patch), obj, fmt, ##__VA_ARGS__)

const char *klpc_first_func_name(struct klpc_patch *patch);

/*
 * Wait until no CPU can still be in the ftrace handler with an old view of
 * the func stacks.  The handler runs with preemption disabled, also where
 * RCU is not watching (idle, entry code), so a plain synchronize_rcu() is
 * not enough: make every CPU schedule.
 */
static inline void klpc_synchronize(void)
{
	synchronize_rcu_tasks_rude();
}

int klpc_sysfs_init(void);
void klpc_sysfs_exit(void);
int klpc_sysfs_add_patch(struct klpc_patch *patch);
int klpc_sysfs_add_object(struct klpc_patch *patch, struct klpc_object *obj);
int klpc_sysfs_add_func(struct klpc_object *obj, struct klpc_func *func);
void klpc_sysfs_init_patch(struct klpc_patch *patch);
void klpc_sysfs_init_object(struct klpc_object *obj);
void klpc_sysfs_init_func(struct klpc_func *func);

int klpc_init_object_loaded(struct klpc_patch *patch, struct klpc_object *obj);
void klpc_free_object_loaded(struct klpc_object *obj);
void klpc_find_object_module(struct klpc_object *obj);

int klpc_set_enabled(struct klpc_patch *patch, bool enable);
int klpc_force(struct klpc_patch *patch);
int __klpc_disable_patch(struct klpc_patch *patch);
void klpc_free_patch_start(struct klpc_patch *patch);
void klpc_free_patch_finish(struct klpc_patch *patch);

int klpc_module_notifiers_init(void);
void klpc_module_notifiers_exit(void);

#endif /* _KLPC_CORE_H */
