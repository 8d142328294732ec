// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - where tasks move during a transition
 *
 * - a task work queued on each user task that is still to move: it runs
 *   in the task's own context on its way back to user space, where no
 *   kernel function is left on its stack.  A CPU-bound user task gets
 *   there at its next interrupt.  Queuing one is a cmpxchg on the task,
 *   so nothing is attached to the return to user space, during a
 *   transition or outside one, and no kernel text is patched.  The
 *   callback still checks the task's stack: works also run inside
 *   get_signal(), io_uring waits and do_exit(), deep in kernel code.
 * - sched_process_fork: a child inherits its parent's state.
 * - sched_wakeup_new: the same for a new task that no fork event announced
 *   (io_uring workers, create_io_thread()); every new task passes there,
 *   with its runqueue locked, before it first runs.
 * - sched_process_exit: the exiting task never returns to its callers.
 * - sched_process_free: the task is gone; its entry goes too.
 *
 * The tracepoint probes stay attached while klpc is loaded: attaching and
 * detaching them patched kernel text six times per transition, and each
 * patching waits for every CPU (three rounds of IPIs), which dominated the
 * start of a transition on a busy machine.  Outside a transition they find
 * no table and return at once (tasks.c); fork, exit and free are far rarer
 * than system calls.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/wait_bit.h>

#include "hooks.h"
#include "kallsyms.h"
#include "stack.h"
#include "tasks.h"
#include "transition.h"

/*
 * Resume works allocated and not yet freed.  A work is freed by its
 * callback, or by whoever cancels it before it runs; klpc cannot unload
 * before the count drops to 0.
 */
static atomic_t klpc_resumes = ATOMIC_INIT(0);
static bool klpc_resumes_used;

static void klpc_resume_free(struct callback_head *cb)
{
	kfree(cb);
	if (atomic_dec_and_test(&klpc_resumes))
		wake_up_var(&klpc_resumes);
}

/*
 * The task work: runs in the task's context, usually on its way to user
 * space (resume_user_mode_work()), with interrupts and preemption enabled.
 * If it does not move the task, the next check round queues another.
 */
static void klpc_resume_fn(struct callback_head *cb)
{
	klpc_task_clear_resume(current, cb);
	if (klpc_stack_check_current())
		klpc_transition_kick();
	klpc_resume_free(cb);
}

/**
 * klpc_resume_queue() - have a user task move on its way to user space
 * @task:	a task that has yet to move, with a reference held
 *
 * Kernel threads never return to user space and are left to the stack
 * checks.  Called from a check round, with klpc_mutex held, so never at
 * the same time as klpc_resume_cancel_all(), which runs between
 * transitions (the next one waits for it).
 */
void klpc_resume_queue(struct task_struct *task)
{
	struct callback_head *cb;

	if (task->flags & PF_KTHREAD || !klpc_task_needs_resume(task))
		return;
	cb = kmalloc(sizeof(*cb), GFP_KERNEL);
	if (!cb)
		return;
	init_task_work(cb, klpc_resume_fn);
	atomic_inc(&klpc_resumes);
	WRITE_ONCE(klpc_resumes_used, true);
	if (!klpc_task_set_resume(task, cb)) {
		klpc_resume_free(cb);
		return;
	}
	/* fails only once the task runs its last works in do_exit() */
	if (task_work_add(task, cb, TWA_RESUME)) {
		klpc_task_clear_resume(task, cb);
		klpc_resume_free(cb);
	}
}

/**
 * klpc_resume_count() - how many resume works are queued or running
 *
 * Return: the count, for /proc/klpc/stats.
 */
unsigned int klpc_resume_count(void)
{
	return atomic_read(&klpc_resumes);
}

static bool klpc_resume_match(struct callback_head *cb, void *data)
{
	return cb->func == klpc_resume_fn;
}

static int klpc_resume_cancel(struct task_struct *t, void *arg)
{
	struct callback_head *cb;

	while ((cb = klpc_ksyms.task_work_cancel_match(t, klpc_resume_match,
						       NULL)))
		klpc_resume_free(cb);
	return 0;
}

/**
 * klpc_resume_cancel_all() - take back the works no task has run yet
 *
 * After a transition: a task that sleeps on would keep its work (and klpc)
 * forever.  A work a task has already taken off its list is not found; its
 * callback frees it, finding no transition to act on.
 */
void klpc_resume_cancel_all(void)
{
	if (atomic_read(&klpc_resumes))
		klpc_walk_threads(klpc_resume_cancel, NULL);
}

static void klpc_fork_probe(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	klpc_task_fork(parent, child);
}

static void klpc_wakeup_new_probe(void *data, struct task_struct *task)
{
	klpc_task_woken_new(task);
}

static void klpc_exit_probe(void *data, struct task_struct *task)
{
	klpc_task_exiting(task);
}

static void klpc_free_probe(void *data, struct task_struct *task)
{
	if (klpc_task_gone(task))
		klpc_transition_kick();
}

static struct klpc_tracepoint {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} klpc_tracepoints[] = {
	{ "sched_process_fork", klpc_fork_probe },
	{ "sched_wakeup_new", klpc_wakeup_new_probe },
	{ "sched_process_exit", klpc_exit_probe },
	{ "sched_process_free", klpc_free_probe },
};

static void klpc_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(klpc_tracepoints); i++)
		if (!strcmp(tp->name, klpc_tracepoints[i].name))
			klpc_tracepoints[i].tp = tp;
}

static void klpc_detach_tracepoints(int n)
{
	while (--n >= 0)
		tracepoint_probe_unregister(klpc_tracepoints[n].tp,
					    klpc_tracepoints[n].probe, NULL);
}

/*
 * The probes run with preemption disabled and find no table outside a
 * transition; the table they may still look at after one is freed after
 * klpc_synchronize() (see klpc_tasks_reap()).
 */
static int klpc_attach_tracepoints(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(klpc_tracepoints); i++) {
		ret = tracepoint_probe_register(klpc_tracepoints[i].tp,
						klpc_tracepoints[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to tracepoint '%s' (%d)\n",
			       klpc_tracepoints[i].name, ret);
			klpc_detach_tracepoints(i);
			return ret;
		}
	}
	return 0;
}

/**
 * klpc_hooks_init() - attach the tracepoints
 *
 * Return: 0, or an error with a message naming what is missing and
 * nothing attached.
 */
int klpc_hooks_init(void)
{
	int i;

	for_each_kernel_tracepoint(klpc_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(klpc_tracepoints); i++) {
		if (!klpc_tracepoints[i].tp) {
			pr_err("tracepoint '%s' not found\n",
			       klpc_tracepoints[i].name);
			return -ENOENT;
		}
	}
	return klpc_attach_tracepoints();
}

/**
 * klpc_hooks_exit() - remove the tracepoint probes; wait for running probes
 * and for the callbacks of resume works
 *
 * No transition is in progress, and the works of the last one were
 * cancelled by its teardown; a callback that took its work off its task's
 * list may still run.
 */
void klpc_hooks_exit(void)
{
	klpc_detach_tracepoints(ARRAY_SIZE(klpc_tracepoints));
	tracepoint_synchronize_unregister();
	klpc_resume_cancel_all();
	wait_var_event(&klpc_resumes, !atomic_read(&klpc_resumes));
	/* a callback may still be between freeing its work and its return */
	if (READ_ONCE(klpc_resumes_used))
		synchronize_rcu_tasks();
}
