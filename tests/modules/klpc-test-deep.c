// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-deep.c - a sleeper with a deep stack, outside any patched code
 *
 * Reading /proc/klpc_deep recurses through @depth frames of
 * klpc_deep_recurse() and sleeps (interruptibly) in the innermost one until
 * "1" is written to /proc/klpc_deep ("0" makes readers sleep again); the
 * read then returns "woke at depth N".  Just before sleeping, the reader
 * saves its own stack trace: /sys/module/klpc_test_deep/parameters/frames
 * tells how many frames it had (/proc/PID/stack shows 64 at most).
 */

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define KLPC_DEEP_MAX_TRACE	256

static uint depth = 80;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "frames of recursion before a reader sleeps");

static uint frames;
module_param(frames, uint, 0444);
MODULE_PARM_DESC(frames, "stack frames of the last reader to fall asleep");

static DECLARE_WAIT_QUEUE_HEAD(klpc_deep_wq);
static bool klpc_deep_released;

static noinline int klpc_deep_wait(void)
{
	unsigned long *entries;

	entries = kmalloc_array(KLPC_DEEP_MAX_TRACE, sizeof(*entries),
				GFP_KERNEL);
	if (entries) {
		WRITE_ONCE(frames, stack_trace_save(entries,
						    KLPC_DEEP_MAX_TRACE, 0));
		kfree(entries);
	}
	return wait_event_interruptible(klpc_deep_wq,
					READ_ONCE(klpc_deep_released));
}

/*
 * One frame per level: noinline, and the opaque use of the result after
 * the call keeps the compiler from turning it into a tail call or a loop.
 */
static noinline int klpc_deep_recurse(unsigned int n)
{
	int ret;

	if (n)
		ret = klpc_deep_recurse(n - 1);
	else
		ret = klpc_deep_wait();
	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

static ssize_t klpc_deep_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	unsigned int n = READ_ONCE(depth);
	char msg[32];
	int ret;

	if (*ppos)
		return 0;
	ret = klpc_deep_recurse(n);
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg), "woke at depth %u\n", n);
	return simple_read_from_buffer(buf, count, ppos, msg, strlen(msg));
}

/* "1" wakes the sleepers and lets new readers pass, "0" makes them sleep */
static ssize_t klpc_deep_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	char c;

	if (!count || get_user(c, buf))
		return -EINVAL;
	if (c != '0' && c != '1')
		return -EINVAL;
	WRITE_ONCE(klpc_deep_released, c == '1');
	wake_up_all(&klpc_deep_wq);
	return count;
}

static const struct proc_ops klpc_deep_ops = {
	.proc_read	= klpc_deep_read,
	.proc_write	= klpc_deep_write,
	.proc_lseek	= default_llseek,
};

static int __init klpc_deep_init(void)
{
	if (!proc_create("klpc_deep", 0600, NULL, &klpc_deep_ops))
		return -ENOMEM;
	return 0;
}

/* readers still asleep are woken: removing the entry waits for them */
static void __exit klpc_deep_exit(void)
{
	WRITE_ONCE(klpc_deep_released, true);
	wake_up_all(&klpc_deep_wq);
	remove_proc_entry("klpc_deep", NULL);
}

module_init(klpc_deep_init);
module_exit(klpc_deep_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a sleeper with a deep stack");
