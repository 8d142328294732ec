// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - the /sys/kernel/klpc interface
 *
 * /sys/kernel/klpc/<patch>/enabled		rw: 0 or 1
 * /sys/kernel/klpc/<patch>/transition		ro: 1 while in transition
 * /sys/kernel/klpc/<patch>/replace		ro: 1 for a replace patch
 * /sys/kernel/klpc/<patch>/force		wo: 1 completes the transition
 * /sys/kernel/klpc/<patch>/forced		ro: 1 once forced (module pinned)
 * /sys/kernel/klpc/<patch>/checked		ro: yes if its build record matched
 * /sys/kernel/klpc/<patch>/<object>/patched	ro: the object is patched
 * /sys/kernel/klpc/<patch>/<object>/<function,sympos>/
 *
 * The kobjects live in the patch module's structures, so the patch's
 * release signals patch->finish: the module may not go before that.
 * Writes take CAP_SYS_MODULE in the initial user namespace on top of the
 * files' modes (access.c).
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "access.h"
#include "core.h"
#include "transition.h"

static struct kobject *klpc_root_kobj;

static struct klpc_patch *to_patch(struct kobject *kobj)
{
	return container_of(kobj, struct klpc_patch, kobj);
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct klpc_patch *patch = to_patch(kobj);
	bool enable;
	int ret;

	ret = klpc_may_write(patch->mod->name, "enabled");
	if (ret)
		return ret;
	/* as upstream: 1/0, y/n, on/off, in any case */
	ret = kstrtobool(buf, &enable);
	if (ret) {
		klpc_pr_patch(pr_warn_ratelimited, klpc_name(patch),
			      "'enabled' accepts a boolean (1/0, y/n, on/off) (-EINVAL)\n");
		return ret;
	}
	ret = klpc_set_enabled(patch, enable);
	return ret ? ret : count;
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_patch(kobj)->enabled));
}

static ssize_t transition_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(klpc_transition_patch) == to_patch(kobj));
}

static ssize_t force_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct klpc_patch *patch = to_patch(kobj);
	bool val;
	int ret;

	ret = klpc_may_write(patch->mod->name, "force");
	if (ret)
		return ret;
	ret = kstrtobool(buf, &val);
	if (ret || !val) {
		klpc_pr_patch(pr_warn_ratelimited, klpc_name(patch),
			      "'force' accepts only a true boolean (1, y, on) (-EINVAL)\n");
		return -EINVAL;
	}
	ret = klpc_force(patch);
	return ret ? ret : count;
}

/* 1 once 'force' pinned the patch's module for good */
static ssize_t forced_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_patch(kobj)->forced));
}

static ssize_t replace_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", to_patch(kobj)->replace);
}

/* whether the patch's build record was compared with the running kernel */
static ssize_t checked_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_patch(kobj)->checked ? "yes" : "no");
}

static struct kobj_attribute enabled_kobj_attr = __ATTR_RW(enabled);
static struct kobj_attribute transition_kobj_attr = __ATTR_RO(transition);
static struct kobj_attribute replace_kobj_attr = __ATTR_RO(replace);
static struct kobj_attribute force_kobj_attr = __ATTR_WO(force);
static struct kobj_attribute forced_kobj_attr = __ATTR_RO(forced);
static struct kobj_attribute checked_kobj_attr = __ATTR_RO(checked);

static struct attribute *klpc_patch_attrs[] = {
	&enabled_kobj_attr.attr,
	&transition_kobj_attr.attr,
	&replace_kobj_attr.attr,
	&force_kobj_attr.attr,
	&forced_kobj_attr.attr,
	&checked_kobj_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(klpc_patch);

static ssize_t patched_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct klpc_object *obj = container_of(kobj, struct klpc_object, kobj);

	return sysfs_emit(buf, "%d\n", READ_ONCE(obj->patched));
}

static struct kobj_attribute patched_kobj_attr = __ATTR_RO(patched);

static struct attribute *klpc_object_attrs[] = {
	&patched_kobj_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(klpc_object);

static void klpc_kobj_release_patch(struct kobject *kobj)
{
	complete(&to_patch(kobj)->finish);
}

static void klpc_kobj_release_object(struct kobject *kobj)
{
	struct klpc_object *obj = container_of(kobj, struct klpc_object, kobj);

	if (obj->dynamic)
		kfree(obj);
}

static void klpc_kobj_release_func(struct kobject *kobj)
{
	struct klpc_func *func = container_of(kobj, struct klpc_func, kobj);

	if (func->nop)
		kfree(func);
}

static const struct kobj_type klpc_ktype_patch = {
	.release = klpc_kobj_release_patch,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klpc_patch_groups,
};

static const struct kobj_type klpc_ktype_object = {
	.release = klpc_kobj_release_object,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klpc_object_groups,
};

static const struct kobj_type klpc_ktype_func = {
	.release = klpc_kobj_release_func,
	.sysfs_ops = &kobj_sysfs_ops,
};

/**
 * klpc_sysfs_init_object() - initialize the kobject of an object
 * @obj:	the object
 */
void klpc_sysfs_init_object(struct klpc_object *obj)
{
	kobject_init(&obj->kobj, &klpc_ktype_object);
}

/**
 * klpc_sysfs_init_func() - initialize the kobject of a func
 * @func:	the func
 */
void klpc_sysfs_init_func(struct klpc_func *func)
{
	kobject_init(&func->kobj, &klpc_ktype_func);
}

/**
 * klpc_sysfs_init_patch() - initialize the kobjects of a patch's tables
 * @patch:	the patch
 *
 * After this, every kobject of the patch is released by kobject_put(),
 * whether or not it was added to sysfs.
 */
void klpc_sysfs_init_patch(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	kobject_init(&patch->kobj, &klpc_ktype_patch);
	for (obj = patch->objs; klpc_obj_static_valid(obj); obj++) {
		klpc_sysfs_init_object(obj);
		for (func = obj->funcs; klpc_func_static_valid(func); func++)
			klpc_sysfs_init_func(func);
	}
}

/**
 * klpc_sysfs_add_patch() - create /sys/kernel/klpc/<patch>
 * @patch:	the patch
 *
 * Return: 0 or a negative error.
 */
int klpc_sysfs_add_patch(struct klpc_patch *patch)
{
	return kobject_add(&patch->kobj, klpc_root_kobj, "%s",
			   patch->mod->name);
}

/**
 * klpc_sysfs_add_object() - create the directory of an object
 * @patch:	the patch
 * @obj:	one of its objects
 *
 * Return: 0 or a negative error.
 */
int klpc_sysfs_add_object(struct klpc_patch *patch, struct klpc_object *obj)
{
	return kobject_add(&obj->kobj, &patch->kobj, "%s", klpc_obj_name(obj));
}

/**
 * klpc_sysfs_add_func() - create the directory of a function
 * @obj:	the object
 * @func:	one of its functions
 *
 * Return: 0 or a negative error.
 */
int klpc_sysfs_add_func(struct klpc_object *obj, struct klpc_func *func)
{
	/* as upstream, sympos 0 ("unique") shows as position 1 */
	return kobject_add(&func->kobj, &obj->kobj, "%s,%lu", func->old_name,
			   func->old_sympos ? func->old_sympos : 1);
}

/**
 * klpc_sysfs_init() - create /sys/kernel/klpc
 *
 * Return: 0 or -ENOMEM.
 */
int klpc_sysfs_init(void)
{
	klpc_root_kobj = kobject_create_and_add("klpc", kernel_kobj);
	return klpc_root_kobj ? 0 : -ENOMEM;
}

/**
 * klpc_sysfs_exit() - remove /sys/kernel/klpc
 */
void klpc_sysfs_exit(void)
{
	kobject_put(klpc_root_kobj);
}
