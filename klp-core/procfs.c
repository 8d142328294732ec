// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - /proc/klpc: what a transition waits for, its state, figures
 *
 * A module cannot add /proc/<pid>/patch_state files as the built-in
 * livepatch does, so the tasks that block a transition are listed in one
 * file instead, root only: root of the initial user namespace with
 * CAP_SYS_ADMIN, checked at open (access.c), as for /proc/<pid>/stack.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "access.h"
#include "core.h"
#include "hooks.h"
#include "procfs.h"
#include "tasks.h"
#include "transition.h"

static struct proc_dir_entry *klpc_proc_dir;

/* what /proc/klpc/tasks shows: one text, made when the file is opened */
struct klpc_tasks_text {
	size_t len;
	char buf[];
};

/*
 * The text is made once, at open, so that a reader that needs several
 * read() calls, or a bigger buffer, does not walk the table again.  The
 * size follows the pending count; a table that grew meanwhile gets a
 * second, bigger try.
 */
static int klpc_tasks_open(struct inode *inode, struct file *file)
{
	struct klpc_tasks_text *text = NULL;
	size_t size = 0;
	ssize_t len = klpc_may_read(file);
	int tries;

	if (len)
		return len;
	len = -ENOSPC;
	for (tries = 0; tries < 3 && len == -ENOSPC; tries++) {
		kvfree(text);
		size = size * 2 + (klpc_tasks_pending() + 16) * 80;
		text = kvmalloc(struct_size(text, buf, size), GFP_KERNEL);
		if (!text)
			return -ENOMEM;
		mutex_lock(&klpc_mutex);
		len = klpc_tasks_show(text->buf, size);
		mutex_unlock(&klpc_mutex);
	}
	if (len < 0) {
		kvfree(text);
		return len;
	}
	text->len = len;
	file->private_data = text;
	return 0;
}

static ssize_t klpc_tasks_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct klpc_tasks_text *text = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, text->buf, text->len);
}

static int klpc_tasks_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct proc_ops klpc_tasks_proc_ops = {
	.proc_open	= klpc_tasks_open,
	.proc_read	= klpc_tasks_read,
	.proc_lseek	= default_llseek,
	.proc_release	= klpc_tasks_release,
};

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
	seq_printf(m, "moved_by_scan %u\nmoved_by_stack %u\nmoved_by_resume %u\nmoved_by_exit %u\n",
		   st.moves[KLPC_MOVER_SCAN], st.moves[KLPC_MOVER_STACK],
		   st.moves[KLPC_MOVER_RESUME], st.moves[KLPC_MOVER_EXIT]);
	seq_printf(m, "resume_works %u\n", klpc_resume_count());
	return 0;
}

/* /proc/klpc/transition: the one in progress, and how the last ended */
static int klpc_transition_proc_show(struct seq_file *m, void *v)
{
	mutex_lock(&klpc_mutex);
	klpc_transition_show(m);
	mutex_unlock(&klpc_mutex);
	return 0;
}

static int klpc_stats_open(struct inode *inode, struct file *file)
{
	return klpc_may_read(file) ?: single_open(file, klpc_stats_proc_show,
						  NULL);
}

static int klpc_transition_open(struct inode *inode, struct file *file)
{
	return klpc_may_read(file) ?: single_open(file,
						  klpc_transition_proc_show,
						  NULL);
}

static const struct proc_ops klpc_stats_proc_ops = {
	.proc_open	= klpc_stats_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static const struct proc_ops klpc_transition_proc_ops = {
	.proc_open	= klpc_transition_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

/**
 * klpc_proc_init() - create /proc/klpc/{tasks,stats,transition}, root only
 *
 * Return: 0 or -ENOMEM.
 */
int klpc_proc_init(void)
{
	klpc_proc_dir = proc_mkdir("klpc", NULL);
	if (!klpc_proc_dir)
		return -ENOMEM;
	if (!proc_create("tasks", 0400, klpc_proc_dir, &klpc_tasks_proc_ops) ||
	    !proc_create("stats", 0400, klpc_proc_dir, &klpc_stats_proc_ops) ||
	    !proc_create("transition", 0400, klpc_proc_dir,
			 &klpc_transition_proc_ops)) {
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
