// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-compat-sample.c - an upstream-style live patch module, built for klpc
 *
 * Written against the kernel's own livepatch API (klp_ names, callbacks,
 * a system state, a shadow variable, MODULE_INFO(livepatch)); the only
 * line that differs from a module for the built-in livepatch is the
 * include of <klpc-compat.h> in place of <linux/livepatch.h>.
 *
 * Replaces loadavg_proc_show(), so that /proc/loadavg reads
 * "klpc-compat-sample: read N times".  The counter is a shadow variable
 * attached to the patch's state; the callbacks set it up and free it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <klpc-compat.h>

#define READS_STATE_ID		1
#define READS_SHADOW_ID		1

static struct klp_patch patch;

static int livepatch_loadavg_proc_show(struct seq_file *m, void *v)
{
	atomic_long_t *reads = klp_shadow_get(&patch, READS_SHADOW_ID);

	seq_printf(m, "klpc-compat-sample: read %ld times\n",
		   reads ? atomic_long_inc_return(reads) : -1L);
	return 0;
}

static int reads_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	atomic_long_set(shadow_data, 0);
	return 0;
}

static int pre_patch_callback(struct klp_object *obj)
{
	struct klp_state *state = klp_get_state(&patch, READS_STATE_ID);

	state->data = klp_shadow_get_or_alloc(&patch, READS_SHADOW_ID,
					      sizeof(atomic_long_t), GFP_KERNEL,
					      reads_ctor, NULL);
	if (!state->data)
		return -ENOMEM;
	pr_info("%s: counter ready\n", __func__);
	return 0;
}

static void post_patch_callback(struct klp_object *obj)
{
	pr_info("%s: /proc/loadavg is patched\n", __func__);
}

static void post_unpatch_callback(struct klp_object *obj)
{
	struct klp_state *state = klp_get_state(&patch, READS_STATE_ID);

	klp_shadow_free(&patch, READS_SHADOW_ID, NULL);
	state->data = NULL;
	pr_info("%s: counter freed\n", __func__);
}

static struct klp_func funcs[] = {
	{
		.old_name = "loadavg_proc_show",
		.new_func = livepatch_loadavg_proc_show,
	}, { }
};

static struct klp_object objs[] = {
	{
		/* name being NULL means vmlinux */
		.funcs = funcs,
		.callbacks = {
			.pre_patch = pre_patch_callback,
			.post_patch = post_patch_callback,
			.post_unpatch = post_unpatch_callback,
		},
	}, { }
};

static struct klp_state states[] = {
	{
		.id = READS_STATE_ID,
		.version = 1,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
	.states = states,
};

static int livepatch_init(void)
{
	return klp_enable_patch(&patch);
}

static void livepatch_exit(void)
{
}

module_init(livepatch_init);
module_exit(livepatch_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
