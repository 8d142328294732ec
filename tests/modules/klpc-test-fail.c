// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-fail.c - make calls of a kernel function fail, for fault tests
 *
 *	insmod klpc-test-fail.ko func=klpc_tasks_alloc nth=1 err=-12
 *
 * puts a kprobe on the entry of @func: counting from the load, its @nth
 * call (and the @times - 1 calls after it; @times -1: every call from the
 * @nth on) returns @err at once, without running the function's body.
 * This is what the kernel's fail_function does on x86
 * (override_function_with_return()), which Debian's kernel lacks
 * (CONFIG_FUNCTION_ERROR_INJECTION).  Only for functions that return an
 * int, a long or a pointer (ERR_PTR) and whose callers rely on nothing
 * but that value when they fail.
 *
 * For the fault sweep (tests/lib-fault.sh) two more ways:
 *
 *	func=kmalloc_trace,__kmalloc,kvmalloc_node from=ADDR len=SIZE err=0
 *
 * probes up to four functions and counts only the calls made from code in
 * [@from, @from + @len), a module's core (its /proc/modules line): "the
 * nth allocation klpc makes".  Every counted call site is recorded, in
 * order, as runs of calls from the same site ('sites'), and 'site' names
 * the caller of the first call made to fail.
 *
 *	func=klpc_enable_patch task_nth=1 nth=N
 *
 * needs a kernel with CONFIG_FAULT_INJECTION: at each entry of @func the
 * calling task's fail_nth (/proc/<pid>/fail-nth) is set to @nth, so the
 * kernel's failslab and fail_page_alloc fail the nth allocation that task
 * makes from there on; when the task exits, fail_nth is cleared, and
 * 'injected' counts the tasks in which that allocation was reached.
 *
 * /sys/module/klpc_test_fail/parameters/hits counts the calls seen,
 * .../injected the ones made to fail.  Writing nth starts over (the
 * counts and sites are reset); 0 stops it, as removing the module does.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#define KLPC_FAIL_MAX_PROBES	4
#define KLPC_FAIL_MAX_RUNS	64

static char *func;
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the function(s) to make fail (symbols, comma-separated)");

static uint nth = 1;

static int times = 1;
module_param(times, int, 0444);
MODULE_PARM_DESC(times, "how many calls to fail from the nth (-1: all)");

static int err = -ENOMEM;
module_param(err, int, 0444);
MODULE_PARM_DESC(err, "the value the failed calls return");

static ulong from;
module_param(from, ulong, 0444);
MODULE_PARM_DESC(from, "count only calls from [from, from + len) (0: all)");

static ulong len;
module_param(len, ulong, 0444);
MODULE_PARM_DESC(len, "the size of that range");

static bool task_nth;
module_param(task_nth, bool, 0444);
MODULE_PARM_DESC(task_nth, "set the task's fail_nth to nth in func instead");

static atomic_t klpc_fail_hits = ATOMIC_INIT(0);
static atomic_t klpc_fail_injected = ATOMIC_INIT(0);

/* the call sites seen, as runs of calls from one return address */
static DEFINE_RAW_SPINLOCK(klpc_fail_lock);
static struct {
	unsigned long addr;
	unsigned int calls;
} klpc_fail_runs[KLPC_FAIL_MAX_RUNS];
static unsigned int klpc_fail_nr_runs;
static bool klpc_fail_runs_full;
static unsigned long klpc_fail_site;

/*
 * A new nth starts a new count: the counters, the sites and the site made
 * to fail are reset.  0 stops injecting (and, with task_nth, arming).
 */
static int klpc_fail_set_nth(const char *val, const struct kernel_param *kp)
{
	unsigned long flags;
	int ret;

	ret = param_set_uint(val, kp);
	if (ret)
		return ret;
	raw_spin_lock_irqsave(&klpc_fail_lock, flags);
	atomic_set(&klpc_fail_hits, 0);
	atomic_set(&klpc_fail_injected, 0);
	klpc_fail_nr_runs = 0;
	klpc_fail_runs_full = false;
	klpc_fail_site = 0;
	raw_spin_unlock_irqrestore(&klpc_fail_lock, flags);
	return 0;
}

static const struct kernel_param_ops klpc_fail_nth_ops = {
	.set	= klpc_fail_set_nth,
	.get	= param_get_uint,
};

module_param_cb(nth, &klpc_fail_nth_ops, &nth, 0644);
MODULE_PARM_DESC(nth, "fail its nth call from now on (1: the next; 0: none)");

static int klpc_fail_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops klpc_fail_count_ops = {
	.get	= klpc_fail_get,
};

module_param_cb(hits, &klpc_fail_count_ops, &klpc_fail_hits, 0444);
MODULE_PARM_DESC(hits, "calls of func seen");
module_param_cb(injected, &klpc_fail_count_ops, &klpc_fail_injected, 0444);
MODULE_PARM_DESC(injected, "calls of func made to fail");

static int klpc_fail_get_site(char *buf, const struct kernel_param *kp)
{
	unsigned long addr = READ_ONCE(klpc_fail_site);

	return addr ? sysfs_emit(buf, "%pS\n", (void *)addr) :
		      sysfs_emit(buf, "none\n");
}

static const struct kernel_param_ops klpc_fail_site_ops = {
	.get	= klpc_fail_get_site,
};

module_param_cb(site, &klpc_fail_site_ops, NULL, 0444);
MODULE_PARM_DESC(site, "the caller of the first call made to fail");

/* One line per run: "<calls> <caller>"; "..." ends a list cut short. */
static int klpc_fail_get_sites(char *buf, const struct kernel_param *kp)
{
	unsigned int i, n;
	unsigned long flags;
	int out = 0;

	raw_spin_lock_irqsave(&klpc_fail_lock, flags);
	n = klpc_fail_nr_runs;
	raw_spin_unlock_irqrestore(&klpc_fail_lock, flags);
	/* runs before the last are complete and no longer change */
	for (i = 0; i < n && out < PAGE_SIZE - 96; i++)
		out += sysfs_emit_at(buf, out, "%u %pS\n",
				     READ_ONCE(klpc_fail_runs[i].calls),
				     (void *)klpc_fail_runs[i].addr);
	if (i < n || READ_ONCE(klpc_fail_runs_full))
		out += sysfs_emit_at(buf, out, "...\n");
	return out;
}

static const struct kernel_param_ops klpc_fail_sites_ops = {
	.get	= klpc_fail_get_sites,
};

module_param_cb(sites, &klpc_fail_sites_ops, NULL, 0444);
MODULE_PARM_DESC(sites, "the callers counted, in order, as runs");

/* The return address, at the entry of the probed function. */
static unsigned long klpc_fail_caller(struct pt_regs *regs)
{
	return *(unsigned long *)kernel_stack_pointer(regs);
}

static void klpc_fail_record(unsigned long addr)
{
	unsigned int n;
	unsigned long flags;

	raw_spin_lock_irqsave(&klpc_fail_lock, flags);
	n = klpc_fail_nr_runs;
	if (n && klpc_fail_runs[n - 1].addr == addr) {
		klpc_fail_runs[n - 1].calls++;
	} else if (n < KLPC_FAIL_MAX_RUNS) {
		klpc_fail_runs[n].addr = addr;
		klpc_fail_runs[n].calls = 1;
		klpc_fail_nr_runs = n + 1;
	} else {
		klpc_fail_runs_full = true;
	}
	raw_spin_unlock_irqrestore(&klpc_fail_lock, flags);
}

/*
 * Where a failed call goes instead of the function's body: the stack is
 * as at the function's entry, so this returns to its caller.
 */
asmlinkage void klpc_fail_return(void);
asm(".text\n"
	".type klpc_fail_return, @function\n"
	"klpc_fail_return:\n"
	ANNOTATE_NOENDBR
	ASM_RET
	".size klpc_fail_return, .-klpc_fail_return\n");

static int klpc_fail_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long caller = klpc_fail_caller(regs);
	unsigned int hit, n = READ_ONCE(nth);

	if (len && (caller < from || caller - from >= len))
		return 0;
	hit = atomic_inc_return(&klpc_fail_hits);
	if (len)
		klpc_fail_record(caller);
	if (!n || hit < n || (times >= 0 && hit - n >= (unsigned int)times))
		return 0;
	if (atomic_inc_return(&klpc_fail_injected) == 1)
		WRITE_ONCE(klpc_fail_site, caller);
	regs_set_return_value(regs, (unsigned long)(long)err);
	regs->ip = (unsigned long)klpc_fail_return;
	/* regs->ip changed: the kprobe does not single-step the function */
	return 1;
}

/*
 * A post handler keeps the kprobe from being optimized into a jump, which
 * would ignore the new regs->ip.
 */
static void klpc_fail_post(struct kprobe *kp, struct pt_regs *regs,
			   unsigned long flags)
{
}

static struct kprobe klpc_fail_kps[KLPC_FAIL_MAX_PROBES];
static unsigned int klpc_fail_nr_kps;
static char *klpc_fail_names;

#ifdef CONFIG_FAULT_INJECTION
/*
 * task_nth: the kernel's own fault injection counts the task's
 * allocations from the entry of func (should_fail_ex() reads
 * current->fail_nth first, whatever the failslab and fail_page_alloc
 * settings) to the task's exit: the operations of the fault sweep are
 * done by a process of their own (insmod, rmmod, a write).  Not to func's
 * return: a kretprobe's return address on the stack makes the reliable
 * unwinder warn (rethook_find_ret_addr()) when klpc checks the stack of
 * the task while it is preempted in func.
 */
static struct task_struct *klpc_fail_armed;

static int klpc_fail_arm(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned int n = READ_ONCE(nth);

	if (!n)
		return 0;
	atomic_inc(&klpc_fail_hits);
	WRITE_ONCE(current->fail_nth, n);
	WRITE_ONCE(klpc_fail_armed, current);
	return 0;
}

/* 0 left: the nth allocation was made to fail; else nothing may remain */
static int klpc_fail_disarm(struct kprobe *kp, struct pt_regs *regs)
{
	if (READ_ONCE(klpc_fail_armed) != current)
		return 0;
	if (!READ_ONCE(current->fail_nth))
		atomic_inc(&klpc_fail_injected);
	WRITE_ONCE(current->fail_nth, 0);
	WRITE_ONCE(klpc_fail_armed, NULL);
	return 0;
}

static struct kprobe klpc_fail_arm_kp = {
	.pre_handler	= klpc_fail_arm,
};

static struct kprobe klpc_fail_exit_kp = {
	.symbol_name	= "do_exit",
	.pre_handler	= klpc_fail_disarm,
};

static int klpc_fail_task_nth_init(void)
{
	int ret;

	ret = register_kprobe(&klpc_fail_exit_kp);
	if (ret)
		return ret;
	klpc_fail_arm_kp.symbol_name = func;
	ret = register_kprobe(&klpc_fail_arm_kp);
	if (ret)
		unregister_kprobe(&klpc_fail_exit_kp);
	return ret;
}

static void klpc_fail_task_nth_exit(void)
{
	unregister_kprobe(&klpc_fail_arm_kp);
	unregister_kprobe(&klpc_fail_exit_kp);
}
#else
static int klpc_fail_task_nth_init(void)
{
	pr_err("task_nth needs a kernel with CONFIG_FAULT_INJECTION\n");
	return -EOPNOTSUPP;
}

static void klpc_fail_task_nth_exit(void)
{
}
#endif

static void klpc_fail_unregister(void)
{
	while (klpc_fail_nr_kps)
		unregister_kprobe(&klpc_fail_kps[--klpc_fail_nr_kps]);
	kfree(klpc_fail_names);
}

/* One kprobe per name in @func. */
static int klpc_fail_register(void)
{
	char *names, *name;
	int ret;

	klpc_fail_names = kstrdup(func, GFP_KERNEL);
	if (!klpc_fail_names)
		return -ENOMEM;
	names = klpc_fail_names;
	while ((name = strsep(&names, ","))) {
		if (klpc_fail_nr_kps == KLPC_FAIL_MAX_PROBES) {
			pr_err("more than %d functions\n", KLPC_FAIL_MAX_PROBES);
			ret = -E2BIG;
			goto err;
		}
		klpc_fail_kps[klpc_fail_nr_kps] = (struct kprobe){
			.symbol_name	= name,
			.pre_handler	= klpc_fail_pre,
			.post_handler	= klpc_fail_post,
		};
		ret = register_kprobe(&klpc_fail_kps[klpc_fail_nr_kps]);
		if (ret) {
			pr_err("cannot probe '%s' (%d)\n", name, ret);
			goto err;
		}
		klpc_fail_nr_kps++;
	}
	return 0;
err:
	klpc_fail_unregister();
	return ret;
}

static int __init klpc_fail_init(void)
{
	int ret;

	if (!func || !*func || !nth) {
		pr_err("func= and nth >= 1 are needed\n");
		return -EINVAL;
	}
	if (task_nth) {
		ret = klpc_fail_task_nth_init();
		if (ret)
			return ret;
		pr_info("'%s': the task's allocation %u in each call fails\n",
			func, nth);
		return 0;
	}
	ret = klpc_fail_register();
	if (ret)
		return ret;
	pr_info("'%s': call %u and on return %d (%d times, -1: all)\n", func,
		nth, err, times);
	return 0;
}

static void __exit klpc_fail_exit(void)
{
	if (task_nth)
		klpc_fail_task_nth_exit();
	else
		klpc_fail_unregister();
	pr_info("'%s': %d calls, %d failed\n", func,
		atomic_read(&klpc_fail_hits), atomic_read(&klpc_fail_injected));
}

module_init(klpc_fail_init);
module_exit(klpc_fail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: make calls of a kernel function fail");
