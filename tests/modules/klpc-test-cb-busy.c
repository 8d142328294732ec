// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-cb-busy.c - a target module that can hold a transition open
 *
 * On load it queues klpc_cb_busy_work_func(), which klpc-test-cb-demo
 * patches.  With block_transition=1 the work function keeps sleeping
 * inside itself, so the kworker running it cannot move and a transition
 * of that patch stays open, until
 *	echo 0 > /sys/module/klpc_test_cb_busy/parameters/block_transition
 * or the module is removed.  With block_transition=0 the work is done
 * before the load returns.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/workqueue.h>

static bool block_transition;
module_param(block_transition, bool, 0644);
MODULE_PARM_DESC(block_transition, "keep the work function sleeping inside itself");

static DECLARE_COMPLETION(klpc_cb_busy_entered);

static void klpc_cb_busy_work_func(struct work_struct *work)
{
	pr_info("work function enter\n");
	complete(&klpc_cb_busy_entered);
	/* the frame of this function stays on the kworker's stack meanwhile */
	while (READ_ONCE(block_transition))
		msleep(20);
	pr_info("work function exit\n");
}

static DECLARE_WORK(klpc_cb_busy_work, klpc_cb_busy_work_func);

static int __init klpc_cb_busy_init(void)
{
	pr_info("init\n");
	schedule_work(&klpc_cb_busy_work);
	/* the "enter" line, and without blocking "exit" too, precede insmod's return */
	wait_for_completion(&klpc_cb_busy_entered);
	if (!READ_ONCE(block_transition))
		flush_work(&klpc_cb_busy_work);
	return 0;
}

static void __exit klpc_cb_busy_exit(void)
{
	WRITE_ONCE(block_transition, false);
	flush_work(&klpc_cb_busy_work);
	pr_info("exit\n");
}

module_init(klpc_cb_busy_init);
module_exit(klpc_cb_busy_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a target whose work function can block a transition");
