/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_TASKS_H
#define _KLPC_TASKS_H

#include <klpc.h>

struct callback_head;
struct klpc_task;
struct seq_file;
struct task_struct;

int klpc_tasks_alloc(int target, unsigned int nr_tasks);
int klpc_tasks_add(struct task_struct *task);
void klpc_tasks_retire(void);
void klpc_tasks_reap(void);

int klpc_task_patch_state(struct task_struct *task);
bool klpc_task_switch_to(struct task_struct *task, int target);
bool klpc_task_needs_resume(struct task_struct *task);
bool klpc_task_set_resume(struct task_struct *task, struct callback_head *cb);
void klpc_task_clear_resume(struct task_struct *task, struct callback_head *cb);
void klpc_task_fork(struct task_struct *parent, struct task_struct *child);
bool klpc_task_gone(struct task_struct *task);
void klpc_task_set_blocker(struct task_struct *task, const char *why);

int klpc_tasks_set_target(int target, bool force);
unsigned int klpc_tasks_pending(void);
void klpc_tasks_start(void);
struct task_struct **klpc_tasks_collect(unsigned int *nr);
void klpc_tasks_show(struct seq_file *m);
int klpc_tasks_proc_init(void);
void klpc_tasks_proc_exit(void);

/* move a task that cannot mix versions any more (it exits) to the target */
static inline bool klpc_task_switch(struct task_struct *task)
{
	return klpc_task_switch_to(task, KLPC_UNDEFINED);
}

#endif /* _KLPC_TASKS_H */
