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
 * /sys/module/klpc_test_fail/parameters/hits counts the calls seen,
 * .../injected the ones made to fail.  Removing the module stops it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>

static char *func;
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the function to make fail (a symbol)");

static uint nth = 1;
module_param(nth, uint, 0444);
MODULE_PARM_DESC(nth, "fail its nth call from now on (1: the next)");

static int times = 1;
module_param(times, int, 0444);
MODULE_PARM_DESC(times, "how many calls to fail from the nth (-1: all)");

static int err = -ENOMEM;
module_param(err, int, 0444);
MODULE_PARM_DESC(err, "the value the failed calls return");

static atomic_t klpc_fail_hits = ATOMIC_INIT(0);
static atomic_t klpc_fail_injected = ATOMIC_INIT(0);

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
	unsigned int hit = atomic_inc_return(&klpc_fail_hits);

	if (hit < nth || (times >= 0 && hit - nth >= (unsigned int)times))
		return 0;
	atomic_inc(&klpc_fail_injected);
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

static struct kprobe klpc_fail_kp = {
	.pre_handler	= klpc_fail_pre,
	.post_handler	= klpc_fail_post,
};

static int __init klpc_fail_init(void)
{
	int ret;

	if (!func || !*func || !nth) {
		pr_err("func= and nth >= 1 are needed\n");
		return -EINVAL;
	}
	klpc_fail_kp.symbol_name = func;
	ret = register_kprobe(&klpc_fail_kp);
	if (ret) {
		pr_err("cannot probe '%s' (%d)\n", func, ret);
		return ret;
	}
	pr_info("'%s': call %u and on return %d (%d times, -1: all)\n", func,
		nth, err, times);
	return 0;
}

static void __exit klpc_fail_exit(void)
{
	unregister_kprobe(&klpc_fail_kp);
	pr_info("'%s': %d calls, %d failed\n", func,
		atomic_read(&klpc_fail_hits), atomic_read(&klpc_fail_injected));
}

module_init(klpc_fail_init);
module_exit(klpc_fail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: make calls of a kernel function fail");
