// SPDX-License-Identifier: GPL-2.0
/*
 * transition.c - the per-task consistency model
 *
 * A transition starts when a patch is enabled or disabled and completes
 * when every task runs the target version of the patched functions.  While
 * it is in progress the funcs of the patch are marked as in transition and
 * the ftrace handler gives each task the version of its own patch state
 * ("universe"), kept in the table of tasks.c.
 *
 * A task moves to the target state only when no function being patched or
 * unpatched is on its stack:
 * - on its way back to user space, from a task work that each user task
 *   still to move gets at every check round (hooks.c); it checks the
 *   stack too, as task works also run deep in the kernel;
 * - when it sleeps and its reliable stack trace holds none of them, checked
 *   here; an idle task is checked from a work item on its own CPU, the only
 *   place where it is not running;
 * - when it exits (hooks.c): do_exit() never returns to its callers;
 * - a new task starts in its parent's state.
 * The transition completes as soon as the last task moves (the mover kicks
 * the work below); retries with a growing delay are only a safety net.
 *
 * Every check round, the first included, runs in that work, queued on the
 * high-priority workqueue: the stack checks of a round take a few
 * microseconds per task, and at the priority of the writer to 'enabled'
 * (or of insmod) a CPU-bound task sharing its CPU stretched a round of
 * 1,300 tasks from 13 to 76 ms under TCG.  The built-in livepatch gets the
 * same effect by checking every task with tasklist_lock held, preemption
 * off; a high-priority worker stays preemptible.  The writer (or insmod)
 * waits for the first round, as the built-in's runs in its context.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "access.h"
#include "core.h"
#include "hooks.h"
#include "kallsyms.h"
#include "patch.h"
#include "replace.h"
#include "stack.h"
#include "tasks.h"
#include "transition.h"

/* the parameters change how klpc treats tasks: writers need CAP_SYS_MODULE */
static int klpc_param_set_secs(const char *val, const struct kernel_param *kp)
{
	int ret = klpc_may_write(NULL, kp->name);

	return ret ? ret : param_set_uint(val, kp);
}

static const struct kernel_param_ops klpc_param_secs_ops = {
	.set	= klpc_param_set_secs,
	.get	= param_get_uint,
};

static unsigned int stall_reverse_secs;
module_param_cb(stall_reverse_secs, &klpc_param_secs_ops, &stall_reverse_secs,
		0644);
__MODULE_PARM_TYPE(stall_reverse_secs, "uint");
MODULE_PARM_DESC(stall_reverse_secs,
		 "reverse a transition still stalled after this many seconds (0: never)");

static unsigned int signal_secs = 15;
module_param_cb(signal_secs, &klpc_param_secs_ops, &signal_secs, 0644);
__MODULE_PARM_TYPE(signal_secs, "uint");
MODULE_PARM_DESC(signal_secs,
		 "send the tasks blocking a transition a fake signal every this many seconds (0: never)");

#define KLPC_REPORT_INTERVAL	(10 * HZ)
#define KLPC_RETRY_MIN_MS	10
#define KLPC_RETRY_MAX_MS	1000

/* how a transition ended: what /proc/klpc/transition shows as last_end */
enum klpc_transition_end {
	KLPC_END_NONE,		/* none has ended yet */
	KLPC_END_COMPLETE,	/* every task moved */
	KLPC_END_REVERSED,	/* every task moved, after a reversal */
	KLPC_END_FORCED,	/* 'force' moved the tasks left */
	KLPC_END_CANCELLED,	/* enabling failed before it started */
};

static const char * const klpc_end_names[] = {
	[KLPC_END_NONE]		= "-",
	[KLPC_END_COMPLETE]	= "complete",
	[KLPC_END_REVERSED]	= "reversed",
	[KLPC_END_FORCED]	= "forced",
	[KLPC_END_CANCELLED]	= "cancelled",
};

/*
 * The patch in transition stays a global of its own, as upstream's
 * klp_transition_patch: other files test it, sysfs.c and
 * klpc_transition_wait() without klpc_mutex.  Written with klpc_mutex
 * held, WRITE_ONCE() for those readers.
 */
struct klpc_patch *klpc_transition_patch;

/**
 * struct klpc_transition - the transition in progress, and how the last ended
 * @started:		jiffies when klpc_init_transition() set it up
 * @last_report:	jiffies of the last "still blocking" line
 * @last_signals:	jiffies of the last round of fake signals
 * @retry_ms:		delay before the next check round, doubled at each
 *			retry up to KLPC_RETRY_MAX_MS
 * @stall_reversed:	reversed after a stall (stall_reverse_secs): only once
 * @reversed:		reversed since it started, by a write to 'enabled' or
 *			after a stall
 * @last_name:		the patch of the last transition that ended
 * @last_end:		how that one ended, for /proc/klpc/transition
 *
 * Every field is read and written with klpc_mutex held: by the paths that
 * set a transition up, start, reverse or force it (under the mutex their
 * callers take), by the check rounds of klpc_transition_work_fn() and by
 * klpc_transition_show().  klpc_init_transition() sets the fields up to
 * @reversed for each transition; klpc_end_transition() sets the last two.
 * The patch is klpc_transition_patch above, and the target state is the
 * task table's (klpc_tasks_target()): tasks.c must have it, as the ftrace
 * handler reads it there without locks.
 */
struct klpc_transition {
	unsigned long started;
	unsigned long last_report;
	unsigned long last_signals;
	unsigned int retry_ms;
	bool stall_reversed;
	bool reversed;
	char last_name[MODULE_NAME_LEN];
	enum klpc_transition_end last_end;
};

static struct klpc_transition klpc_transition;
static DEFINE_PER_CPU(struct work_struct, klpc_idle_work);
/* woken when a transition ends */
static DECLARE_WAIT_QUEUE_HEAD(klpc_transition_wq);

static void klpc_transition_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(klpc_transition_work, klpc_transition_work_fn);
static void klpc_teardown_fn(struct work_struct *work);
static DECLARE_WORK(klpc_teardown_work, klpc_teardown_fn);

static const char *klpc_state_verb(int state)
{
	return state == KLPC_PATCHED ? "patching" : "unpatching";
}

/**
 * klpc_transition_kick() - have the transition work check for completion
 *
 * Any context but NMI; called when a transition starts or reverses, and
 * when the last pending task moves.
 */
void klpc_transition_kick(void)
{
	mod_delayed_work(system_highpri_wq, &klpc_transition_work, 0);
}

/**
 * klpc_task_exiting() - a task reached do_exit()
 * @task:	current
 *
 * It never returns to its callers, so unless do_exit() itself is being
 * patched nothing on its stack can mix versions: it may move.  Whether
 * do_exit() is being patched comes with the table (klpc_tasks_alloc()),
 * not from a flag read apart from it: a hook that read the previous
 * transition's flag could move a task in the old do_exit() during a patch
 * of do_exit().
 */
void klpc_task_exiting(struct task_struct *task)
{
	if (klpc_task_switch(task))
		klpc_transition_kick();
}

/**
 * klpc_transition_refresh() - a module was patched or unpatched in a
 * transition
 *
 * Called with klpc_mutex held: the functions a task must not be in to
 * move changed with it.
 */
void klpc_transition_refresh(void)
{
	if (klpc_transition_patch)
		klpc_stack_build(klpc_transition_patch, klpc_tasks_target());
}

/* On its own CPU, an idle task is not running while this work runs. */
static void klpc_idle_work_fn(struct work_struct *work)
{
	klpc_stack_try_switch(klpc_ksyms.idle_task(raw_smp_processor_id()));
}

/*
 * is_idle_task() tests PF_IDLE, which an idle task only gets once its CPU
 * first comes online: that of a CPU that never did is an idle task too.
 */
static bool klpc_is_idle(struct task_struct *task)
{
	/* init_idle() makes every idle task a kernel thread */
	if (!(task->flags & PF_KTHREAD))
		return false;
	return is_idle_task(task) ||
	       task == klpc_ksyms.idle_task(task_cpu(task));
}

/*
 * The idle task of an offline CPU moves at once: when the CPU comes back,
 * its idle task starts on a fresh stack (the built-in livepatch moves them
 * at once too).  The caller holds cpus_read_lock().  Other idle tasks are
 * checked from a work on their own CPU, the only place where they do not
 * run, unless they happen not to run now.
 */
static void klpc_check_idle(struct task_struct *task, cpumask_t *idle_cpus)
{
	int cpu = task_cpu(task);

	if (cpu_online(cpu)) {
		if (klpc_ksyms.task_curr(task))
			cpumask_set_cpu(cpu, idle_cpus);
		else
			klpc_stack_try_switch(task);
		return;
	}
	/* the lockless part of the lookup wants preemption off */
	preempt_disable();
	klpc_task_switch_to(task, klpc_tasks_target(), KLPC_MOVER_STACK);
	preempt_enable();
}

static void klpc_check_tasks(void)
{
	struct task_struct **tasks, *task;
	unsigned int i, nr;
	cpumask_t idle_cpus;
	int cpu;

	klpc_tasks_refill();
	/* none after a failed build; otherwise kept up to date as they change */
	if (!klpc_stack_published() &&
	    klpc_stack_build(klpc_transition_patch, klpc_tasks_target()))
		return;
	/* the first round takes the tasks the walk that filled the table saw */
	tasks = klpc_tasks_take_seen(&nr);
	if (!tasks)
		tasks = klpc_tasks_collect(&nr);
	if (!tasks)
		return;

	cpumask_clear(&idle_cpus);
	/* no CPU comes or goes between the check of an idle task and its work */
	cpus_read_lock();
	for (i = 0; i < nr; i++) {
		task = tasks[i];
		if (klpc_is_idle(task)) {
			klpc_check_idle(task, &idle_cpus);
		} else {
			/* if it runs, or sleeps in a patched function */
			if (!klpc_stack_try_switch(task))
				klpc_resume_queue(task);
		}
		put_task_struct(task);
		cond_resched();
	}
	kvfree(tasks);

	for_each_cpu(cpu, &idle_cpus)
		queue_work_on(cpu, system_highpri_wq,
			      per_cpu_ptr(&klpc_idle_work, cpu));
	for_each_cpu(cpu, &idle_cpus)
		flush_work(per_cpu_ptr(&klpc_idle_work, cpu));
	cpus_read_unlock();
}

/*
 * The fake signal: the sleeper leaves its wait and restarts its syscall,
 * passing the return to user space.  sighand is freed by RCU and may be
 * swapped while unlocked, hence the re-check under its lock.
 */
static void klpc_fake_signal(struct task_struct *task)
{
	struct sighand_struct *sighand;
	unsigned long flags;

	rcu_read_lock();
	sighand = rcu_dereference(task->sighand);
	if (sighand) {
		spin_lock_irqsave(&sighand->siglock, flags);
		if (rcu_access_pointer(task->sighand) == sighand)
			klpc_ksyms.signal_wake_up_state(task, 0);
		spin_unlock_irqrestore(&sighand->siglock, flags);
	}
	rcu_read_unlock();
}

static void klpc_send_signals(void)
{
	struct task_struct **tasks, *task;
	unsigned int i, nr;

	tasks = klpc_tasks_collect(&nr);
	if (!tasks)
		return;
	for (i = 0; i < nr; i++) {
		task = tasks[i];
		if (task->flags & PF_KTHREAD)
			klpc_ksyms.wake_up_state(task, TASK_INTERRUPTIBLE);
		else if (!is_idle_task(task))
			klpc_fake_signal(task);
		put_task_struct(task);
		cond_resched();
	}
	kvfree(tasks);
}

static void klpc_set_funcs_transition(struct klpc_patch *patch, bool value)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	klpc_for_each_object(patch, obj)
		klpc_for_each_func(obj, func)
			WRITE_ONCE(func->transition, value);
}

static void klpc_post_callbacks(struct klpc_patch *patch, int state)
{
	struct klpc_object *obj;

	klpc_for_each_object(patch, obj) {
		if (!klpc_is_object_loaded(obj))
			continue;
		if (state == KLPC_PATCHED)
			klpc_post_patch_callback(obj);
		else
			klpc_post_unpatch_callback(obj);
	}
}

/*
 * Tear the transition down.  For unpatching, the funcs leave their stacks
 * first.  A handler on another CPU may still have read a func as in
 * transition; it then finds the table gone and answers the final state,
 * which every task is in.  Whatever reads 'transition' as 0 may rely on
 * the patch module being released.  @end is how it ended: the caller
 * knows (a check round, 'force', or enabling that failed); every end but
 * KLPC_END_CANCELLED completes the transition.
 */
static void klpc_end_transition(enum klpc_transition_end end)
{
	struct klpc_patch *patch = klpc_transition_patch;
	int state = klpc_tasks_target();

	lockdep_assert_held(&klpc_mutex);
	cancel_delayed_work(&klpc_transition_work);
	if (state == KLPC_UNPATCHED)
		klpc_unpatch_objects(patch);
	klpc_set_funcs_transition(patch, false);
	if (patch->replace)
		klpc_replace_complete(patch, state);
	klpc_post_callbacks(patch, state);
	/* only now: post_patch takes the replaced patches' states over */
	if (patch->replace)
		klpc_replace_unlist();

	strscpy(klpc_transition.last_name, patch->mod->name,
		sizeof(klpc_transition.last_name));
	klpc_transition.last_end = end;
	if (end != KLPC_END_CANCELLED) {
		pr_notice("'%s': %s complete\n", patch->mod->name,
			  klpc_state_verb(state));
		/* a forced patch keeps a reference of its own */
		if (state == KLPC_UNPATCHED)
			module_put(patch->mod);
	}
	WRITE_ONCE(klpc_transition_patch, NULL);
	wake_up_all(&klpc_transition_wq);

	klpc_tasks_drop_seen();
	klpc_tasks_retire();
	klpc_stack_clear();
	schedule_work(&klpc_teardown_work);
}

/*
 * Cancelling the resume works and freeing the table (which waits for other
 * CPUs) can wait: nobody needs that but the next transition, which flushes
 * this.  Works and hooks that run meanwhile find no transition and do
 * nothing.
 */
static void klpc_teardown_fn(struct work_struct *work)
{
	klpc_resume_cancel_all();
	klpc_tasks_reap();
}

/*
 * How many tasks the table needs room for: every thread (the kernel's own
 * count, which a walk of 10,000 threads would only confirm at the cost of
 * milliseconds), and the idle tasks, which it leaves out.  Threads created
 * meanwhile take from the table's slack; if they exhaust it, the walk that
 * fills the table fails and is tried again with a new count.
 */
static unsigned int klpc_count_tasks(void)
{
	return max(READ_ONCE(*klpc_ksyms.nr_threads), 0) + num_possible_cpus();
}

static bool klpc_patches_do_exit(struct klpc_patch *patch)
{
	struct klpc_object *obj;
	struct klpc_func *func;

	klpc_for_each_object(patch, obj)
		klpc_for_each_func(obj, func)
			if ((unsigned long)func->old_func == klpc_ksyms.do_exit)
				return true;
	return false;
}

/**
 * klpc_init_transition() - prepare a patch to move to a patch state
 * @patch:	the patch
 * @state:	KLPC_PATCHED to apply it, KLPC_UNPATCHED to revert it
 *
 * Every task gets an entry in the state it is in now (the fork hook,
 * always attached, gives one to tasks forked meanwhile), and then the funcs
 * are marked as in transition.  When patching, the caller must order this
 * before pushing the funcs on their stacks (smp_wmb()).
 *
 * Return: 0 or an error, with nothing changed.
 */
int klpc_init_transition(struct klpc_patch *patch, int state)
{
	unsigned int nr;
	int ret, tries;
	struct klpc_object *obj;
	bool exit_stays = klpc_patches_do_exit(patch);

	if (WARN_ON_ONCE(klpc_transition_patch))
		return -EBUSY;
	/* the previous transition's works and table are gone */
	flush_work(&klpc_teardown_work);

	for (tries = 0; tries < 3; tries++) {
		nr = klpc_count_tasks() + 256;
		ret = klpc_tasks_alloc(state, nr, exit_stays);
		if (ret)
			break;
		ret = klpc_tasks_populate(nr);
		if (!ret)
			break;
		klpc_tasks_retire();
		klpc_tasks_reap();
		if (ret != -EAGAIN)
			break;
	}
	if (ret) {
		klpc_patch_err(patch, "cannot prepare the %s transition (%d)\n",
			       klpc_state_verb(state), ret);
		return ret;
	}

	WRITE_ONCE(klpc_transition_patch, patch);
	klpc_transition.started = jiffies;
	klpc_transition.last_report = jiffies;
	klpc_transition.last_signals = jiffies;
	klpc_transition.retry_ms = KLPC_RETRY_MIN_MS;
	klpc_transition.stall_reversed = false;
	klpc_transition.reversed = false;
	if (state == KLPC_PATCHED)
		klpc_for_each_object(patch, obj)
			obj->callbacks.post_unpatch_enabled = false;

	/* every task has its entry before any func reads as in transition */
	smp_wmb();
	klpc_set_funcs_transition(patch, true);
	return 0;
}

/**
 * klpc_cancel_transition() - abandon a patching transition that never started
 *
 * Used when enabling fails after klpc_init_transition(): whatever got
 * patched is unpatched and the post-unpatch callbacks of objects whose
 * pre-patch callback ran are called.
 */
void klpc_cancel_transition(void)
{
	if (WARN_ON_ONCE(klpc_tasks_target() != KLPC_PATCHED))
		return;
	klpc_tasks_set_target(KLPC_UNPATCHED, true);
	klpc_end_transition(KLPC_END_CANCELLED);
}

/**
 * klpc_start_transition() - let tasks move to the target patch state
 *
 * The first check round follows in the transition work, once the caller
 * has dropped klpc_mutex; klpc_transition_flush() waits for it.
 *
 * Return: 0, or -ENOMEM if patching and a task created since the table
 * was filled has no entry; then nothing started, and the caller cancels.
 * Unpatching cannot fail: such a task only costs the transition its
 * reversal, as it would after the start.
 */
int klpc_start_transition(void)
{
	struct klpc_patch *patch = klpc_transition_patch;
	int state = klpc_tasks_target();
	int ret;

	ret = klpc_tasks_start(state == KLPC_PATCHED);
	if (ret) {
		pr_err("'%s': cannot start the %s transition: a new task got no state (%d)\n",
		       patch->mod->name, klpc_state_verb(state), ret);
		return ret;
	}
	pr_notice("'%s': starting %s transition\n", patch->mod->name,
		  klpc_state_verb(state));
	klpc_transition_kick();
	return 0;
}

/**
 * klpc_transition_flush() - wait for the check round queued last
 *
 * Called without klpc_mutex by whoever started or reversed a transition
 * (the patch module's init, a write to 'enabled'), so that, as with the
 * built-in livepatch, a transition that nothing blocks has completed when
 * the call returns.  The caller sleeps meanwhile instead of polling, which
 * under TCG would slow the round down.  A retry not yet due is not waited
 * for.
 */
void klpc_transition_flush(void)
{
	flush_work(&klpc_transition_work.work);
}

/**
 * klpc_transition_wait() - wait until a patch's transition has ended
 * @patch:	the patch seen in transition, with klpc_mutex held
 *
 * Called without klpc_mutex.
 */
void klpc_transition_wait(struct klpc_patch *patch)
{
	wait_event(klpc_transition_wq,
		   READ_ONCE(klpc_transition_patch) != patch);
}

static void klpc_schedule_retry(void)
{
	mod_delayed_work(system_highpri_wq, &klpc_transition_work,
			 msecs_to_jiffies(klpc_transition.retry_ms));
	klpc_transition.retry_ms = min(klpc_transition.retry_ms * 2,
				       KLPC_RETRY_MAX_MS);
}

/* whether @secs seconds (0: never) have passed since @since */
static bool klpc_secs_after(unsigned long now, unsigned long since,
			    unsigned int secs)
{
	return secs && time_after_eq(now, since + (unsigned long)secs * HZ);
}

static void klpc_transition_stalled(void)
{
	struct klpc_transition *tr = &klpc_transition;
	struct klpc_patch *patch = klpc_transition_patch;
	const char *verb = klpc_state_verb(klpc_tasks_target());
	unsigned long now = jiffies;

	if (time_after(now, tr->last_report + KLPC_REPORT_INTERVAL)) {
		tr->last_report = now;
		pr_info("'%s': %u tasks still blocking the %s transition after %u s (see /proc/klpc/tasks)\n",
			patch->mod->name, klpc_tasks_pending(), verb,
			jiffies_to_msecs(now - tr->started) / 1000);
	}
	/* every signal_secs, 15 s by default, as upstream's docs suggest */
	if (klpc_secs_after(now, tr->last_signals, READ_ONCE(signal_secs))) {
		tr->last_signals = now;
		klpc_send_signals();
	}
	/* a patch whose module is going must end unpatched */
	if (!tr->stall_reversed && !patch->going &&
	    klpc_secs_after(now, tr->started, READ_ONCE(stall_reverse_secs))) {
		pr_warn("'%s': %s transition stalled for %u s, reversing it\n",
			patch->mod->name, verb,
			jiffies_to_msecs(now - tr->started) / 1000);
		if (!klpc_reverse_transition())
			tr->stall_reversed = true;
	}
}

/*
 * A check round: move what can move; complete if all did.  Completing an
 * unpatching transition releases the patch module.
 */
static void klpc_try_complete_transition(void)
{
	if (klpc_tasks_pending())
		klpc_check_tasks();
	if (!klpc_tasks_pending()) {
		klpc_end_transition(klpc_transition.reversed ?
				    KLPC_END_REVERSED : KLPC_END_COMPLETE);
		return;
	}
	klpc_transition_stalled();
	if (klpc_transition_patch)
		klpc_schedule_retry();
}

static void klpc_transition_work_fn(struct work_struct *work)
{
	mutex_lock(&klpc_mutex);
	if (klpc_transition_patch)
		klpc_try_complete_transition();
	mutex_unlock(&klpc_mutex);
}

/**
 * klpc_reverse_transition() - send the transition back where it came from
 *
 * Tasks that already moved have to move back, under the same rules.
 * Called with klpc_mutex held, by a write to 'enabled' during a transition
 * or when a stalled transition times out.
 *
 * Return: 0, or -ENOMEM when the task table is incomplete.
 */
int klpc_reverse_transition(void)
{
	struct klpc_patch *patch = klpc_transition_patch;
	int target = !klpc_tasks_target();

	lockdep_assert_held(&klpc_mutex);
	if (klpc_tasks_set_target(target, false)) {
		pr_err("'%s': cannot reverse the transition: a task forked during it has no state (-ENOMEM)\n",
		       patch->mod->name);
		return -ENOMEM;
	}
	pr_notice("'%s': reversing transition from %s\n", patch->mod->name,
		  klpc_state_verb(!target));
	klpc_transition.reversed = true;
	/* works that run before this see the old target and move no task */
	klpc_stack_build(patch, target);
	patch->enabled = target == KLPC_PATCHED;
	klpc_transition.retry_ms = KLPC_RETRY_MIN_MS;
	klpc_transition_kick();
	return 0;
}

/*
 * A forced patch holds one reference on its module for good, besides the
 * one an enabled patch holds; so enabling and disabling it later keeps
 * the count right.
 */
static void klpc_pin_forced(struct klpc_patch *patch)
{
	if (patch->forced)
		return;
	patch->forced = true;
	__module_get(patch->mod);
}

/**
 * klpc_force_transition() - move every remaining task at once
 *
 * Called with klpc_mutex held.  Tasks may still be running the code they
 * are moved away from: that of the patch in transition, or of an enabled
 * patch below it.  Those are marked as forced and their modules can never
 * be removed.  A disabled patch has no code left on any stack and stays
 * removable.
 */
void klpc_force_transition(void)
{
	int state = klpc_tasks_target();
	struct klpc_patch *patch;

	lockdep_assert_held(&klpc_mutex);
	pr_warn("'%s': forcing %u tasks to the %s state; they may run mixed versions, and the modules of the enabled patches can never be removed\n",
		klpc_transition_patch->mod->name, klpc_tasks_pending(),
		state == KLPC_PATCHED ? "patched" : "unpatched");
	klpc_tasks_set_target(state, true);
	list_for_each_entry(patch, &klpc_patches, list)
		if (patch->enabled || patch == klpc_transition_patch)
			klpc_pin_forced(patch);
	klpc_end_transition(KLPC_END_FORCED);
}

/**
 * klpc_transition_show() - the transition in progress, and how the last ended
 * @m:		the seq_file of /proc/klpc/transition
 *
 * Called with klpc_mutex held.  One "key value" pair a line: patch, target
 * (patched or unpatched), seconds since it started, pending tasks,
 * stalled (1 once it has run as long as the first stall report takes),
 * reversed (1 if reversed since it started); "-" and 0 without a
 * transition.  Then last_patch and last_end (complete, reversed, forced or
 * cancelled) for the last transition that ended, "-" before any.
 */
void klpc_transition_show(struct seq_file *m)
{
	struct klpc_transition *tr = &klpc_transition;
	struct klpc_patch *patch = klpc_transition_patch;
	unsigned long age = patch ? jiffies - tr->started : 0;

	lockdep_assert_held(&klpc_mutex);
	seq_printf(m, "patch %s\ntarget %s\n", patch ? patch->mod->name : "-",
		   !patch ? "-" : klpc_tasks_target() == KLPC_PATCHED ?
		   "patched" : "unpatched");
	seq_printf(m, "seconds %u\npending %u\nstalled %d\nreversed %d\n",
		   jiffies_to_msecs(age) / 1000,
		   patch ? klpc_tasks_pending() : 0,
		   patch && age >= KLPC_REPORT_INTERVAL,
		   patch && tr->reversed);
	seq_printf(m, "last_patch %s\nlast_end %s\n",
		   tr->last_end ? tr->last_name : "-",
		   klpc_end_names[tr->last_end]);
}

/**
 * klpc_transition_init() - set up the per-CPU work items
 */
void klpc_transition_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_WORK(per_cpu_ptr(&klpc_idle_work, cpu), klpc_idle_work_fn);
}

/**
 * klpc_transition_exit() - wait for a retry that may still be queued
 */
void klpc_transition_exit(void)
{
	cancel_delayed_work_sync(&klpc_transition_work);
	flush_work(&klpc_teardown_work);
}
