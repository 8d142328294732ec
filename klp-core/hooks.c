// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - where tasks move during a transition
 *
 * Attached when a transition starts and detached when it ends, so that a
 * system with no transition in progress pays nothing on these paths:
 *
 * - kprobes on syscall_exit_to_user_mode_prepare() and
 *   exit_to_user_mode_prepare(): a task about to return to user space has
 *   no kernel function on its stack, so it may move.  The latter also runs
 *   on returns from interrupts, which moves CPU-bound user tasks.  The
 *   functions that follow them (exit_to_user_mode() and friends) are
 *   noinstr and refuse kprobes.
 * - sched_process_fork: a child inherits its parent's state.
 * - sched_process_exit: the exiting task never returns to its callers.
 * - sched_process_free: the task is gone; its entry goes too.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hooks.h"
#include "tasks.h"
#include "transition.h"

static int klpc_user_return(struct kprobe *kp, struct pt_regs *regs)
{
	if (klpc_task_switch(current))
		klpc_transition_kick();
	return 0;
}

static const char * const klpc_kprobe_syms[] = {
	"syscall_exit_to_user_mode_prepare",
	"exit_to_user_mode_prepare",
};

static struct kprobe klpc_kprobes[ARRAY_SIZE(klpc_kprobe_syms)];
static struct kprobe *klpc_kprobe_ptrs[ARRAY_SIZE(klpc_kprobe_syms)];

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
 * The kprobes are registered disabled when klpc loads and only armed during
 * transitions: a disarmed kprobe leaves the function untouched.  They sit
 * on the fentry call, so they are ftrace-based: an int3 probe costs a trap
 * on every return to user space while armed.  Disarming the last one
 * unregisters kprobes' ftrace_ops, which waits for an RCU-tasks grace
 * period; that happens in the transition's teardown work.
 */
static int klpc_kprobes_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(klpc_kprobes); i++) {
		klpc_kprobes[i].symbol_name = klpc_kprobe_syms[i];
		klpc_kprobes[i].pre_handler = klpc_user_return;
		klpc_kprobes[i].flags = KPROBE_FLAG_DISABLED;
		klpc_kprobe_ptrs[i] = &klpc_kprobes[i];
	}
	ret = register_kprobes(klpc_kprobe_ptrs, ARRAY_SIZE(klpc_kprobe_ptrs));
	if (ret)
		pr_err("cannot place kprobes on the return to user space (%d)\n",
		       ret);
	return ret;
}

/**
 * klpc_hooks_init() - find the tracepoints and place the kprobes
 *
 * Return: 0, or an error with a message naming what is missing.
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
	return klpc_kprobes_init();
}

static void klpc_detach_tracepoints(int n)
{
	/*
	 * No tracepoint_synchronize_unregister() here: the probes run with
	 * preemption disabled, and what they use is freed after
	 * klpc_synchronize() (see klpc_tasks_reap()).  klpc_hooks_exit()
	 * waits before klpc's code can go.
	 */
	while (--n >= 0)
		tracepoint_probe_unregister(klpc_tracepoints[n].tp,
					    klpc_tracepoints[n].probe, NULL);
}

/**
 * klpc_hooks_attach() - start catching tasks at their safe points
 *
 * Return: 0 or an error, with nothing attached.
 */
int klpc_hooks_attach(void)
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
	for (i = 0; i < ARRAY_SIZE(klpc_kprobes); i++) {
		ret = enable_kprobe(&klpc_kprobes[i]);
		if (ret) {
			pr_err("cannot enable the kprobe on %s (%d)\n",
			       klpc_kprobe_syms[i], ret);
			while (--i >= 0)
				disable_kprobe(&klpc_kprobes[i]);
			klpc_detach_tracepoints(ARRAY_SIZE(klpc_tracepoints));
			return ret;
		}
	}
	return 0;
}

/**
 * klpc_hooks_detach() - stop catching tasks
 *
 * A hook may still be running on another CPU on return; see
 * klpc_detach_tracepoints().
 */
void klpc_hooks_detach(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(klpc_kprobes); i++)
		disable_kprobe(&klpc_kprobes[i]);
	klpc_detach_tracepoints(ARRAY_SIZE(klpc_tracepoints));
}

/**
 * klpc_hooks_exit() - remove the kprobes; wait for running probes
 */
void klpc_hooks_exit(void)
{
	unregister_kprobes(klpc_kprobe_ptrs, ARRAY_SIZE(klpc_kprobe_ptrs));
	tracepoint_synchronize_unregister();
}
