// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-shadow-target.c - objects that come and go, for a shadow variable
 * patch (klpc-shadow-patch) to extend
 *
 * /proc/klpc_shadow_target takes "add" (a new object, ids 1, 2, ...),
 * "poke ID" and "del ID", and shows one line per object, "obj ID: plain"
 * as long as nobody patched klpc_shadow_target_show_obj().  Removing the
 * module deletes the objects left, through klpc_shadow_target_release()
 * like "del".
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "klpc-shadow-target.h"

static LIST_HEAD(kst_objs);
/* serializes the object list and every call on an object */
static DEFINE_MUTEX(kst_lock);
static unsigned int kst_next_id = 1;

KST_FUNC void klpc_shadow_target_poke(struct kst_obj *obj)
{
}

KST_FUNC void klpc_shadow_target_show_obj(struct seq_file *m,
					  struct kst_obj *obj)
{
	seq_printf(m, "obj %u: plain\n", obj->id);
}

/* called before an object is freed */
KST_FUNC void klpc_shadow_target_release(struct kst_obj *obj)
{
}

static struct kst_obj *kst_find(unsigned int id)
{
	struct kst_obj *obj;

	list_for_each_entry(obj, &kst_objs, node) {
		if (obj->id == id)
			return obj;
	}
	return NULL;
}

static void kst_delete(struct kst_obj *obj)
{
	klpc_shadow_target_release(obj);
	list_del(&obj->node);
	kfree(obj);
}

static int kst_add(void)
{
	struct kst_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return -ENOMEM;
	obj->id = kst_next_id++;
	list_add_tail(&obj->node, &kst_objs);
	return 0;
}

/* one command, under kst_lock */
static int kst_command(const char *cmd)
{
	struct kst_obj *obj;
	unsigned int id;

	if (!strcmp(cmd, "add"))
		return kst_add();
	if (sscanf(cmd, "poke %u", &id) == 1) {
		obj = kst_find(id);
		if (!obj)
			return -ENOENT;
		klpc_shadow_target_poke(obj);
		return 0;
	}
	if (sscanf(cmd, "del %u", &id) == 1) {
		obj = kst_find(id);
		if (!obj)
			return -ENOENT;
		kst_delete(obj);
		return 0;
	}
	return -EINVAL;
}

static ssize_t kst_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[32];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	mutex_lock(&kst_lock);
	ret = kst_command(buf);
	mutex_unlock(&kst_lock);
	return ret ? ret : count;
}

static int kst_show(struct seq_file *m, void *v)
{
	struct kst_obj *obj;

	mutex_lock(&kst_lock);
	list_for_each_entry(obj, &kst_objs, node)
		klpc_shadow_target_show_obj(m, obj);
	mutex_unlock(&kst_lock);
	return 0;
}

static int kst_open(struct inode *inode, struct file *file)
{
	return single_open(file, kst_show, NULL);
}

static const struct proc_ops kst_proc_ops = {
	.proc_open	= kst_open,
	.proc_read	= seq_read,
	.proc_write	= kst_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init klpc_shadow_target_init(void)
{
	if (!proc_create("klpc_shadow_target", 0644, NULL, &kst_proc_ops))
		return -ENOMEM;
	return 0;
}

static void __exit klpc_shadow_target_exit(void)
{
	struct kst_obj *obj, *tmp;

	remove_proc_entry("klpc_shadow_target", NULL);
	list_for_each_entry_safe(obj, tmp, &kst_objs, node)
		kst_delete(obj);
}

module_init(klpc_shadow_target_init);
module_exit(klpc_shadow_target_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: objects for a shadow variable patch to extend");
