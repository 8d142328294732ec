// SPDX-License-Identifier: GPL-2.0
/*
 * stack.c - whether a task's stack lets it move to the target state
 *
 * A task may move when no function it would leave is on its stack: when
 * patching, the version below each func of the patch (an older patch or the
 * original); when unpatching, the func itself.  Their address ranges are
 * rebuilt under klpc_mutex and published by RCU, as the resume works of
 * hooks.c check their task's own stack without the mutex.  Each set of
 * ranges records the target it was built for: a task checked against one
 * target does not move after a reversal to the other.
 *
 * A task that is not running is first checked by a scan of the words on
 * its stack (klpc_stack_words_clean()), which is sound on its own and
 * several times cheaper than the unwind that decides when it finds one.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "compat.h"
#include "core.h"
#include "kallsyms.h"
#include "patch.h"
#include "stack.h"
#include "tasks.h"

/*
 * Frames of a stack trace: upstream takes 100; more only costs per-CPU
 * memory, and a deeper stack would read as unreliable for ever.
 */
#define KLPC_MAX_STACK		128

/* an address range a task must not be in to move */
struct klpc_range {
	unsigned long start, end;
	const char *name;
};

/* all of them, sorted, for moving tasks to @target; [@lo, @hi) spans them */
struct klpc_ranges {
	struct rcu_head rcu;
	int target;
	unsigned int nr;
	unsigned long lo, hi;
	struct klpc_range r[];
};

/* rebuilt under klpc_mutex; resume works read it with preemption off */
static struct klpc_ranges __rcu *klpc_ranges;
static DEFINE_PER_CPU(unsigned long [KLPC_MAX_STACK], klpc_stack_buf);

static int klpc_cmp_range(const void *a, const void *b)
{
	const struct klpc_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The version a task leaves: for patching, the one below the func (an
 * older patch or the original); for unpatching, the func's own.
 */
static void klpc_func_range(struct klpc_func *func, int target,
			    struct klpc_range *r)
{
	struct klpc_func *below;

	r->name = func->old_name;
	if (target == KLPC_UNPATCHED) {
		r->start = (unsigned long)func->new_func;
		r->end = r->start + func->new_size;
		return;
	}
	below = klpc_func_below(func);
	if (below) {
		r->start = (unsigned long)below->new_func;
		r->end = r->start + below->new_size;
	} else {
		r->start = (unsigned long)func->old_func;
		r->end = r->start + func->old_size;
	}
}

static void klpc_set_ranges(struct klpc_ranges *rs)
{
	struct klpc_ranges *old;

	old = rcu_replace_pointer(klpc_ranges, rs, lockdep_is_held(&klpc_mutex));
	if (old)
		kvfree_rcu(old, rcu);
}

/**
 * klpc_stack_build() - publish the functions no task may be in to move
 * @patch:	the patch in transition
 * @target:	the state of the transition
 *
 * Called with klpc_mutex held at the first check round of a transition,
 * when it reverses, and when it patches or unpatches a module.  Ranges
 * that miss a function could let a task move too early, so on failure
 * there are none, and no task moves until a later call succeeds.
 *
 * Return: 0 or -ENOMEM.
 */
int klpc_stack_build(struct klpc_patch *patch, int target)
{
	struct klpc_object *obj;
	struct klpc_func *func;
	struct klpc_ranges *rs;
	unsigned int nr = 0;

	klpc_for_each_object(patch, obj)
		if (obj->patched)
			klpc_for_each_func(obj, func)
				nr++;
	rs = kvmalloc(struct_size(rs, r, max(nr, 1U)), GFP_KERNEL);
	if (!rs) {
		klpc_stack_clear();
		return -ENOMEM;
	}
	rs->target = target;
	rs->nr = 0;
	klpc_for_each_object(patch, obj)
		if (obj->patched)
			klpc_for_each_func(obj, func)
				klpc_func_range(func, target, &rs->r[rs->nr++]);
	sort(rs->r, rs->nr, sizeof(rs->r[0]), klpc_cmp_range, NULL);
	rs->lo = rs->nr ? rs->r[0].start : 0;
	rs->hi = 0;
	for (nr = 0; nr < rs->nr; nr++)
		rs->hi = max(rs->hi, rs->r[nr].end);
	klpc_set_ranges(rs);
	return 0;
}

/**
 * klpc_stack_published() - whether ranges are published
 *
 * Called with klpc_mutex held.
 *
 * Return: false before the first build of a transition and after a
 * failed one.
 */
bool klpc_stack_published(void)
{
	return rcu_access_pointer(klpc_ranges);
}

/**
 * klpc_stack_clear() - no transition: no task may move
 *
 * Called with klpc_mutex held.
 */
void klpc_stack_clear(void)
{
	klpc_set_ranges(NULL);
}

static const struct klpc_range *klpc_find_range(const struct klpc_ranges *rs,
						unsigned long addr)
{
	unsigned int lo = 0, hi = rs->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < rs->r[mid].start)
			hi = mid;
		else if (addr >= rs->r[mid].end)
			lo = mid + 1;
		else
			return &rs->r[mid];
	}
	return NULL;
}

/*
 * Whether a task's stack holds a function it must not be in to move; if so
 * @why says which, or why the stack cannot tell.  The task is current, or
 * cannot run (task_call_func()); either way preemption is off, which keeps
 * the per-CPU buffer ours.
 */
static bool klpc_stack_blocks(struct task_struct *task,
			      const struct klpc_ranges *rs, const char **why)
{
	unsigned long *entries = this_cpu_ptr(klpc_stack_buf);
	const struct klpc_range *r;
	int i, nr;

	nr = klpc_ksyms.stack_trace_save_tsk_reliable(task, entries,
						       KLPC_MAX_STACK);
	if (nr < 0) {
		*why = "unreliable stack";
		return true;
	}
	for (i = 0; i < nr; i++) {
		r = klpc_find_range(rs, entries[i]);
		if (r) {
			*why = r->name;
			return true;
		}
	}
	return false;
}

/*
 * Whether the unwinder would find return addresses that are not on the
 * stack: the function graph tracer and rethook (kretprobes, fprobe exits)
 * replace a return address with their trampoline's and keep the real one
 * in the task, where only the unwinder looks.
 */
static bool klpc_stack_hides_returns(struct task_struct *task)
{
	if (klpc_fgraph_holds_returns(task))
		return true;
#ifdef CONFIG_KRETPROBES
	if (!llist_empty(&task->kretprobe_instances))
		return true;
#endif
#ifdef CONFIG_RETHOOK
	if (!llist_empty(&task->rethooks))
		return true;
#endif
	return false;
}

/*
 * Whether no word of a task's stack falls in a range.  A task that cannot
 * run keeps every return address of its frames, and the ip of any
 * interrupt or exception it was stopped in, on its stack, between its
 * saved stack pointer and the registers saved at the top of the stack on
 * entry from user space (task_pt_regs(), where the unwinder stops too):
 * those hold user state, and skipping their 21 words saves a fifth of a
 * sleeper's scan.  If none of the words scanned is in
 * a function a task must leave, no frame can be in one, whatever the
 * unwinder would make of the stack, so the task may move without an
 * unwind, which costs several times more.  A word that is in one may be a
 * stale value or a return address: only the unwind can tell, and decides.
 * Words are read unchecked: KASAN poisons parts of a live stack.
 */
static bool klpc_stack_words_clean(struct task_struct *task,
				   const struct klpc_ranges *rs)
{
	unsigned long *sp, *end, *base, w;
	bool clean = true;

	if (klpc_stack_hides_returns(task))
		return false;
	base = try_get_task_stack(task);
	if (!base)
		return false;
	end = (unsigned long *)task_pt_regs(task);
	sp = (unsigned long *)READ_ONCE(task->thread.sp);
	if (sp < base || sp >= end) {
		clean = false;
		goto out;
	}
	for (; sp < end; sp++) {
		w = READ_ONCE_NOCHECK(*sp);
		if (w >= rs->lo && w < rs->hi && klpc_find_range(rs, w)) {
			clean = false;
			break;
		}
	}
out:
	klpc_ksyms.put_task_stack(task);
	return clean;
}

struct klpc_check {
	const struct klpc_ranges *rs;
	const char *why;
};

/*
 * Runs with the task unable to run (task_call_func() holds its rq lock),
 * so a clean stack cannot change before the task moves.
 */
static int klpc_check_and_switch(struct task_struct *task, void *arg)
{
	struct klpc_check *c = arg;

	if (task != current && klpc_ksyms.task_curr(task)) {
		c->why = "running";
		return -EBUSY;
	}
	/* current's saved stack pointer is stale: only the unwind knows */
	if (task != current && klpc_stack_words_clean(task, c->rs)) {
		klpc_task_switch_to(task, c->rs->target, KLPC_MOVER_SCAN);
		return 0;
	}
	if (klpc_stack_blocks(task, c->rs, &c->why))
		return -EBUSY;
	klpc_task_switch_to(task, c->rs->target, KLPC_MOVER_STACK);
	return 0;
}

/**
 * klpc_stack_try_switch() - move a task that is not running, if its stack
 * allows
 * @task:	the task, with a reference held
 *
 * If it cannot move, what blocks it is recorded for /proc/klpc/tasks.
 *
 * Return: true if the stack was checked and did not block the task, which
 * then is in the target state; false if it still may have to move.
 */
bool klpc_stack_try_switch(struct task_struct *task)
{
	struct klpc_check c = { };
	bool clean = false;

	rcu_read_lock();
	c.rs = rcu_dereference(klpc_ranges);
	if (c.rs) {
		clean = !klpc_ksyms.task_call_func(task, klpc_check_and_switch,
						   &c);
		if (!clean)
			klpc_task_set_blocker(task, c.why);
	}
	rcu_read_unlock();
	return clean;
}

/**
 * klpc_stack_check_current() - move current if its stack allows
 *
 * Called by the resume work (hooks.c) in the task's own context.
 *
 * Return: true if it was the last task to move.
 */
bool klpc_stack_check_current(void)
{
	const struct klpc_ranges *rs;
	const char *why;
	bool last = false;

	preempt_disable();
	rs = rcu_dereference_sched(klpc_ranges);
	if (rs && !klpc_stack_blocks(current, rs, &why))
		last = klpc_task_switch_to(current, rs->target,
					   KLPC_MOVER_RESUME);
	preempt_enable();
	return last;
}

