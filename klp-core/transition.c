// SPDX-License-Identifier: GPL-2.0
/*
 * transition.c - moving the system from one patch state to another
 *
 * A transition starts when a patch is enabled or disabled and completes
 * when every task runs the target version of the patched functions.  While
 * it is in progress the funcs of the patch are marked as in transition and
 * the ftrace handler asks klpc_task_patch_state() which version the calling
 * task may run.
 *
 * This is the immediate model: every task moves to the target state at the
 * moment the transition starts, so it completes at once.  That is only safe
 * for patches that keep the semantics and prototypes of what they replace.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/module.h>
#include <linux/sched.h>

#include "core.h"
#include "patch.h"
#include "transition.h"

struct klpc_patch *klpc_transition_patch;
static int klpc_target_state = KLPC_UNDEFINED;

/**
 * klpc_task_patch_state() - the patch state a task runs in
 * @task:	the task, usually current
 *
 * Called from the ftrace handler, in any context, for a func in transition.
 *
 * Return: KLPC_PATCHED or KLPC_UNPATCHED.
 */
int notrace klpc_task_patch_state(struct task_struct *task)
{
	return READ_ONCE(klpc_target_state);
}

static void klpc_set_funcs_transition(struct klpc_patch *patch, bool value)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	klpc_for_each_object(patch, obj)
		klpc_for_each_func(obj, func)
			WRITE_ONCE(func->transition, value);
}

static void klpc_post_callbacks(struct klpc_patch *patch, int state)
{
	struct klpc_object *obj;

	klpc_for_each_object(patch, obj) {
		if (!klpc_is_object_loaded(obj))
			continue;
		if (state == KLPC_PATCHED)
			klpc_post_patch_callback(obj);
		else
			klpc_post_unpatch_callback(obj);
	}
}

/*
 * Tear down the transition.  For an unpatching transition the funcs leave
 * their stacks; the handler stops looking at func->transition only after
 * every CPU has seen the stacks without them.
 */
static void klpc_end_transition(void)
{
	struct klpc_patch *patch = klpc_transition_patch;

	if (klpc_target_state == KLPC_UNPATCHED)
		klpc_unpatch_objects(patch);
	klpc_set_funcs_transition(patch, false);
	/*
	 * When patching, a handler that still reads func->transition as true
	 * must not meet a reset task state.
	 */
	klpc_synchronize();
	klpc_post_callbacks(patch, klpc_target_state);
	klpc_target_state = KLPC_UNDEFINED;
	klpc_transition_patch = NULL;
}

/**
 * klpc_init_transition() - prepare a patch to move to a patch state
 * @patch:	the patch
 * @state:	KLPC_PATCHED to apply it, KLPC_UNPATCHED to revert it
 *
 * Marks every func of @patch as in transition.  The caller must order these
 * writes before pushing the funcs on their stacks (smp_wmb()).
 */
void klpc_init_transition(struct klpc_patch *patch, int state)
{
	struct klpc_object *obj;

	WARN_ON_ONCE(klpc_target_state != KLPC_UNDEFINED);
	klpc_transition_patch = patch;
	WRITE_ONCE(klpc_target_state, state);
	if (state == KLPC_PATCHED)
		klpc_for_each_object(patch, obj)
			obj->callbacks.post_unpatch_enabled = false;
	klpc_set_funcs_transition(patch, true);
}

/**
 * klpc_cancel_transition() - abandon a patching transition that never started
 *
 * Used when enabling fails after klpc_init_transition(): whatever got
 * patched is unpatched and the post-unpatch callbacks of objects whose
 * pre-patch callback ran are called.
 */
void klpc_cancel_transition(void)
{
	if (WARN_ON_ONCE(klpc_target_state != KLPC_PATCHED))
		return;
	WRITE_ONCE(klpc_target_state, KLPC_UNPATCHED);
	klpc_end_transition();
}

/**
 * klpc_start_transition() - let tasks move to the target patch state
 */
void klpc_start_transition(void)
{
	pr_notice("'%s': starting %s transition\n",
		  klpc_transition_patch->mod->name,
		  klpc_target_state == KLPC_PATCHED ? "patching" : "unpatching");
}

/**
 * klpc_try_complete_transition() - complete the transition if it can be
 *
 * When the transition completes after unpatching, the patch module is
 * released and may be removed.
 */
void klpc_try_complete_transition(void)
{
	struct klpc_patch *patch = klpc_transition_patch;
	int state = klpc_target_state;

	klpc_end_transition();
	pr_notice("'%s': %s complete\n", patch->mod->name,
		  state == KLPC_PATCHED ? "patching" : "unpatching");
	if (state == KLPC_UNPATCHED)
		module_put(patch->mod);
}
