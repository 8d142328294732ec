/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc-patch.h - the body of the klpc-test-proc-{a,b,c} patch modules
 *
 * Three modules with one body, so that a test can stack, replace and
 * reload patches that differ only in their parameters:
 *
 *	cmdline=TEXT	/proc/cmdline reads "TEXT" (not patched if unset)
 *	version=TEXT	/proc/version reads "TEXT" (not patched if unset)
 *	replace=1	an atomic replace patch
 *	state=V		declares system state 1 at version V (0: none)
 *	pre_patch_ret=E	the vmlinux pre_patch callback returns E
 *	target_cb=1	adds an object for module klpc_target with callbacks
 *			and no function
 *
 * Every callback prints "<module>: <callback>", followed by the object's
 * name for a module object, plus, for the state, what it did with it: the
 * tests compare these lines with what they expect.
 * The state's data is a kmalloc'ed record of the patch that set it up,
 * which a replace patch takes over (see struct proc_patch_record).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <klpc.h>

#define PROC_PATCH_STATE_ID	1

static char *cmdline;
module_param(cmdline, charp, 0444);
MODULE_PARM_DESC(cmdline, "text for /proc/cmdline");

static char *version;
module_param(version, charp, 0444);
MODULE_PARM_DESC(version, "text for /proc/version");

static bool replace;
module_param(replace, bool, 0444);
MODULE_PARM_DESC(replace, "make it an atomic replace patch");

static uint state;
module_param(state, uint, 0444);
MODULE_PARM_DESC(state, "version of system state 1 (0: no state)");

static bool target_cb;
module_param(target_cb, bool, 0444);
MODULE_PARM_DESC(target_cb, "add a callbacks-only object for klpc_target");

static int pre_patch_ret;
module_param(pre_patch_ret, int, 0644);
MODULE_PARM_DESC(pre_patch_ret, "what the pre_patch callback returns");

/*
 * The state's record, one per system state, shared by the patches that
 * declare it; only its owner frees it.  A stacked patch shares the record
 * of the patch below; a replace patch takes it over in post_patch, once
 * the patches it replaces are retired (their callbacks no longer run), as
 * upstream's test_klp_state2 does.  Taken in pre_patch, it was freed
 * twice: by a reversed replace patch, or by a stacked one, and again by
 * the patch below.
 */
struct proc_patch_record {
	char owner[MODULE_NAME_LEN];
};

static int proc_patch_cmdline_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", cmdline);
	return 0;
}

static int proc_patch_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", version);
	return 0;
}

static struct klpc_func funcs[3];
static struct klpc_state states[2];
static struct klpc_patch patch;

static int proc_patch_setup_state(void)
{
	struct klpc_state *st = klpc_get_state(&patch, PROC_PATCH_STATE_ID);
	struct klpc_state *prev = klpc_get_prev_state(PROC_PATCH_STATE_ID);
	struct proc_patch_record *rec;

	if (!st)
		return 0;
	if (prev && prev->data) {
		st->data = prev->data;
		return 0;
	}
	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	strscpy(rec->owner, KBUILD_MODNAME, sizeof(rec->owner));
	st->data = rec;
	pr_info("state: set up v%u\n", st->version);
	return 0;
}

/* a replace patch, patched: the record of the patches it retired is its */
static void proc_patch_take_state(void)
{
	struct klpc_state *st = klpc_get_state(&patch, PROC_PATCH_STATE_ID);
	struct klpc_state *prev = klpc_get_prev_state(PROC_PATCH_STATE_ID);
	struct proc_patch_record *rec;

	if (!patch.replace || !st || !st->data || !prev || prev->data != st->data)
		return;
	rec = st->data;
	pr_info("state: taking over v%u from %s\n", prev->version, rec->owner);
	strscpy(rec->owner, KBUILD_MODNAME, sizeof(rec->owner));
}

static int proc_patch_pre_patch(struct klpc_object *obj)
{
	if (obj->name) {
		pr_info("pre_patch %s\n", obj->name);
		return 0;
	}
	pr_info("pre_patch\n");
	if (pre_patch_ret)
		return pre_patch_ret;
	return proc_patch_setup_state();
}

static void proc_patch_post_patch(struct klpc_object *obj)
{
	if (!obj->name)
		proc_patch_take_state();
	pr_info("post_patch%s%s\n", obj->name ? " " : "", obj->name ?: "");
}

static void proc_patch_pre_unpatch(struct klpc_object *obj)
{
	pr_info("pre_unpatch%s%s\n", obj->name ? " " : "", obj->name ?: "");
}

static void proc_patch_post_unpatch(struct klpc_object *obj)
{
	struct klpc_state *st = klpc_get_state(&patch, PROC_PATCH_STATE_ID);
	struct proc_patch_record *rec = st ? st->data : NULL;

	pr_info("post_unpatch%s%s\n", obj->name ? " " : "", obj->name ?: "");
	/* the state is vmlinux's: klpc_target may go while the patch stays */
	if (!rec || obj->name)
		return;
	st->data = NULL;
	if (strcmp(rec->owner, KBUILD_MODNAME))
		return;
	pr_info("state: released v%u\n", st->version);
	kfree(rec);
}

static const struct klpc_callbacks proc_patch_callbacks = {
	.pre_patch = proc_patch_pre_patch,
	.post_patch = proc_patch_post_patch,
	.pre_unpatch = proc_patch_pre_unpatch,
	.post_unpatch = proc_patch_post_unpatch,
};

static struct klpc_func no_funcs[1];
static struct klpc_object objs[3];

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init proc_patch_init(void)
{
	struct klpc_func *f = funcs;

	if (cmdline) {
		f->old_name = "cmdline_proc_show";
		f->new_func = proc_patch_cmdline_show;
		f++;
	}
	if (version) {
		f->old_name = "version_proc_show";
		f->new_func = proc_patch_version_show;
	}
	objs[0].funcs = funcs;
	objs[0].callbacks = proc_patch_callbacks;
	if (target_cb) {
		objs[1].name = "klpc_target";
		objs[1].funcs = no_funcs;
		objs[1].callbacks = proc_patch_callbacks;
	}
	patch.replace = replace;
	if (state) {
		states[0].id = PROC_PATCH_STATE_ID;
		states[0].version = state;
		patch.states = states;
	}
	return klpc_enable_patch(&patch);
}

static void __exit proc_patch_exit(void)
{
}

module_init(proc_patch_init);
module_exit(proc_patch_exit);
MODULE_LICENSE("GPL");
