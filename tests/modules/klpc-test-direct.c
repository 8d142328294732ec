// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-direct.c - an ftrace direct call on a function klpc may patch
 *
 *	insmod klpc-test-direct.ko func=cmdline_proc_show
 *
 * attaches a trampoline to the entry of func with register_ftrace_direct()
 * (klpc_direct_attach(), klp-core/compat.h),
 * the way a BPF fentry, fexit or fmod_ret program has its trampoline
 * attached.  A BPF trampoline that calls the traced function (fexit,
 * fmod_ret) calls its body at the address fixed when the trampoline was
 * built, not the address an IPMODIFY ftrace handler (a live patch) put in
 * regs->ip, unless ftrace asked it to share the function first.  This
 * trampoline does the same with less code: it always continues in the
 * original body of func.  So while it is attached, func runs its original
 * code whatever a live patch of it says, which is what a test can see.
 * The load fails when register_ftrace_direct() does, with its error.
 *
 * /sys/module/klpc_test_direct/parameters/hits counts the calls that went
 * through the trampoline.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <asm/ibt.h>

#include "klpc-test-direct.h"
#include "../../klp-core/compat.h"

static char *func = "cmdline_proc_show";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "function to attach the direct call to");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int hits_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%ld\n", atomic_long_read(&hits));
}

static const struct kernel_param_ops hits_ops = {
	.get = hits_get,
};

module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "calls of func through the trampoline (read only)");

/* the direct call's ftrace_ops (on kernels that attach it through one) */
static struct ftrace_ops klpc_direct_ops;

/* func's ftrace location (its fentry call) and the code right after it */
static unsigned long klpc_direct_site;
static unsigned long klpc_direct_body;

/*
 * Called by the trampoline only, hence __used: counts the call and tells
 * the trampoline where to continue.
 */
static notrace __used unsigned long klpc_direct_enter(void)
{
	atomic_long_inc(&hits);
	return klpc_direct_body;
}

/*
 * ftrace enters the trampoline as if func's fentry call had called it:
 * the return address on the stack is where the call would go on, i.e.
 * func's body or, under an IPMODIFY handler, the address it set.  The
 * trampoline saves func's arguments, overwrites that return address with
 * the original body (as a BPF trampoline calls its fixed orig_call) and
 * returns there with the arguments restored.
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
	"	.type		klpc_direct_tramp, @function\n"
	"	.globl		klpc_direct_tramp\n"
	"klpc_direct_tramp:\n"
	ASM_ENDBR
	"	pushq	%rbp\n"
	"	movq	%rsp, %rbp\n"
	"	pushq	%rdi\n"
	"	pushq	%rsi\n"
	"	pushq	%rdx\n"
	"	pushq	%rcx\n"
	"	pushq	%r8\n"
	"	pushq	%r9\n"
	"	call	klpc_direct_enter\n"
	"	movq	%rax, 8(%rbp)\n"
	"	popq	%r9\n"
	"	popq	%r8\n"
	"	popq	%rcx\n"
	"	popq	%rdx\n"
	"	popq	%rsi\n"
	"	popq	%rdi\n"
	"	leave\n"
	ASM_RET
	"	.size		klpc_direct_tramp, .-klpc_direct_tramp\n"
	"	.popsection\n");

/*
 * A kprobe on a function's entry sits on its ftrace location when it has
 * one (it is then ftrace-based): that gives the address of the fentry
 * call without the unexported ftrace_location().
 */
static int klpc_direct_find_site(void)
{
	struct kprobe kp = { .symbol_name = func };
	bool on_ftrace;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find function '%s' (%d)\n", func, ret);
		return ret;
	}
	on_ftrace = kprobe_ftrace(&kp);
	klpc_direct_site = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	if (!on_ftrace) {
		pr_err("function '%s' has no ftrace location\n", func);
		return -ENODEV;
	}
	klpc_direct_body = klpc_direct_site + MCOUNT_INSN_SIZE;
	return 0;
}

static int __init klpc_direct_init(void)
{
	int ret;

	ret = klpc_direct_find_site();
	if (ret)
		return ret;
	ret = klpc_direct_attach(&klpc_direct_ops, klpc_direct_site,
				 (unsigned long)klpc_direct_tramp);
	if (ret) {
		pr_err("cannot attach a direct call to '%s' (%d)\n", func, ret);
		return ret;
	}
	pr_info("direct call attached to '%s'\n", func);
	return 0;
}

/* unregister_ftrace_direct() waits until no task can be in the trampoline */
static void __exit klpc_direct_exit(void)
{
	klpc_direct_detach(&klpc_direct_ops, klpc_direct_site,
			   (unsigned long)klpc_direct_tramp);
}

module_init(klpc_direct_init);
module_exit(klpc_direct_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: an ftrace direct call that always runs the original function");
