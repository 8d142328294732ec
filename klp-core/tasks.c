// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the per-task patch state ("universe") during a transition
 *
 * The built-in livepatch keeps a task's patch state in task_struct; a
 * module cannot add a field there, so klpc keeps it in a hash table keyed
 * by pid that exists only while a transition is in progress.  Every task
 * alive when the transition starts gets an entry, and so does every task
 * forked during it; an entry goes when its task is freed.
 *
 * The ftrace handler reads the table without locks (RCU).  Writers take
 * klpc_table_lock with interrupts off, as they run from kprobes on the
 * return to user space and from the RCU callback that frees a task.
 *
 * Entries match on the task_struct, not only on the pid: the pid of a task
 * that exited may be reused before the task is freed, and the new task
 * must not see the old task's state.  The struct itself cannot be reused
 * while an entry points to it, as the entry goes before the final put.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "core.h"
#include "kallsyms.h"
#include "tasks.h"

/**
 * struct klpc_task - patch state of one task during a transition
 * @node:	node in its hash bucket, keyed by pid
 * @task:	the task; valid while the entry is in the table
 * @pid:	the task's pid (idle tasks all have pid 0)
 * @state:	KLPC_PATCHED or KLPC_UNPATCHED
 * @blocker:	why the last stack check did not move the task, or NULL
 * @resume:	the task work queued to move it on its way to user space,
 *		or NULL (hooks.c)
 * @rcu:	for freeing after the handler is done with it
 */
struct klpc_task {
	struct hlist_node node;
	struct task_struct *task;
	pid_t pid;
	int state;
	const char *blocker;
	struct callback_head *resume;
	struct rcu_head rcu;
};

struct klpc_table {
	unsigned int bits;
	unsigned int nr;
	unsigned int pending;
	unsigned int moves[KLPC_MOVER_NR];
	int target;
	bool started;
	bool lost;
	struct llist_node free_node;
	struct hlist_head heads[];
};

static struct klpc_table __rcu *klpc_table;
static DEFINE_SPINLOCK(klpc_table_lock);
/* what a handler still in a finished transition answers */
static int klpc_last_target = KLPC_UNDEFINED;
/* the moves of the last transition, for /proc/klpc/stats */
static unsigned int klpc_last_moves[KLPC_MOVER_NR];
static LLIST_HEAD(klpc_dead_tables);

/* the table, for callers holding klpc_table_lock or klpc_mutex */
static struct klpc_table *klpc_table_locked(void)
{
	return rcu_dereference_protected(klpc_table, true);
}

static struct klpc_task *klpc_task_find(struct klpc_table *t,
					struct task_struct *task)
{
	struct klpc_task *e;

	hlist_for_each_entry_rcu_notrace(e, &t->heads[hash_32(task->pid, t->bits)],
					 node)
		if (e->task == task)
			return e;
	return NULL;
}

/* With klpc_table_lock held: the table (or NULL) and the task's entry. */
static struct klpc_task *klpc_task_find_locked(struct task_struct *task,
					       struct klpc_table **tp)
{
	*tp = klpc_table_locked();
	return *tp ? klpc_task_find(*tp, task) : NULL;
}

/**
 * klpc_task_patch_state() - the patch state a task runs in
 * @task:	the task, usually current
 *
 * Called from the ftrace handler, in any context, for a func in transition.
 * A task without an entry was forked when no entry could be allocated; it
 * started on a fresh stack and runs the target version.  A handler that
 * read a func just before its transition ended finds no table: every task
 * was in the final state by then.
 *
 * Return: KLPC_PATCHED or KLPC_UNPATCHED.
 */
int notrace klpc_task_patch_state(struct task_struct *task)
{
	struct klpc_table *t = rcu_dereference_sched(klpc_table);
	struct klpc_task *e;

	if (!t)
		return READ_ONCE(klpc_last_target);
	e = klpc_task_find(t, task);
	return e ? READ_ONCE(e->state) : READ_ONCE(t->target);
}

static void klpc_task_insert(struct klpc_table *t, struct klpc_task *e,
			     struct task_struct *task, int state)
{
	e->task = task;
	e->pid = task->pid;
	e->state = state;
	e->blocker = NULL;
	e->resume = NULL;
	hlist_add_head_rcu(&e->node, &t->heads[hash_32(e->pid, t->bits)]);
	t->nr++;
	if (state != t->target)
		t->pending++;
}

/*
 * Return true when this made the last pending task move.  No task moves
 * before the transition starts: until every func of the patch is in place
 * and marked, a task in the target state could run a mix of versions.
 */
static bool klpc_task_move(struct klpc_table *t, struct klpc_task *e,
			   enum klpc_mover who)
{
	if (!t->started || e->state == t->target)
		return false;
	WRITE_ONCE(e->state, t->target);
	e->blocker = NULL;
	t->moves[who]++;
	return --t->pending == 0;
}

/**
 * klpc_tasks_alloc() - create the table for a transition, with no entries
 * @target:	the patch state of the transition
 * @nr_tasks:	how many tasks there are, to size the table
 *
 * Return: 0 or -ENOMEM.
 */
int klpc_tasks_alloc(int target, unsigned int nr_tasks)
{
	unsigned int bits = ilog2(roundup_pow_of_two(max(nr_tasks, 64U)));
	struct klpc_table *t;

	t = kvzalloc(struct_size(t, heads, 1U << bits), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->bits = bits;
	t->target = target;
	WRITE_ONCE(klpc_last_target, target);
	rcu_assign_pointer(klpc_table, t);
	return 0;
}

/**
 * klpc_tasks_add() - give a task an entry in the initial state
 * @task:	the task
 * @e:		a preallocated entry
 *
 * The fork hook may have added the task already; then @e is not used.
 *
 * Return: 1 if @e was used, 0 if not.
 */
int klpc_tasks_add(struct task_struct *task, struct klpc_task *e)
{
	struct klpc_table *t;
	unsigned long flags;
	int used = 0;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t && !klpc_task_find(t, task)) {
		klpc_task_insert(t, e, task, !t->target);
		used = 1;
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return used;
}

/**
 * klpc_tasks_alloc_entry() - allocate an entry for klpc_tasks_add()
 *
 * Return: the entry or NULL.
 */
struct klpc_task *klpc_tasks_alloc_entry(void)
{
	return kmalloc(sizeof(struct klpc_task), GFP_KERNEL);
}

/**
 * klpc_tasks_free_entry() - free an entry klpc_tasks_add() did not use
 * @e:	the entry
 */
void klpc_tasks_free_entry(struct klpc_task *e)
{
	kfree(e);
}

/**
 * klpc_task_fork() - a new task inherits its parent's patch state
 * @parent:	the forking task
 * @child:	the new task, not yet runnable
 *
 * Every child gets an entry, so that a reversed transition cannot flip it
 * to the other state behind its back.  A child whose parent has no entry
 * starts in the target state: its stack is fresh, outside every patched
 * function.  If no entry can be had, the table is marked incomplete and
 * the transition can no longer be reversed.
 */
void klpc_task_fork(struct task_struct *parent, struct task_struct *child)
{
	struct klpc_task *pe, *e;
	struct klpc_table *t;
	unsigned long flags;

	/*
	 * The probe is always attached.  A table published after this check
	 * is filled by a walk of the task list, where the child already is.
	 */
	if (!rcu_access_pointer(klpc_table))
		return;
	/* allocate outside the lock: an allocation may wake kswapd */
	e = kmalloc(sizeof(*e), GFP_ATOMIC);

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t && e && !klpc_task_find(t, child)) {
		pe = klpc_task_find(t, parent);
		klpc_task_insert(t, e, child, pe ? pe->state : t->target);
		e = NULL;
	} else if (t && !e) {
		t->lost = true;
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	kfree(e);
}

/*
 * Lockless, with preemption disabled: whether a task has yet to move.  The
 * exit hook calls klpc_task_switch() for every exiting task during a
 * transition; this keeps the lock for the tasks that still have to move.
 * A stale answer only delays a move to the task's next chance.
 */
static bool klpc_task_pending(struct task_struct *task)
{
	struct klpc_table *t = rcu_dereference_sched(klpc_table);
	struct klpc_task *e;

	if (!t)
		return false;
	e = klpc_task_find(t, task);
	return e && READ_ONCE(e->state) != READ_ONCE(t->target);
}

/**
 * klpc_task_switch_to() - move a task to the target state
 * @task:	the task, which has no function in transition on its stack
 * @target:	the target state that was checked for, or KLPC_UNDEFINED if
 *		the task may move to either
 * @who:	what moves it
 *
 * A task checked against the functions of one target does not move if the
 * transition was reversed meanwhile.
 *
 * Return: true if it was the last task to move.
 */
bool klpc_task_switch_to(struct task_struct *task, int target,
			 enum klpc_mover who)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;
	bool last = false;

	if (!klpc_task_pending(task))
		return false;
	spin_lock_irqsave(&klpc_table_lock, flags);
	e = klpc_task_find_locked(task, &t);
	if (e && (target == KLPC_UNDEFINED || target == t->target))
		last = klpc_task_move(t, e, who);
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return last;
}

/**
 * klpc_task_needs_resume() - whether a task has yet to move and no work
 * @task:	the task
 *
 * Return: true if the transition started, the task has yet to move and no
 * resume work of klpc is queued on it.
 */
bool klpc_task_needs_resume(struct task_struct *task)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;
	bool needs;

	spin_lock_irqsave(&klpc_table_lock, flags);
	e = klpc_task_find_locked(task, &t);
	needs = e && t->started && e->state != t->target && !e->resume;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return needs;
}

/**
 * klpc_task_set_resume() - record the resume work about to be queued
 * @task:	the task
 * @cb:		the work
 *
 * Return: true if @cb is recorded; false if the task needs no work any more.
 */
bool klpc_task_set_resume(struct task_struct *task, struct callback_head *cb)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;
	bool set = false;

	spin_lock_irqsave(&klpc_table_lock, flags);
	e = klpc_task_find_locked(task, &t);
	if (e && e->state != t->target && !e->resume) {
		e->resume = cb;
		set = true;
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return set;
}

/**
 * klpc_task_clear_resume() - forget a resume work that ran or was not queued
 * @task:	the task
 * @cb:		the work; a work of an earlier transition is not recorded
 */
void klpc_task_clear_resume(struct task_struct *task, struct callback_head *cb)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;

	spin_lock_irqsave(&klpc_table_lock, flags);
	e = klpc_task_find_locked(task, &t);
	if (e && e->resume == cb)
		e->resume = NULL;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
}

/**
 * klpc_task_gone() - drop the entry of a task that is being freed
 * @task:	the task
 *
 * Return: true if the task was the last one pending.
 */
bool klpc_task_gone(struct task_struct *task)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;
	bool last = false;

	/*
	 * The probe is always attached; no lock outside a transition.  A
	 * task the walk that fills a table saw is freed only after the walk,
	 * which follows the table's publication.
	 */
	if (!rcu_access_pointer(klpc_table))
		return false;
	spin_lock_irqsave(&klpc_table_lock, flags);
	e = klpc_task_find_locked(task, &t);
	if (e) {
		if (e->state != t->target)
			last = !--t->pending && t->started;
		hlist_del_rcu(&e->node);
		t->nr--;
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	/* outside the lock, which task_call_func() callers take under rq locks */
	if (e)
		kfree_rcu(e, rcu);
	return last;
}

/**
 * klpc_tasks_set_target() - reverse the transition, or force it
 * @target:	the new target state
 * @force:	move every task to @target at once
 *
 * Tasks already in @target stay; the others now have to move.
 *
 * Return: 0, or -ENOMEM if a reversal is refused because some task forked
 * during the transition has no entry and would silently change state.
 */
int klpc_tasks_set_target(int target, bool force)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (!t || (t->lost && !force)) {
		ret = t ? -ENOMEM : 0;
		goto out;
	}
	WRITE_ONCE(t->target, target);
	WRITE_ONCE(klpc_last_target, target);
	t->pending = 0;
	for (i = 0; i < (1U << t->bits); i++) {
		hlist_for_each_entry(e, &t->heads[i], node) {
			if (force)
				WRITE_ONCE(e->state, target);
			if (e->state != target)
				t->pending++;
		}
	}
out:
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return ret;
}

/**
 * klpc_tasks_start() - let tasks move to the target state
 */
void klpc_tasks_start(void)
{
	struct klpc_table *t;
	unsigned long flags;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t)
		t->started = true;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
}

/**
 * klpc_tasks_pending() - how many tasks have yet to move
 *
 * Return: the count.
 */
unsigned int klpc_tasks_pending(void)
{
	struct klpc_table *t;
	unsigned long flags;
	unsigned int pending;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	pending = t ? t->pending : 0;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return pending;
}

/**
 * klpc_tasks_collect() - take references on the tasks that have to move
 * @nr:	set to the number of tasks returned
 *
 * Return: a kvmalloc'ed array of referenced tasks, or NULL.
 */
struct task_struct **klpc_tasks_collect(unsigned int *nr)
{
	struct task_struct **tasks;
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned int i, max;
	unsigned long flags;

	*nr = 0;
	max = klpc_tasks_pending() + 64;
	tasks = kvmalloc_array(max, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return NULL;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	for (i = 0; t && i < (1U << t->bits); i++) {
		hlist_for_each_entry(e, &t->heads[i], node) {
			if (e->state == t->target || *nr == max)
				continue;
			get_task_struct(e->task);
			tasks[(*nr)++] = e->task;
		}
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return tasks;
}

/**
 * klpc_task_set_blocker() - remember why a task could not move
 * @task:	the task
 * @why:	a static string or the name of a patched function
 */
void klpc_task_set_blocker(struct task_struct *task, const char *why)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;

	spin_lock_irqsave(&klpc_table_lock, flags);
	e = klpc_task_find_locked(task, &t);
	if (e)
		e->blocker = why;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
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
	struct hlist_node *tmp;
	struct klpc_task *e;
	unsigned int i;

	if (!dead)
		return;
	klpc_synchronize();
	llist_for_each_entry_safe(t, next, dead, free_node) {
		for (i = 0; i < (1U << t->bits); i++)
			hlist_for_each_entry_safe(e, tmp, &t->heads[i], node)
				kfree(e);
		kvfree(t);
	}
}

static const char *klpc_state_name(int state)
{
	return state == KLPC_PATCHED ? "patched" : "unpatched";
}

/**
 * klpc_tasks_show() - list the tasks that have yet to move
 * @m:	the seq_file of /proc/klpc/tasks
 *
 * One line per task: pid, comm, its patch state, and what blocks it.
 */
void klpc_tasks_show(struct seq_file *m)
{
	struct klpc_table *t;
	struct klpc_task *e;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	for (i = 0; t && i < (1U << t->bits); i++) {
		hlist_for_each_entry(e, &t->heads[i], node) {
			if (e->state == t->target)
				continue;
			seq_printf(m, "%d %s %s %s\n", e->pid, e->task->comm,
				   klpc_state_name(e->state),
				   e->blocker ? e->blocker : "-");
		}
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
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
		st->pending = t->pending;
		st->buckets = 1U << t->bits;
	}
	memcpy(st->moves, t ? t->moves : klpc_last_moves, sizeof(st->moves));
	spin_unlock_irqrestore(&klpc_table_lock, flags);
}
