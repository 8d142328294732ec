/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_TRANSITION_H
#define _KLPC_TRANSITION_H

#include <klpc.h>

struct task_struct;

/* the patch being applied or reverted, or NULL; protected by klpc_mutex */
extern struct klpc_patch *klpc_transition_patch;

void klpc_init_transition(struct klpc_patch *patch, int state);
void klpc_cancel_transition(void);
void klpc_start_transition(void);
void klpc_try_complete_transition(void);
int klpc_task_patch_state(struct task_struct *task);

#endif /* _KLPC_TRANSITION_H */
