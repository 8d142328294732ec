// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - where tasks move during a transition
 *
 * The user-return hook is registered when a transition starts and removed
 * when it ends, so that the return to user space costs nothing outside a
 * transition.  The
 * tracepoint probes stay attached while klpc is loaded: attaching and
 * detaching them patched kernel text six times per transition, and each
 * patching waits for every CPU (three rounds of IPIs), which dominated the
 * start of a transition on a busy machine.  Outside a transition they find
 * no table and return at once (tasks.c); fork, exit and free are far rarer
 * than system calls.
 *
 * - an ftrace_ops on syscall_exit_to_user_mode_prepare() and
 *   exit_to_user_mode_prepare(): a task about to return to user space has
 *   no kernel function on its stack, so it may move.  The latter also runs
 *   on returns from interrupts, which moves CPU-bound user tasks.  The
 *   functions that follow them (exit_to_user_mode() and friends) are
 *   noinstr and cannot be traced.
 * - sched_process_fork: a child inherits its parent's state.
 * - sched_process_exit: the exiting task never returns to its callers.
 * - sched_process_free: the task is gone; its entry goes too.
 *   (The three tracepoints are always attached, see above.)
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hooks.h"
#include "tasks.h"
#include "transition.h"

/*
 * Called from ftrace on the entry of the functions below, in the context
 * of the task returning to user space, with nothing of the kernel left on
 * its stack but the return path.
 */
static void notrace klpc_user_return(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	if (klpc_task_switch(current))
		klpc_transition_kick();
	ftrace_test_recursion_unlock(bit);
}

static const char * const klpc_user_return_syms[] = {
	"syscall_exit_to_user_mode_prepare",
	"exit_to_user_mode_prepare",
};

/* no flags: the callback reads no registers and changes none */
static struct ftrace_ops klpc_user_return_ops = {
	.func	= klpc_user_return,
};

static void klpc_fork_probe(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	klpc_task_fork(parent, child);
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

/*
 * The user-return hook is an ftrace_ops of its own, whose filter holds both
 * functions; it is registered only during transitions, so the return to
 * user space costs nothing otherwise.  It used to be two ftrace-based
 * kprobes: arming them took two ftrace updates (each a walk of every
 * ftrace record and a text patch that waits for all CPUs), this takes one,
 * and the callback is much cheaper than kprobe dispatch on every return to
 * user space during a transition.  As the ops is module data, ftrace treats
 * it as dynamic: unregistering it waits for RCU-tasks grace periods, which
 * happens in the transition's teardown work.
 */
static int klpc_user_return_init(void)
{
	const char *sym;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(klpc_user_return_syms); i++) {
		sym = klpc_user_return_syms[i];
		ret = ftrace_set_filter(&klpc_user_return_ops, (unsigned char *)sym,
					strlen(sym), 0);
		if (ret) {
			pr_err("cannot trace %s on the return to user space (%d)\n",
			       sym, ret);
			ftrace_free_filter(&klpc_user_return_ops);
			return ret;
		}
	}
	return 0;
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
 * klpc_hooks_init() - attach the tracepoints, set up the user-return hook
 *
 * Return: 0, or an error with a message naming what is missing and
 * nothing attached.
 */
int klpc_hooks_init(void)
{
	int i, ret;

	for_each_kernel_tracepoint(klpc_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(klpc_tracepoints); i++) {
		if (!klpc_tracepoints[i].tp) {
			pr_err("tracepoint '%s' not found\n",
			       klpc_tracepoints[i].name);
			return -ENOENT;
		}
	}
	ret = klpc_attach_tracepoints();
	if (ret)
		return ret;
	ret = klpc_user_return_init();
	if (ret) {
		klpc_detach_tracepoints(ARRAY_SIZE(klpc_tracepoints));
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/**
 * klpc_hooks_attach() - start catching tasks on their way to user space
 *
 * Return: 0 or an error, with nothing armed.
 */
int klpc_hooks_attach(void)
{
	int ret = register_ftrace_function(&klpc_user_return_ops);

	if (ret)
		pr_err("cannot hook the return to user space (%d)\n", ret);
	return ret;
}

/**
 * klpc_hooks_detach() - stop catching tasks on their way to user space
 *
 * A probe may still be running on another CPU on return; what it uses is
 * freed after klpc_synchronize().
 */
void klpc_hooks_detach(void)
{
	unregister_ftrace_function(&klpc_user_return_ops);
}

/**
 * klpc_hooks_exit() - remove the tracepoint probes; wait for running probes
 *
 * The user-return hook is not registered any more (no transition).
 */
void klpc_hooks_exit(void)
{
	ftrace_free_filter(&klpc_user_return_ops);
	klpc_detach_tracepoints(ARRAY_SIZE(klpc_tracepoints));
	tracepoint_synchronize_unregister();
}
