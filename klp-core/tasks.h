/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_TASKS_H
#define _KLPC_TASKS_H

#include <linux/types.h>
#include <klpc.h>

struct callback_head;
struct klpc_task;
struct task_struct;

/* what moved a task, counted per transition in /proc/klpc/stats */
enum klpc_mover {
	KLPC_MOVER_SCAN,	/* a scan of the stack words of a task not running */
	KLPC_MOVER_STACK,	/* an unwind of the stack of a task not running */
	KLPC_MOVER_RESUME,	/* its resume work, in its own context */
	KLPC_MOVER_EXIT,	/* do_exit() */
	KLPC_MOVER_NR,
};

int klpc_tasks_alloc(int target, unsigned int nr_tasks, bool exit_stays);
int klpc_tasks_populate(unsigned int nr_tasks);
void klpc_tasks_refill(void);
void klpc_tasks_retire(void);
void klpc_tasks_reap(void);

int klpc_task_patch_state(struct task_struct *task);
bool klpc_task_switch_to(struct task_struct *task, int target,
			 enum klpc_mover who);
bool klpc_task_needs_resume(struct task_struct *task);
bool klpc_task_set_resume(struct task_struct *task, struct callback_head *cb);
void klpc_task_clear_resume(struct task_struct *task, struct callback_head *cb);
void klpc_task_fork(struct task_struct *parent, struct task_struct *child);
void klpc_task_woken_new(struct task_struct *task);
bool klpc_task_gone(struct task_struct *task);
void klpc_task_set_blocker(struct task_struct *task, const char *why);

int klpc_tasks_set_target(int target, bool force);
int klpc_tasks_target(void);
unsigned int klpc_tasks_pending(void);
int klpc_tasks_start(bool refuse_lost);
struct task_struct **klpc_tasks_take_seen(unsigned int *nr);
void klpc_tasks_drop_seen(void);
struct task_struct **klpc_tasks_collect(unsigned int *nr);
ssize_t klpc_tasks_show(char *buf, size_t size);

struct klpc_tasks_stats {
	unsigned int entries;
	unsigned int pending;
	unsigned int buckets;
	size_t entry_bytes;
	unsigned int moves[KLPC_MOVER_NR];
};

void klpc_tasks_stats(struct klpc_tasks_stats *st);

/* move an exiting task, which cannot mix versions any more, to the target */
static inline bool klpc_task_switch(struct task_struct *task)
{
	return klpc_task_switch_to(task, KLPC_UNDEFINED, KLPC_MOVER_EXIT);
}

int klpc_walk_threads(int (*fn)(struct task_struct *t, void *arg), void *arg);

#endif /* _KLPC_TASKS_H */
