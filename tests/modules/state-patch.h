/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state-patch.h - the body of the klpc-test-state{,2,3} patch modules
 *
 * The logic of upstream's lib/livepatch/test_klp_state*.c, written for
 * <klpc-compat.h> with the upstream names.  Each module is an atomic
 * replace patch without functions, with callbacks on vmlinux and one
 * system state: the change of console_loglevel (state 1).  Patching sets
 * aside space for the old level (pre_patch), saves the level there and
 * raises it to CONSOLE_LOGLEVEL_MOTORMOUTH (post_patch); unpatching puts
 * the old level back (pre_unpatch) and frees the space (post_unpatch).
 *
 * The includer defines CONSOLE_LOGLEVEL_STATE_VERSION.  Version 1
 * (klpc-test-state) knows nothing of other patches.  Version 2
 * (klpc-test-state2, and klpc-test-state3, the next cumulative patch
 * with the same fix) migrates: when klp_get_prev_state() finds the state
 * of a patch it replaces, it takes that patch's space and saved level over
 * instead of setting up its own; when it finds one while unpatching (its
 * transition reversed over the patch it was replacing), it leaves both to
 * that patch.
 *
 * Every step prints "<function>: <what it did>" as upstream's modules do,
 * so that the tests state/upstream-* compare the kernel log with test-state.sh's.
 * Where upstream would dereference a NULL pointer (klp_get_prev_state()
 * answering NULL in a callback that found a previous state before), a
 * WARNING is printed and the step skipped: the test fails on it and on
 * the missing line, and the guest goes on to the next test.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <klpc-compat.h>

#define CONSOLE_LOGLEVEL_STATE	1

static struct klp_patch patch;

static struct klp_state *loglevel_state(void)
{
	return klp_get_state(&patch, CONSOLE_LOGLEVEL_STATE);
}

/* The state of a patch below this one; version 1 never looks for it. */
static struct klp_state *prev_loglevel_state(void)
{
	if (CONSOLE_LOGLEVEL_STATE_VERSION < 2)
		return NULL;
	return klp_get_prev_state(CONSOLE_LOGLEVEL_STATE);
}

/* Where the old level is kept: NULL, loudly, where upstream would crash. */
static int *saved_loglevel(struct klp_state *state)
{
	WARN(!state->data, KBUILD_MODNAME ": no space to store console_loglevel\n");
	return state->data;
}

static void callback_info(const char *callback, struct klp_object *obj)
{
	/* the only object is vmlinux */
	pr_info("%s: %s\n", callback, obj->name ? obj->name : "vmlinux");
}

static int allocate_loglevel_state(void)
{
	struct klp_state *state = loglevel_state();

	if (!state)
		return -EINVAL;
	if (prev_loglevel_state()) {
		pr_info("%s: space to store console_loglevel already allocated\n",
			__func__);
		return 0;
	}
	state->data = kzalloc(sizeof(console_loglevel), GFP_KERNEL);
	if (!state->data)
		return -ENOMEM;
	pr_info("%s: allocating space to store console_loglevel\n", __func__);
	return 0;
}

static void fix_console_loglevel(void)
{
	struct klp_state *state = loglevel_state(), *prev;
	int *saved;

	if (!state)
		return;
	prev = prev_loglevel_state();
	if (prev) {
		/* the level is raised already; its old value is in prev's space */
		pr_info("%s: taking over the console_loglevel change\n",
			__func__);
		state->data = prev->data;
		return;
	}
	saved = saved_loglevel(state);
	if (!saved)
		return;
	pr_info("%s: fixing console_loglevel\n", __func__);
	*saved = console_loglevel;
	console_loglevel = CONSOLE_LOGLEVEL_MOTORMOUTH;
}

static void restore_console_loglevel(void)
{
	struct klp_state *state = loglevel_state();
	int *saved;

	if (!state)
		return;
	if (prev_loglevel_state()) {
		pr_info("%s: passing the console_loglevel change back to the old livepatch\n",
			__func__);
		return;
	}
	saved = saved_loglevel(state);
	if (!saved)
		return;
	pr_info("%s: restoring console_loglevel\n", __func__);
	console_loglevel = *saved;
}

static void free_loglevel_state(void)
{
	struct klp_state *state = loglevel_state();

	if (!state)
		return;
	if (prev_loglevel_state()) {
		pr_info("%s: keeping space to store console_loglevel\n",
			__func__);
		return;
	}
	pr_info("%s: freeing space for the stored console_loglevel\n",
		__func__);
	kfree(state->data);
	/* klpc can enable the patch again: it then allocates anew */
	state->data = NULL;
}

static int pre_patch_callback(struct klp_object *obj)
{
	callback_info(__func__, obj);
	return allocate_loglevel_state();
}

static void post_patch_callback(struct klp_object *obj)
{
	callback_info(__func__, obj);
	fix_console_loglevel();
}

static void pre_unpatch_callback(struct klp_object *obj)
{
	callback_info(__func__, obj);
	restore_console_loglevel();
}

static void post_unpatch_callback(struct klp_object *obj)
{
	callback_info(__func__, obj);
	free_loglevel_state();
}

static struct klp_func no_funcs[] = {
	{ }
};

static struct klp_object objs[] = {
	{
		.name = NULL,	/* vmlinux */
		.funcs = no_funcs,
		.callbacks = {
			.pre_patch = pre_patch_callback,
			.post_patch = post_patch_callback,
			.pre_unpatch = pre_unpatch_callback,
			.post_unpatch = post_unpatch_callback,
		},
	},
	{ }
};

static struct klp_state states[] = {
	{
		.id = CONSOLE_LOGLEVEL_STATE,
		.version = CONSOLE_LOGLEVEL_STATE_VERSION,
	},
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
	.states = states,
	.replace = true,
};

static int __init state_patch_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit state_patch_exit(void)
{
}

module_init(state_patch_init);
module_exit(state_patch_exit);
MODULE_LICENSE("GPL");
