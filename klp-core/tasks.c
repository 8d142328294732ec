// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the per-task patch state ("universe") during a transition
 *
 * The built-in livepatch keeps a task's patch state in task_struct; a
 * module cannot add a field there, so klpc keeps it in a hash table that
 * exists only while a transition is in progress.  Every task alive when
 * the transition starts gets an entry, and so does every task created
 * during it; an entry goes when its task is freed.
 *
 * The table is keyed by the task_struct's address, the one thing about a
 * task that never changes while it lives: a pid does (an exec from a
 * non-leader thread swaps the pids of the exec'ing thread and the old
 * leader), and the struct cannot be reused while an entry points to it,
 * as the entry goes before the final put.
 *
 * The ftrace handler reads the table without locks, with preemption off
 * and possibly where RCU is not watching.  Writers take klpc_table_lock
 * with interrupts off (the free hook runs in an RCU callback, the wake-up
 * hook under a runqueue lock).  Entries are therefore never freed, nor
 * reused, while the table is published, except after klpc_synchronize():
 * an unlinked entry waits on a dead list until the table goes or until a
 * check round recycles a batch of them.
 *
 * Entries come from a pool filled before the table is published, so that
 * the walk that fills the table and the hooks that add new tasks never
 * allocate in the common case.  A task that cannot get an entry makes the
 * table "lost": its state is known only as "the target", so the
 * transition can no longer start (enabling fails) or be reversed.
 *
 * klpc_walk_threads(), at the end, is the walk of every thread that fills
 * the table and that the hooks use to cancel their works.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "core.h"
#include "kallsyms.h"
#include "table.h"
#include "tasks.h"

struct klpc_table __rcu *klpc_table;
DEFINE_SPINLOCK(klpc_table_lock);
/* what a handler still in a finished transition answers */
int klpc_last_target = KLPC_UNDEFINED;

static struct klpc_task *klpc_task_find(struct klpc_table *t,
					struct task_struct *task)
{
	struct klpc_task *e;

	hlist_for_each_entry_rcu_notrace(e, klpc_bucket(t, task), node)
		if (e->task == task)
			return e;
	return NULL;
}

/* With klpc_table_lock held: the table (or NULL) and the task's entry. */
static struct klpc_task *klpc_task_find_locked(struct task_struct *task,
					       struct klpc_table **tp)
{
	lockdep_assert_held(&klpc_table_lock);
	*tp = klpc_table_locked();
	return *tp ? klpc_task_find(*tp, task) : NULL;
}

/* The state of a task without an entry: see the comment at the top. */
static int klpc_missing_state(struct klpc_table *t)
{
	return READ_ONCE(t->started) ? READ_ONCE(t->target) : t->initial;
}

/**
 * klpc_task_patch_state() - the patch state a task runs in
 * @task:	the task, usually current
 *
 * Called from the ftrace handler, in any context, for a func in transition.
 * A handler that read a func just before its transition ended finds no
 * table: every task was in the final state by then.
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
	return e ? READ_ONCE(e->state) : klpc_missing_state(t);
}

static void klpc_task_insert(struct klpc_table *t, struct klpc_task *e,
			     struct task_struct *task, int state)
{
	e->task = task;
	e->state = state;
	e->blocker = NULL;
	e->resume = NULL;
	hlist_add_head_rcu(&e->node, klpc_bucket(t, task));
	t->nr++;
	t->in_state[state]++;
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
	t->in_state[e->state]--;
	t->in_state[t->target]++;
	WRITE_ONCE(e->state, t->target);
	e->blocker = NULL;
	t->moves[who]++;
	return !klpc_table_pending(t);
}

/*
 * An entry of its own for a task that finds the pool empty, allocated
 * outside klpc_table_lock (an allocation may wake kswapd) and without
 * sleeping (@gfp): the fork hook runs in a tracepoint, the walk under
 * rcu_read_lock().  Return: NULL if the pool has entries, or on failure.
 */
static struct klpc_task *klpc_task_spare(struct klpc_table *t, gfp_t gfp)
{
	struct klpc_task *e;

	if (READ_ONCE(t->pool_nr))
		return NULL;
	e = kmalloc(sizeof(*e), gfp | __GFP_NOWARN);
	if (e)
		e->dynamic = true;
	return e;
}

/*
 * Give a task an entry in the initial state, unless a hook gave it one
 * already.  The fork hook takes its entries from the same pool, and the
 * entry of a child that exits at once stays dead until the first check
 * round: a fork storm while the walk runs (which yields the CPU every
 * KLPC_WALK_BATCH tasks) can empty the pool, and then an entry is
 * allocated, as that hook does.  Called with klpc_mutex held.
 * Return: 0, or -EAGAIN if the pool ran out and no entry could be had.
 */
static int klpc_tasks_add(struct task_struct *task)
{
	struct klpc_table *t = klpc_table_locked();
	struct klpc_task *e;
	unsigned long flags;
	int ret = 0;

	if (!t)
		return 0;
	e = klpc_task_spare(t, GFP_NOWAIT);
	spin_lock_irqsave(&klpc_table_lock, flags);
	if (!klpc_task_find(t, task)) {
		if (!e)
			e = klpc_pool_get(t);
		if (e)
			klpc_task_insert(t, e, task, t->initial);
		else
			ret = -EAGAIN;
		e = NULL;
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	kfree(e);
	return ret;
}

/*
 * Give a new task an entry in the state of the task that created it,
 * whose stack it copied.  A creator not in the table yet is in the
 * initial state (the walk will add it), unless the table is lost.
 */
static bool klpc_task_add_child(struct klpc_table *t, struct klpc_task *e,
				struct task_struct *parent,
				struct task_struct *child)
{
	struct klpc_task *pe;

	if (klpc_task_find(t, child))
		return false;
	if (!e)
		e = klpc_pool_get(t);
	if (!e) {
		t->lost = true;
		return false;
	}
	pe = klpc_task_find(t, parent);
	klpc_task_insert(t, e, child, pe ? pe->state : klpc_missing_state(t));
	return true;
}

/**
 * klpc_task_fork() - a new task inherits its parent's patch state
 * @parent:	the forking task
 * @child:	the new task, not yet runnable
 *
 * Called from sched_process_fork, where allocating is allowed: if the pool
 * is empty, an entry is allocated (GFP_ATOMIC).
 */
void klpc_task_fork(struct task_struct *parent, struct task_struct *child)
{
	struct klpc_task *e = NULL;
	struct klpc_table *t;
	unsigned long flags;

	/*
	 * The probe is always attached.  A table published after this check
	 * is filled by a walk of the task list, where the child already is.
	 */
	t = rcu_dereference_sched(klpc_table);
	if (!t)
		return;
	e = klpc_task_spare(t, GFP_ATOMIC);

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t && klpc_task_add_child(t, e, parent, child))
		e = NULL;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	kfree(e);
}

/**
 * klpc_task_woken_new() - a new task is about to run for the first time
 * @task:	the task, whose runqueue is locked
 *
 * Called from sched_wakeup_new, which sees every new task, also those
 * created without sched_process_fork (io_uring workers, create_io_thread()).
 * It inherits the state of current, which created it.  No allocation
 * here, under a runqueue lock: the entry comes from the pool.
 */
void klpc_task_woken_new(struct task_struct *task)
{
	struct klpc_table *t;

	if (!rcu_access_pointer(klpc_table))
		return;
	spin_lock(&klpc_table_lock);
	t = klpc_table_locked();
	if (t)
		klpc_task_add_child(t, NULL, current, task);
	spin_unlock(&klpc_table_lock);
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
	if (e && (target == KLPC_UNDEFINED || target == t->target) &&
	    !(who == KLPC_MOVER_EXIT && t->exit_stays))
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
 * The entry is unlinked, not freed: a handler may still walk over it.
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
		t->in_state[e->state]--;
		last = e->state != t->target && t->started &&
		       !klpc_table_pending(t);
		hlist_del_rcu(&e->node);
		t->nr--;
		e->next = t->dead;
		t->dead = e;
		t->dead_nr++;
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return last;
}

/**
 * klpc_tasks_set_target() - reverse the transition, or force it
 * @target:	the new target state
 * @force:	every task is to be taken as in @target; the caller ends the
 *		transition next, and the table goes with it
 *
 * Tasks already in @target stay; the others now have to move.  The counts
 * per state make this O(1): no walk of the table with interrupts off.
 *
 * Return: 0, or -ENOMEM if a reversal is refused because some task has no
 * entry and would silently change state.
 */
int klpc_tasks_set_target(int target, bool force)
{
	struct klpc_table *t;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t && t->lost && !force) {
		ret = -ENOMEM;
	} else if (t) {
		WRITE_ONCE(t->target, target);
		WRITE_ONCE(klpc_last_target, target);
	}
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return ret;
}

/**
 * klpc_tasks_target() - the state the tasks of the transition move to
 *
 * The table holds the one copy of the target, as the ftrace handler reads
 * it there without locks; klpc_tasks_set_target() changes it.  Called
 * with klpc_mutex held, under which the table stays and its target only
 * changes by the caller's own hand.
 *
 * Return: KLPC_PATCHED or KLPC_UNPATCHED; KLPC_UNDEFINED without a table.
 */
int klpc_tasks_target(void)
{
	struct klpc_table *t;

	lockdep_assert_held(&klpc_mutex);
	t = klpc_table_locked();
	return t ? READ_ONCE(t->target) : KLPC_UNDEFINED;
}

/**
 * klpc_tasks_start() - let tasks move to the target state
 * @refuse_lost:	do not start if some task has no entry
 *
 * A task created since the table was filled that got no entry would now
 * flip from the initial to the target state without a check.
 *
 * Return: 0, or -ENOMEM if @refuse_lost and some task has no entry.
 */
int klpc_tasks_start(bool refuse_lost)
{
	struct klpc_table *t;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&klpc_table_lock, flags);
	t = klpc_table_locked();
	if (t && t->lost && refuse_lost)
		ret = -ENOMEM;
	else if (t)
		WRITE_ONCE(t->started, true);
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return ret;
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
	pending = t ? klpc_table_pending(t) : 0;
	spin_unlock_irqrestore(&klpc_table_lock, flags);
	return pending;
}

/*
 * Buckets collected per hold of klpc_table_lock: taking it for each of
 * 16,384 buckets cost as much as the references, and a run of 64 (about
 * 40 entries) keeps interrupts off for only microseconds.
 */
#define KLPC_COLLECT_BUCKETS	64

/* Take references on the pending tasks of one bucket; false when full. */
static bool klpc_collect_bucket(struct klpc_table *t, unsigned int i,
				struct task_struct **tasks, unsigned int *nr,
				unsigned int max)
{
	struct klpc_task *e;

	hlist_for_each_entry(e, &t->heads[i], node) {
		if (e->state == t->target)
			continue;
		if (*nr == max)
			return false;
		get_task_struct(e->task);
		tasks[(*nr)++] = e->task;
	}
	return true;
}

/**
 * klpc_tasks_collect() - take references on the tasks that have to move
 * @nr:	set to the number of tasks returned
 *
 * Called with klpc_mutex held, which keeps the table published: the lock
 * is taken for a run of buckets at a time, so interrupts stay off only
 * briefly.
 *
 * Return: a kvmalloc'ed array of referenced tasks, or NULL.
 */
struct task_struct **klpc_tasks_collect(unsigned int *nr)
{
	struct task_struct **tasks;
	struct klpc_table *t;
	unsigned int i, end, max;
	unsigned long flags;
	bool full = false;

	lockdep_assert_held(&klpc_mutex);
	*nr = 0;
	t = klpc_table_locked();
	if (!t)
		return NULL;
	max = klpc_tasks_pending() + 64;
	tasks = kvmalloc_array(max, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return NULL;
	for (i = 0; !full && i < (1U << t->bits);) {
		end = min(i + KLPC_COLLECT_BUCKETS, 1U << t->bits);
		spin_lock_irqsave(&klpc_table_lock, flags);
		for (; !full && i < end; i++)
			full = !klpc_collect_bucket(t, i, tasks, nr, max);
		spin_unlock_irqrestore(&klpc_table_lock, flags);
	}
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

/*
 * How many threads a walk handles per RCU read-side section: between two,
 * the CPU may reschedule.  The built-in livepatch walks every task under
 * tasklist_lock with preemption off; with 10,000 tasks that held a CPU
 * for tens of milliseconds under TCG.
 */
#define KLPC_WALK_BATCH		128

/*
 * Take a break in a walk of the thread list: rescheduling is allowed, and
 * the walk can go on only if both tasks it holds are still listed (as
 * hung_task.c does).
 */
static bool klpc_walk_break(struct task_struct *g, struct task_struct *t)
{
	bool alive;

	get_task_struct(g);
	get_task_struct(t);
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	alive = pid_alive(g) && pid_alive(t);
	put_task_struct(t);
	put_task_struct(g);
	return alive;
}

/**
 * klpc_walk_threads() - call a function on every thread, yielding the CPU
 * @fn:		the function; a non-zero return stops the walk
 * @arg:	its argument
 *
 * A walk that cannot go on after a break starts again, so @fn may see a
 * thread twice; after three restarts the walk takes no more breaks.
 *
 * Return: what @fn returned last.
 */
int klpc_walk_threads(int (*fn)(struct task_struct *t, void *arg), void *arg)
{
	struct task_struct *g, *t;
	unsigned int n = 0, restarts = 0;
	int ret = 0;

	rcu_read_lock();
restart:
	for_each_process_thread(g, t) {
		ret = fn(t, arg);
		if (ret)
			goto out;
		if (++n % KLPC_WALK_BATCH || restarts >= 3 ||
		    klpc_walk_break(g, t))
			continue;
		restarts++;
		goto restart;
	}
out:
	rcu_read_unlock();
	return ret;
}

/*
 * The tasks the walk that filled the table saw, each referenced, for the
 * first check round: collecting them from the table again cost that round
 * 4-6 ms at 10,000 tasks under TCG (a lock and a reference per bucket and
 * task), against a reference taken where the walk reads the task anyway.
 * Only used with klpc_mutex held.
 */
static struct task_struct **klpc_seen;
static unsigned int klpc_seen_nr, klpc_seen_max;

static void klpc_seen_release(void)
{
	while (klpc_seen_nr)
		put_task_struct(klpc_seen[--klpc_seen_nr]);
	kvfree(klpc_seen);
	klpc_seen = NULL;
}

static int klpc_populate_one(struct task_struct *t, void *arg)
{
	int ret = klpc_tasks_add(t);

	if (ret)
		return ret;
	/* no list, or more tasks than counted: the first round collects */
	if (!klpc_seen || klpc_seen_nr == klpc_seen_max) {
		*(bool *)arg = true;
		return 0;
	}
	get_task_struct(t);
	klpc_seen[klpc_seen_nr++] = t;
	return 0;
}

/**
 * klpc_tasks_populate() - give every task alive now an entry
 * @nr_tasks:	how many tasks the table was sized for
 *
 * The fork and wake-up hooks are attached already, so a task that is not
 * on the task list yet gets its entry from them; a task seen here cannot
 * be freed before the walk moves on (RCU), so the free hook removes its
 * entry afterwards.  The entries come from the pool klpc_tasks_alloc()
 * filled (unless forks empty it, see klpc_tasks_add()): nothing else is
 * allocated but the list of the tasks seen, which the first check round
 * takes (klpc_tasks_take_seen()); without it, that round collects them
 * from the table.
 *
 * Return: 0, or -EAGAIN if a task could get no entry (klpc_tasks_retire()
 * then drops the entries given).
 */
int klpc_tasks_populate(unsigned int nr_tasks)
{
	bool missed = false;
	int cpu, ret;

	lockdep_assert_held(&klpc_mutex);
	klpc_seen_release();
	klpc_seen = kvmalloc_array(nr_tasks, sizeof(*klpc_seen),
				   GFP_KERNEL | __GFP_NOWARN);
	klpc_seen_max = nr_tasks;
	ret = klpc_walk_threads(klpc_populate_one, &missed);
	for_each_possible_cpu(cpu) {
		if (ret)
			break;
		ret = klpc_populate_one(klpc_ksyms.idle_task(cpu), &missed);
	}
	if (ret || missed)
		klpc_seen_release();
	return ret;
}

/**
 * klpc_tasks_take_seen() - the tasks the table was filled with
 * @nr:	set to their number
 *
 * Tasks that moved since are among them; a check of such a task moves
 * nothing.  A task the walk saw twice (it restarts after a break that
 * lost its place) is there twice.
 *
 * Return: a kvmalloc'ed array of referenced tasks, or NULL if the walk's
 * list was taken already, or could not be kept.
 */
struct task_struct **klpc_tasks_take_seen(unsigned int *nr)
{
	struct task_struct **tasks = klpc_seen;

	lockdep_assert_held(&klpc_mutex);
	*nr = klpc_seen_nr;
	klpc_seen = NULL;
	klpc_seen_nr = 0;
	return tasks;
}

/* Drop the list of klpc_tasks_populate() if no check round took it. */
void klpc_tasks_drop_seen(void)
{
	lockdep_assert_held(&klpc_mutex);
	klpc_seen_release();
}
