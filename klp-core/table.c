// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - the life of the task table: allocation, its pool of entries,
 * recycling, retirement and freeing, and what /proc/klpc shows of it
 *
 * See tasks.c for what the table holds and the rules of its use.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "table.h"

/* the moves of the last transition, for /proc/klpc/stats */
static unsigned int klpc_last_moves[KLPC_MOVER_NR];
static LLIST_HEAD(klpc_dead_tables);

/**
 * klpc_tasks_alloc() - create and publish the table for a transition
 * @target:	the patch state of the transition
 * @nr_tasks:	how many tasks there are, to size the table and its pool
 * @exit_stays:	whether the patch changes do_exit(), which an exiting task
 *		is in: then the exit hook moves no task
 *
 * Every entry the walk that fills the table needs is allocated here,
 * before the hooks can see the table, in one piece with the pool that
 * klpc_tasks_refill() keeps: the first check round, which has the whole
 * table to check, then allocates nothing.
 *
 * Return: 0 or -ENOMEM.
 */
int klpc_tasks_alloc(int target, unsigned int nr_tasks, bool exit_stays)
{
	unsigned int bits = ilog2(roundup_pow_of_two(max(nr_tasks, 64U)));
	unsigned int nr = nr_tasks + KLPC_POOL_MIN + nr_tasks / 16;
	struct klpc_table *t;

	t = kvzalloc(struct_size(t, heads, 1U << bits), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->block = kvcalloc(nr, sizeof(*t->block), GFP_KERNEL);
	if (!t->block) {
		kvfree(t);
		return -ENOMEM;
	}
	t->block_nr = nr;
	t->pool_nr = nr;
	t->bits = bits;
	t->target = target;
	t->initial = !target;
	t->exit_stays = exit_stays;
	WRITE_ONCE(klpc_last_target, target);
	rcu_assign_pointer(klpc_table, t);
	return 0;
}

/* Allocate up to @nr entries and add them to the pool. */
static void klpc_pool_fill(struct klpc_table *t, unsigned int nr)
{
	struct klpc_task *e, *list = NULL;
	unsigned long flags;
	unsigned int n;

	for (n = 0; n < nr; n++) {
		e = kzalloc(sizeof(*e), GFP_KERNEL | __GFP_NOWARN);
		if (!e)
			break;
		e->dynamic = true;
		e->next = list;
		list = e;
		if (!(n % 128))
			cond_resched();
	}
	spin_lock_irqsave(&klpc_table_lock, flags);
	while ((e = list)) {
		list = e->next;
		klpc_pool_put(t, e);
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
}

/**
 * klpc_tasks_refill() - make room for the tasks created until the next round
 *
 * Called with klpc_mutex held, at every check round.  Entries unlinked
 * since the last recycling go back to the pool, in batches, once no CPU
 * can still be walking over them; the pool is topped up.
 */
void klpc_tasks_refill(void)
{
	struct klpc_task *dead = NULL, *e;
	struct klpc_table *t;
	unsigned long flags;
	unsigned int want;

	lockdep_assert_held(&klpc_mutex);
	t = klpc_table_locked();
	if (!t)
		return;
	spin_lock_irqsave(&klpc_table_lock, flags);
	if (t->dead_nr >= KLPC_RECYCLE_BATCH) {
		dead = t->dead;
		t->dead = NULL;
		t->dead_nr = 0;
	}
	want = KLPC_POOL_MIN + t->nr / 16;
	want = t->pool_nr < want ? want - t->pool_nr : 0;
	spin_unlock_irqrestore(&klpc_table_lock, flags);

	if (dead) {
		klpc_synchronize();
		spin_lock_irqsave(&klpc_table_lock, flags);
		while ((e = dead)) {
			dead = e->next;
			klpc_pool_put(t, e);
		}
		spin_unlock_irqrestore(&klpc_table_lock, flags);
	}
	if (want)
		klpc_pool_fill(t, want);
}

/**
 * klpc_tasks_retire() - unpublish the table once the transition is over
 *
 * The ftrace handler and the hooks run with preemption disabled and may
 * still look at the table on another CPU, also where RCU is not watching,
 * so it is only freed by klpc_tasks_reap().
 */
void klpc_tasks_retire(void)
{
	struct klpc_table *t;
	unsigned long flags;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	RCU_INIT_POINTER(klpc_table, NULL);
	if (t)
		memcpy(klpc_last_moves, t->moves, sizeof(klpc_last_moves));
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	if (t)
		llist_add(&t->free_node, &klpc_dead_tables);
}

static void klpc_free_entries(struct klpc_task *e)
{
	struct klpc_task *next;

	for (; e; e = next) {
		next = e->next;
		if (e->dynamic)
			kfree(e);
	}
}

static void klpc_free_table(struct klpc_table *t)
{
	struct hlist_node *tmp;
	struct klpc_task *e;
	unsigned int i;

	for (i = 0; i < (1U << t->bits); i++) {
		hlist_for_each_entry_safe(e, tmp, &t->heads[i], node)
			if (e->dynamic)
				kfree(e);
		cond_resched();
	}
	klpc_free_entries(t->pool);
	klpc_free_entries(t->dead);
	kvfree(t->block);
	kvfree(t);
}

/**
 * klpc_tasks_reap() - free the retired tables
 *
 * Waits until every CPU has scheduled, so that no handler or hook still
 * runs on them.  Must not run concurrently with itself.
 */
void klpc_tasks_reap(void)
{
	struct llist_node *dead = llist_del_all(&klpc_dead_tables);
	struct klpc_table *t, *next;

	if (!dead)
		return;
	klpc_synchronize();
	llist_for_each_entry_safe(t, next, dead, free_node)
		klpc_free_table(t);
}

static const char *klpc_state_name(int state)
{
	return state == KLPC_PATCHED ? "patched" : "unpatched";
}

/* Print the pending tasks of one bucket; false when @buf is full. */
static bool klpc_show_bucket(struct klpc_table *t, unsigned int i,
			     char *buf, size_t size, size_t *len)
{
	struct klpc_task *e;
	int n;

	hlist_for_each_entry(e, &t->heads[i], node) {
		if (e->state == t->target)
			continue;
		n = scnprintf(buf + *len, size - *len, "%d %s %s %s\n",
			      task_pid_nr(e->task), e->task->comm,
			      klpc_state_name(e->state),
			      e->blocker ? e->blocker : "-");
		if (*len + n + 1 >= size)
			return false;
		*len += n;
	}
	return true;
}

/**
 * klpc_tasks_show() - list the tasks that have yet to move
 * @buf:	where to write, one line per task: pid, comm, its patch
 *		state, and what blocks it
 * @size:	the size of @buf
 *
 * Called with klpc_mutex held, which keeps the table published; the lock
 * is taken one bucket at a time.
 *
 * Return: the length written, or -ENOSPC if @buf is too small.
 */
ssize_t klpc_tasks_show(char *buf, size_t size)
{
	struct klpc_table *t;
	unsigned long flags;
	size_t len = 0;
	unsigned int i;
	bool fits = true;

	lockdep_assert_held(&klpc_mutex);
	t = klpc_table_locked();
	for (i = 0; t && fits && i < (1U << t->bits); i++) {
		spin_lock_irqsave(&klpc_table_lock, flags);
		fits = klpc_show_bucket(t, i, buf, size, &len);
		spin_unlock_irqrestore(&klpc_table_lock, flags);
	}
	return fits ? len : -ENOSPC;
}

/**
 * klpc_tasks_stats() - the table's figures, for /proc/klpc/stats
 * @st:	filled in: all zero but @st->moves without a transition, which then
 *	are the last transition's
 */
void klpc_tasks_stats(struct klpc_tasks_stats *st)
{
	struct klpc_table *t;
	unsigned long flags;

	memset(st, 0, sizeof(*st));
	st->entry_bytes = sizeof(struct klpc_task);
	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t) {
		st->entries = t->nr;
		st->pending = klpc_table_pending(t);
		st->buckets = 1U << t->bits;
	}
	memcpy(st->moves, t ? t->moves : klpc_last_moves, sizeof(st->moves));
	spin_unlock_irqrestore(&klpc_table_lock, flags);
}
