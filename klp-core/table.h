/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - the task table of tasks.c and table.c; internal to them
 */
#ifndef _KLPC_TABLE_H
#define _KLPC_TABLE_H

#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#include "core.h"
#include "tasks.h"

/* recycle unlinked entries in batches: each batch waits for every CPU */
#define KLPC_RECYCLE_BATCH	1024
/* the pool a check round tops up, for the tasks created until the next */
#define KLPC_POOL_MIN		256

/**
 * struct klpc_task - patch state of one task during a transition
 * @node:	node in its hash bucket, keyed by @task
 * @task:	the task; valid while the entry is in the table
 * @state:	KLPC_PATCHED or KLPC_UNPATCHED
 * @blocker:	why the last stack check did not move the task, or NULL
 * @resume:	the task work queued to move it on its way to user space,
 *		or NULL (hooks.c)
 * @next:	link in the pool or in the dead list
 * @dynamic:	allocated on its own, not part of the table's first block
 */
struct klpc_task {
	struct hlist_node node;
	struct task_struct *task;
	int state;
	bool dynamic;
	const char *blocker;
	struct callback_head *resume;
	struct klpc_task *next;
};

/**
 * struct klpc_table - the task table of one transition
 * @bits:	log2 of the number of buckets
 * @nr:		entries in the table
 * @in_state:	entries in each state; those not in @target are pending
 * @moves:	how the tasks of this transition moved
 * @target:	the state tasks move to
 * @initial:	the state every task was in when the transition was set up
 * @started:	tasks may move; before, every task is in @initial
 * @exit_stays:	exiting tasks do not move: the patch changes do_exit()
 * @lost:	some task has no entry
 * @pool:	free entries that were handed out before
 * @pool_nr:	free entries in all: those in @pool and those of @block
 *		not handed out yet
 * @dead:	entries taken out of the table, not yet safe to reuse
 * @dead_nr:	how many
 * @block:	the first entries, allocated in one piece
 * @block_nr:	how many
 * @block_used:	how many of them have been handed out
 * @free_node:	link in klpc_dead_tables
 * @heads:	the buckets
 */
struct klpc_table {
	unsigned int bits;
	unsigned int nr;
	unsigned int in_state[2];
	unsigned int moves[KLPC_MOVER_NR];
	int target;
	int initial;
	bool started;
	bool exit_stays;
	bool lost;
	struct klpc_task *pool;
	unsigned int pool_nr;
	struct klpc_task *dead;
	unsigned int dead_nr;
	struct klpc_task *block;
	unsigned int block_nr;
	unsigned int block_used;
	struct llist_node free_node;
	struct hlist_head heads[];
};

extern struct klpc_table __rcu *klpc_table;
extern spinlock_t klpc_table_lock;
extern int klpc_last_target;

/* the table, for callers holding klpc_table_lock or klpc_mutex */
static inline struct klpc_table *klpc_table_locked(void)
{
	return rcu_dereference_protected(klpc_table,
					 lockdep_is_held(&klpc_table_lock) ||
					 lockdep_is_held(&klpc_mutex));
}

static inline struct hlist_head *klpc_bucket(struct klpc_table *t,
					     struct task_struct *task)
{
	return &t->heads[hash_ptr(task, t->bits)];
}

static inline struct klpc_task *klpc_pool_get(struct klpc_table *t)
{
	struct klpc_task *e = t->pool;

	if (e)
		t->pool = e->next;
	else if (t->block_used < t->block_nr)
		e = &t->block[t->block_used++];
	else
		return NULL;
	t->pool_nr--;
	return e;
}

/* entries whose state is not the target; with klpc_table_lock held */
static inline unsigned int klpc_table_pending(struct klpc_table *t)
{
	return t->in_state[!t->target];
}

static inline void klpc_pool_put(struct klpc_table *t, struct klpc_task *e)
{
	e->next = t->pool;
	t->pool = e;
	t->pool_nr++;
}

#endif /* _KLPC_TABLE_H */
