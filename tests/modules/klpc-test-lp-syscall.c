// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-lp-syscall.c - patch a system call and see who reaches the
 * new version
 *
 *	insmod klpc-test-lp-syscall.ko pids=101,102,103
 *
 * replaces getpid() (__x64_sys_getpid) with a version that returns the
 * same value and ticks off the calling task if its pid is in pids.  A task
 * reaches the new version only once the consistency model has moved it,
 * so with every listed task calling getpid() in a loop,
 * /sys/module/klpc_test_lp_syscall/parameters/pending (the listed pids not
 * seen yet) drops to 0 when all of them have moved.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <klpc.h>

#define KLPC_LP_MAX_PIDS	256

static int pids[KLPC_LP_MAX_PIDS];
static unsigned int nr_pids;
module_param_array(pids, int, &nr_pids, 0444);
MODULE_PARM_DESC(pids, "pids of the tasks expected to call getpid()");

/* seen[] and pending change together, under klpc_lp_lock */
static DEFINE_SPINLOCK(klpc_lp_lock);
static bool seen[KLPC_LP_MAX_PIDS];
static unsigned int pending;

static int pending_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%u\n", READ_ONCE(pending));
}

static const struct kernel_param_ops pending_ops = {
	.get = pending_get,
};

module_param_cb(pending, &pending_ops, NULL, 0444);
MODULE_PARM_DESC(pending, "listed pids that have not called the new getpid() yet");

static void klpc_lp_tick_off(pid_t pid)
{
	unsigned int i;

	spin_lock(&klpc_lp_lock);
	for (i = 0; i < nr_pids; i++) {
		if (pids[i] != pid || seen[i])
			continue;
		seen[i] = true;
		WRITE_ONCE(pending, pending - 1);
	}
	spin_unlock(&klpc_lp_lock);
}

/* __x64_sys_getpid() takes the user registers, which getpid() ignores */
static long klpc_lp_sys_getpid(const struct pt_regs *regs)
{
	/* the unlocked check keeps the common case cheap once all are seen */
	if (READ_ONCE(pending))
		klpc_lp_tick_off(current->pid);
	return task_tgid_vnr(current);
}

static struct klpc_func funcs[] = {
	{
		.old_name = "__x64_sys_getpid",
		.new_func = klpc_lp_sys_getpid,
	}, { }
};

static struct klpc_object objs[] = {
	{
		/* vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_lp_syscall_init(void)
{
	pending = nr_pids;
	return klpc_enable_patch(&patch);
}

static void __exit klpc_lp_syscall_exit(void)
{
}

module_init(klpc_lp_syscall_init);
module_exit(klpc_lp_syscall_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: patch getpid() and record which tasks reach the new version");
