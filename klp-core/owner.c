// SPDX-License-Identifier: GPL-2.0
/*
 * owner.c - who holds a function that klpc cannot redirect
 *
 * One ftrace user only may change where a function's call goes
 * (IPMODIFY).  When ftrace refuses klpc a function, this names the other
 * one for klpc's log line, from the records of the two usual holders:
 * the kernel's livepatch (its patches' functions, under klp_mutex) and
 * kprobes (a kprobe with a post handler takes IPMODIFY).  Neither record
 * is exported: they are looked up by name, and a holder klpc cannot tell
 * is left unnamed.  klp_mutex is only tried: the built-in livepatch may
 * hold it while it waits for ftrace, and a report never waits for it.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/livepatch.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "kallsyms.h"
#include "owner.h"

/* the built-in livepatch's patch that replaces the function at @addr */
static bool klpc_livepatch_owner(unsigned long addr, char *buf, size_t size)
{
#ifdef CONFIG_LIVEPATCH
	struct list_head *patches;
	/* klp_mutex: guards the built-in's list of patches */
	struct mutex *lock;
	struct klp_patch *patch;
	struct klp_object *obj;
	struct klp_func *func;
	bool found = false;

	patches = (void *)klpc_ksyms.lookup_name("klp_patches");
	lock = (void *)klpc_ksyms.lookup_name("klp_mutex");
	if (!patches || !lock || !mutex_trylock(lock))
		return false;
	list_for_each_entry(patch, patches, list) {
		klp_for_each_object(patch, obj) {
			klp_for_each_func(obj, func) {
				if ((unsigned long)func->old_func != addr)
					continue;
				snprintf(buf, size,
					 "the kernel's livepatch (patch '%s')",
					 patch->mod->name);
				found = true;
				goto out;
			}
		}
	}
out:
	mutex_unlock(lock);
	return found;
#else
	return false;
#endif
}

/* a kprobe with a post handler at @ip (the function's ftrace location) */
static bool klpc_kprobe_owner(unsigned long ip, char *buf, size_t size)
{
#ifdef CONFIG_KPROBES
	struct kprobe *(*get)(void *addr);
	struct kprobe *kp, *child;
	void *handler = NULL;

	get = (void *)klpc_ksyms.lookup_name("get_kprobe");
	if (!get)
		return false;
	rcu_read_lock();
	kp = get((void *)ip);
	if (kp && kp->post_handler) {
		handler = kp->post_handler;
		/* an aggregate: the first of its kprobes with a post handler */
		list_for_each_entry_rcu(child, &kp->list, list) {
			if (child->post_handler) {
				handler = child->post_handler;
				break;
			}
		}
		snprintf(buf, size, "a kprobe with a post handler (%ps)",
			 handler);
	}
	rcu_read_unlock();
	return handler;
#else
	return false;
#endif
}

/**
 * klpc_ftrace_owner() - describe the IPMODIFY ftrace user of a function
 * @addr: the function's address
 * @ip: its ftrace location
 * @buf: for the description ("the kernel's livepatch (patch 'x')")
 * @size: of @buf
 *
 * Return: whether the holder was found and described in @buf.
 */
bool klpc_ftrace_owner(unsigned long addr, unsigned long ip, char *buf,
		       size_t size)
{
	return klpc_livepatch_owner(addr, buf, size) ||
	       klpc_kprobe_owner(ip, buf, size);
}
