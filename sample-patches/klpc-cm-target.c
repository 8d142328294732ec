// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-cm-target.c - a caller/callee pair for the consistency model
 *
 * klpc_cm_caller() checks what klpc_cm_callee() returns; klpc-cm-patch
 * changes the callee's return convention and the caller to match.  A task
 * that runs one old and one new function counts a mismatch:
 *	cat /proc/klpc_cm	-> "calls=N mismatches=M"
 * Reading /proc/klpc_cm_sleep sleeps in klpc_cm_sleeper() until "1" is
 * written to it, then returns "slept v1" (v2 once patched); "0" re-arms it,
 * "k" re-arms it with a killable sleep, which only a fatal signal breaks
 * (not a freezer, nor klpc's fake signal).
 */

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "cm-target.h"

static atomic_long_t klpc_cm_calls, klpc_cm_mismatches;
static DECLARE_WAIT_QUEUE_HEAD(klpc_cm_wq);
static bool klpc_cm_released;
static bool klpc_cm_killable;

/*
 * v1: returns x + 1.  Exported so that the patched caller calls it,
 * redirection and all.
 */
KLPC_TARGET_FUNC int klpc_cm_callee(int x)
{
	return x + 1;
}
EXPORT_SYMBOL_GPL(klpc_cm_callee);

/* Return: 0 if the callee kept the v1 convention, 1 on a mismatch. */
KLPC_TARGET_FUNC int klpc_cm_caller(int x)
{
	return klpc_cm_callee(x) != x + 1;
}

/**
 * klpc_cm_wait() - sleep until "1" is written to /proc/klpc_cm_sleep
 *
 * Return: 0, or -ERESTARTSYS when a signal (or klpc's fake one) came; after
 * "k" only a fatal signal.
 */
int klpc_cm_wait(void)
{
	if (READ_ONCE(klpc_cm_killable))
		return wait_event_killable(klpc_cm_wq,
					   READ_ONCE(klpc_cm_released));
	return wait_event_interruptible(klpc_cm_wq, READ_ONCE(klpc_cm_released));
}
EXPORT_SYMBOL_GPL(klpc_cm_wait);

KLPC_TARGET_FUNC const char *klpc_cm_sleeper(void)
{
	return klpc_cm_wait() ? NULL : "slept v1";
}

static int klpc_cm_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < 100; i++) {
		atomic_long_inc(&klpc_cm_calls);
		if (klpc_cm_caller(i))
			atomic_long_inc(&klpc_cm_mismatches);
	}
	seq_printf(m, "calls=%ld mismatches=%ld\n",
		   atomic_long_read(&klpc_cm_calls),
		   atomic_long_read(&klpc_cm_mismatches));
	return 0;
}

static ssize_t klpc_cm_sleep_read(struct file *file, char __user *buf,
				  size_t count, loff_t *ppos)
{
	const char *msg;

	if (*ppos)
		return 0;
	msg = klpc_cm_sleeper();
	if (!msg)
		return -ERESTARTSYS;
	return simple_read_from_buffer(buf, count, ppos, msg, strlen(msg));
}

/*
 * "1" wakes the sleepers and lets new ones pass, "0" makes readers sleep,
 * "k" makes them sleep killably
 */
static ssize_t klpc_cm_sleep_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	char c;

	if (!count || get_user(c, buf))
		return -EINVAL;
	if (c != '0' && c != '1' && c != 'k')
		return -EINVAL;
	if (c != '1')
		WRITE_ONCE(klpc_cm_killable, c == 'k');
	WRITE_ONCE(klpc_cm_released, c == '1');
	wake_up_all(&klpc_cm_wq);
	return count;
}

static const struct proc_ops klpc_cm_sleep_ops = {
	.proc_read	= klpc_cm_sleep_read,
	.proc_write	= klpc_cm_sleep_write,
	.proc_lseek	= default_llseek,
};

static int __init klpc_cm_init(void)
{
	if (!proc_create_single("klpc_cm", 0444, NULL, klpc_cm_show))
		return -ENOMEM;
	if (!proc_create("klpc_cm_sleep", 0600, NULL, &klpc_cm_sleep_ops)) {
		remove_proc_entry("klpc_cm", NULL);
		return -ENOMEM;
	}
	return 0;
}

static void __exit klpc_cm_exit(void)
{
	remove_proc_entry("klpc_cm_sleep", NULL);
	remove_proc_entry("klpc_cm", NULL);
}

module_init(klpc_cm_init);
module_exit(klpc_cm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample target: a caller/callee pair for the consistency model");
