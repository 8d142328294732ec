// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-loadavg-fix.c - an example patch built out of tree (README, "Making
 * a patch"): loadavg_proc_show(), the function behind
 * /proc/loadavg, replaced by a copy that marks its line with " klpc".
 *
 * The copy needs three symbols vmlinux does not export; klpc resolves
 * them from the klpc_sym table before it patches the function.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/sched/loadavg.h>
#include <linux/seq_file.h>
#include <klpc.h>

static void (*klpc_get_avenrun)(unsigned long *loads, unsigned long offset,
				int shift);
static unsigned int (*klpc_nr_running)(void);
static int *klpc_nr_threads;

static int fix_loadavg_proc_show(struct seq_file *m, void *v)
{
	unsigned long avnrun[3];

	klpc_get_avenrun(avnrun, FIXED_1 / 200, 0);
	seq_printf(m, "%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d klpc\n",
		   LOAD_INT(avnrun[0]), LOAD_FRAC(avnrun[0]),
		   LOAD_INT(avnrun[1]), LOAD_FRAC(avnrun[1]),
		   LOAD_INT(avnrun[2]), LOAD_FRAC(avnrun[2]),
		   klpc_nr_running(), READ_ONCE(*klpc_nr_threads),
		   idr_get_cursor(&task_active_pid_ns(current)->idr) - 1);
	return 0;
}

static struct klpc_sym syms[] = {
	KLPC_SYM("get_avenrun", 0, &klpc_get_avenrun),
	KLPC_SYM("nr_running", 0, &klpc_nr_running),
	KLPC_SYM("nr_threads", 0, &klpc_nr_threads),
	{ }
};

static struct klpc_func funcs[] = {
	{ .old_name = "loadavg_proc_show", .new_func = fix_loadavg_proc_show },
	{ }
};

static struct klpc_object objs[] = {
	{ .funcs = funcs, .syms = syms },	/* vmlinux */
	{ }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init fix_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit fix_exit(void)
{
}

module_init(fix_init);
module_exit(fix_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("example: /proc/loadavg marked as live patched");
KLPC_PATCH_DESC("/proc/loadavg ends its line with ' klpc'");
KLPC_PATCH_CVE("CVE-0000-0100");
