// SPDX-License-Identifier: GPL-2.0
/*
 * target-main.c - klpc_target, a module for patches whose object is a module
 *
 * /proc/klpc_target shows what the functions below return, e.g.
 *	message=original dup=1,2 untraceable=0 secret=7
 * A patch on object "klpc_target" changes that line.  klpc_target_dup
 * exists twice (see target-dup.c) and klpc_target_untraceable cannot be
 * traced by ftrace, for patches that must fail.
 */

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "target.h"

KLPC_TARGET_FUNC const char *klpc_target_message(void)
{
	return "original";
}

static KLPC_TARGET_FUNC int klpc_target_dup(void)
{
	return 1;
}

/* static data for patches that reach it through a klpc_sym table */
static int klpc_target_secret = 7;

static KLPC_TARGET_FUNC notrace int klpc_target_untraceable(void)
{
	return 0;
}

static int klpc_target_show(struct seq_file *m, void *v)
{
	seq_printf(m, "message=%s dup=%d,%d untraceable=%d secret=%d\n",
		   klpc_target_message(), klpc_target_dup(),
		   klpc_target_dup_b(), klpc_target_untraceable(),
		   READ_ONCE(klpc_target_secret));
	return 0;
}

static int __init klpc_target_init(void)
{
	if (!proc_create_single("klpc_target", 0444, NULL, klpc_target_show))
		return -ENOMEM;
	return 0;
}

static void __exit klpc_target_exit(void)
{
	remove_proc_entry("klpc_target", NULL);
}

module_init(klpc_target_init);
module_exit(klpc_target_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample target module");
