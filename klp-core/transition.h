/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_TRANSITION_H
#define _KLPC_TRANSITION_H

#include <klpc.h>

struct task_struct;
struct seq_file;

/* the patch being applied or reverted, or NULL; protected by klpc_mutex */
extern struct klpc_patch *klpc_transition_patch;

int klpc_init_transition(struct klpc_patch *patch, int state);
void klpc_cancel_transition(void);
int klpc_start_transition(void);
int klpc_reverse_transition(void);
void klpc_force_transition(void);
void klpc_transition_kick(void);
void klpc_transition_flush(void);
void klpc_transition_wait(struct klpc_patch *patch);
int klpc_walk_threads(int (*fn)(struct task_struct *t, void *arg), void *arg);
void klpc_task_exiting(struct task_struct *task);
void klpc_transition_refresh(void);
void klpc_transition_show(struct seq_file *m);
void klpc_transition_init(void);
void klpc_transition_exit(void);

#endif /* _KLPC_TRANSITION_H */
