// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-lp-kprobe.c - a kprobe on a function that klpc may patch
 *
 *	insmod klpc-test-lp-kprobe.ko func=cmdline_proc_show post_handler=1
 *
 * registers a kprobe on the entry of func, an ftrace location, so the
 * kprobe is ftrace-based.  Kprobes use an IPMODIFY ftrace_ops for probes
 * with a post handler (the handler runs with regs->ip moved past the call,
 * as if single-stepped) and a plain one otherwise, so only post_handler=1
 * collides with a live patch of the same function.  The load fails when
 * register_kprobe() does, with its error.
 *
 * /sys/module/klpc_test_lp_kprobe/parameters/hits counts the pre-handler
 * calls, i.e. the calls of func whatever version of it runs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static char *func = "cmdline_proc_show";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "function to probe");

static bool post_handler;
module_param(post_handler, bool, 0444);
MODULE_PARM_DESC(post_handler, "give the kprobe a post handler (IPMODIFY)");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int hits_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%ld\n", atomic_long_read(&hits));
}

static const struct kernel_param_ops hits_ops = {
	.get = hits_get,
};

module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "calls of func seen by the kprobe (read only)");

static int klpc_lp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

/* Its mere presence is what matters: it makes the probe IPMODIFY. */
static void klpc_lp_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
}

static struct kprobe klpc_lp_kp = {
	.pre_handler = klpc_lp_pre,
};

static int __init klpc_lp_kprobe_init(void)
{
	int ret;

	klpc_lp_kp.symbol_name = func;
	if (post_handler)
		klpc_lp_kp.post_handler = klpc_lp_post;
	ret = register_kprobe(&klpc_lp_kp);
	if (ret) {
		pr_err("cannot register a kprobe %s a post handler on '%s' (%d)\n",
		       post_handler ? "with" : "without", func, ret);
		return ret;
	}
	pr_info("kprobe %s a post handler on '%s' (%s)\n",
		post_handler ? "with" : "without", func,
		kprobe_ftrace(&klpc_lp_kp) ? "ftrace-based" : "int3");
	return 0;
}

static void __exit klpc_lp_kprobe_exit(void)
{
	unregister_kprobe(&klpc_lp_kp);
}

module_init(klpc_lp_kprobe_init);
module_exit(klpc_lp_kprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a kprobe, with or without a post handler, counting hits");
