// SPDX-License-Identifier: GPL-2.0
/*
 * access.c - who may change klpc, and who may read what it shows
 *
 * sysfs and procfs check only a file's mode and owner, and uid 0 of a
 * user namespace that maps it to the host's uid 0 (a container whose
 * root is the host's root) owns klpc's files whatever its capabilities;
 * so does uid 0 without capabilities in the initial namespace.  On top
 * of the modes:
 *
 * - changing which code runs (enabled, force, the module parameters)
 *   takes what loading the patch took: CAP_SYS_MODULE in the initial
 *   user namespace, checked at the write;
 * - reading /proc/klpc, which names other tasks and the functions on
 *   their stacks, takes what reading a task's kernel stack takes
 *   (/proc/<pid>/stack): CAP_SYS_ADMIN in the initial user namespace,
 *   checked against the opener's credentials.
 *
 * Each refusal is -EPERM with one kernel log line naming the file and
 * the task.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/uidgid.h>

#include "access.h"
#include "core.h"

/**
 * klpc_may_write() - whether the writing task may change klpc's state
 * @patch: the patch whose file is written, NULL for a module parameter
 * @name: the file or the parameter
 *
 * Return: 0, or -EPERM and one log line.
 */
int klpc_may_write(const char *patch, const char *name)
{
	if (capable(CAP_SYS_MODULE))
		return 0;
	if (patch)
		klpc_pr_patch(pr_notice_ratelimited, patch,
			      "'%s': written by pid %d (%s), uid %u, without CAP_SYS_MODULE in the initial user namespace (-EPERM)\n",
			      name, task_tgid_nr(current), current->comm,
			      from_kuid(&init_user_ns, current_uid()));
	else
		pr_notice_ratelimited("parameter '%s': written by pid %d (%s), uid %u, without CAP_SYS_MODULE in the initial user namespace (-EPERM)\n",
				      name, task_tgid_nr(current), current->comm,
				      from_kuid(&init_user_ns, current_uid()));
	return -EPERM;
}

/**
 * klpc_may_read() - whether the opener of a /proc/klpc file may read it
 * @file: the file being opened
 *
 * Return: 0, or -EPERM and one log line.
 */
int klpc_may_read(struct file *file)
{
	if (file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return 0;
	pr_notice_ratelimited("/proc/klpc/%pD: opened by pid %d (%s), uid %u, without CAP_SYS_ADMIN in the initial user namespace (-EPERM)\n",
			      file, task_tgid_nr(current), current->comm,
			      from_kuid(&init_user_ns, file->f_cred->uid));
	return -EPERM;
}
