// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - system states that patches declare and take over
 *
 * A patch lists the system states it changes (&struct klpc_state: an id
 * and a version).  Its callbacks find the state of an older patch with
 * klpc_get_prev_state() and take its data over: a replace patch's pre-patch
 * callbacks may prepare for that, its post-patch callbacks may complete it,
 * while the patches it replaces are still listed.  The version rules are
 * upstream's: a patch may only load if it handles every state an enabled
 * patch set up with at least the same version, and a replace patch,
 * which takes every enabled patch's place, must also carry every such
 * state.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kernel.h>

#include "core.h"
#include "state.h"
#include "transition.h"

/* a patch's states end with an entry whose id is 0 */
static struct klpc_state *klpc_next_state(struct klpc_patch *patch,
					  struct klpc_state *state)
{
	state = state ? state + 1 : patch->states;
	return state && state->id ? state : NULL;
}

/**
 * klpc_get_state() - find a system state of a patch
 * @patch:	the patch
 * @id:		the state's id
 *
 * Return: the state, or NULL if @patch does not declare it.
 */
struct klpc_state *klpc_get_state(struct klpc_patch *patch, unsigned long id)
{
	struct klpc_state *state = NULL;

	while ((state = klpc_next_state(patch, state)))
		if (state->id == id)
			return state;
	return NULL;
}
EXPORT_SYMBOL_GPL(klpc_get_state);

/**
 * klpc_get_prev_state() - the state that the patch in transition replaces
 * @id:		the state's id
 *
 * Meant for the callbacks of the patch in transition: finds the state @id
 * of the most recent patch below it that holds its states, which is a
 * patch that was enabled when the transition started:
 *
 * - an enabled patch;
 * - a patch that this very transition, a replace patch's, has just
 *   retired: as upstream, it left the func stacks and reads 'enabled' 0
 *   before the replace patch's post-patch callbacks run, but it stays on
 *   klpc_patches, flagged 'replaced', until they have run, so that they
 *   can take its states over.
 *
 * A disabled patch does not count, although klpc keeps it registered (and
 * a replace patch enabled above it retires it too): its post-unpatch
 * callbacks undid its states, and may have freed their data.  Upstream
 * frees a disabled patch, so it has no such rule and does not look at
 * 'enabled'.  A replace transition that is reversed retires nothing: its
 * post-unpatch callbacks find the patches below it still enabled.
 *
 * Return: the state, or NULL if no such patch declares it, or if no patch
 * is in transition.
 */
struct klpc_state *klpc_get_prev_state(unsigned long id)
{
	struct klpc_patch *patch, *target = klpc_transition_patch;
	struct klpc_state *state, *last = NULL;

	if (!target)
		return NULL;
	list_for_each_entry(patch, &klpc_patches, list) {
		if (patch == target)
			break;
		/* listed and replaced: retired by this transition */
		if (!patch->enabled && !patch->replaced)
			continue;
		state = klpc_get_state(patch, id);
		if (state)
			last = state;
	}
	return last;
}
EXPORT_SYMBOL_GPL(klpc_get_prev_state);

/* Can @patch take over @old_state, set up by another enabled patch? */
static bool klpc_state_compatible(struct klpc_patch *patch,
				  struct klpc_state *old_state)
{
	struct klpc_state *state = klpc_get_state(patch, old_state->id);

	if (!state)
		return !patch->replace;
	return state->version >= old_state->version;
}

/**
 * klpc_check_states() - check a patch's states against the enabled patches
 * @patch:	the patch about to be enabled
 *
 * Called with klpc_mutex held.
 *
 * Return: 0, or -EINVAL with a message naming the state and the patches.
 */
int klpc_check_states(struct klpc_patch *patch)
{
	struct klpc_state *state = NULL, *old_state;
	struct klpc_patch *old;

	while ((state = klpc_next_state(patch, state))) {
		if (klpc_get_state(patch, state->id) == state)
			continue;
		klpc_patch_err(patch,
			       "system state %lu is listed twice (-EINVAL)\n",
			       state->id);
		return -EINVAL;
	}

	list_for_each_entry(old, &klpc_patches, list) {
		if (old == patch || !old->enabled)
			continue;
		old_state = NULL;
		while ((old_state = klpc_next_state(old, old_state))) {
			if (klpc_state_compatible(patch, old_state))
				continue;
			state = klpc_get_state(patch, old_state->id);
			klpc_patch_err(patch,
				       "not compatible with patch '%s': system state %lu version %u %s (-EINVAL)\n",
				       old->mod->name, old_state->id,
				       old_state->version,
				       state ? "is newer than this patch's" :
				       "is not carried by this replace patch");
			return -EINVAL;
		}
	}
	return 0;
}
