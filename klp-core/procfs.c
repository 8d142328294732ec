// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - /proc/klpc: what a transition waits for, and its figures
 *
 * A module cannot add /proc/<pid>/patch_state files as the built-in
 * livepatch does, so the tasks that block a transition are listed in one
 * file instead, root only.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "hooks.h"
#include "procfs.h"
#include "tasks.h"

static struct proc_dir_entry *klpc_proc_dir;

/* /proc/klpc/tasks: pid, comm, state and blocker of each task to move */
static int klpc_tasks_proc_show(struct seq_file *m, void *v)
{
	klpc_tasks_show(m);
	return 0;
}

/*
 * /proc/klpc/stats: the table's size, to check it grows and shrinks right,
 * what moved the tasks of the transition in progress (or of the last), and
 * the resume works not yet run or cancelled.
 */
static int klpc_stats_proc_show(struct seq_file *m, void *v)
{
	struct klpc_tasks_stats st;

	klpc_tasks_stats(&st);
	seq_printf(m, "entries %u\npending %u\nbuckets %u\nentry_bytes %zu\n",
		   st.entries, st.pending, st.buckets, st.entry_bytes);
	seq_printf(m, "moved_by_stack %u\nmoved_by_resume %u\nmoved_by_exit %u\n",
		   st.moves[KLPC_MOVER_STACK], st.moves[KLPC_MOVER_RESUME],
		   st.moves[KLPC_MOVER_EXIT]);
	seq_printf(m, "resume_works %u\n", klpc_resume_count());
	return 0;
}

/**
 * klpc_proc_init() - create /proc/klpc/{tasks,stats}, root only
 *
 * Return: 0 or -ENOMEM.
 */
int klpc_proc_init(void)
{
	klpc_proc_dir = proc_mkdir("klpc", NULL);
	if (!klpc_proc_dir)
		return -ENOMEM;
	if (!proc_create_single("tasks", 0400, klpc_proc_dir,
				klpc_tasks_proc_show) ||
	    !proc_create_single("stats", 0400, klpc_proc_dir,
				klpc_stats_proc_show)) {
		proc_remove(klpc_proc_dir);
		return -ENOMEM;
	}
	return 0;
}

/**
 * klpc_proc_exit() - remove /proc/klpc
 */
void klpc_proc_exit(void)
{
	proc_remove(klpc_proc_dir);
}
