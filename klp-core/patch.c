// SPDX-License-Identifier: GPL-2.0
/*
 * patch.c - redirection of patched functions through ftrace
 *
 * Every patched address has a struct klpc_ops holding a stack of the
 * klpc_funcs that replace it; the top of the stack is the live version.
 *
 * Unlike the built-in livepatch, which registers one ftrace_ops per patched
 * function, klpc has a single ftrace_ops whose filter holds every patched
 * address; the handler finds the func stack of an address in a hash table.
 * The ops stays registered while klpc is loaded (anchor.c), so patching or
 * unpatching a whole patch is a filter update (one per KLPC_FTRACE_BATCH
 * functions): no trampoline is built or freed, and no RCU-tasks grace
 * period is waited for.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "compat.h"
#include "core.h"
#include "kallsyms.h"
#include "owner.h"
#include "patch.h"
#include "tasks.h"

/**
 * struct klpc_ops - the func stack of one patched address
 * @node:	node in klpc_ops_table, keyed by @ip
 * @func_stack:	funcs replacing @ip, the live one first
 * @ip:		the ftrace location being redirected
 * @next_dead:	link while waiting to be freed
 */
struct klpc_ops {
	struct hlist_node node;
	struct list_head func_stack;
	unsigned long ip;
	struct klpc_ops *next_dead;
};

#define KLPC_OPS_HASH_BITS	12
static DEFINE_HASHTABLE(klpc_ops_table, KLPC_OPS_HASH_BITS);
static unsigned long klpc_anchor_ip;

static void klpc_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *fops,
				struct ftrace_regs *fregs);

/*
 * FTRACE_OPS_FL_PERMANENT is set while anything is patched (see
 * klpc_ftrace_add()): it keeps kernel.ftrace_enabled from being cleared,
 * which would silently revert every patch.  While nothing is, ftrace may be
 * turned off, as with the built-in livepatch.
 */
static struct ftrace_ops klpc_fops = {
	.func	= klpc_ftrace_handler,
	.flags	= FTRACE_OPS_FL_DYNAMIC | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * ftrace direct calls (BPF fentry/fexit/fmod_ret trampolines,
 * register_ftrace_direct()): their table, looked up with the unexported
 * ftrace_find_rec_direct(), and direct_mutex, which every attachment of one
 * holds while it adds to that table.  NULL without direct calls.
 */
static unsigned long (*klpc_find_rec_direct)(unsigned long ip);
static struct mutex *klpc_direct_mutex;

static struct klpc_ops *klpc_find_ops(unsigned long ip)
{
	struct klpc_ops *ops;

	hash_for_each_possible_rcu_notrace(klpc_ops_table, ops, node, ip)
		if (ops->ip == ip)
			return ops;
	return NULL;
}

/*
 * Runs in the context of every call of a patched function, in any context
 * (NMI included), so it takes no locks: the func stacks are RCU lists, and
 * disabling preemption is the read side that klpc_synchronize() waits for.
 *
 * Unlike the built-in livepatch's handler it takes no ftrace recursion
 * lock: everything it calls is inline or built without ftrace (patch.c and
 * tasks.c), so it cannot recurse into itself, and an interrupt or NMI that
 * calls a patched function runs it again from the top, which only reads.
 * That keeps the redirected call at least as cheap as the built-in's,
 * although it has a hash lookup more to do.
 */
static void notrace klpc_ftrace_handler(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *fops,
					struct ftrace_regs *fregs)
{
	struct klpc_ops *ops;
	struct klpc_func *func;

	preempt_disable_notrace();

	/* An address may stay in the filter after its last func went away. */
	ops = klpc_find_ops(ip);
	if (!ops)
		goto unlock;
	func = list_first_or_null_rcu(&ops->func_stack, struct klpc_func,
				      stack_node);
	if (!func)
		goto unlock;

	/*
	 * Read func->transition only after the func itself; the write barrier
	 * is in klpc_init_transition().
	 */
	smp_rmb();
	if (unlikely(func->transition)) {
		/* and the task's state only after func->transition */
		smp_rmb();
		if (klpc_task_patch_state(current) == KLPC_UNPATCHED) {
			/* the task still runs the version below this one */
			func = list_entry_rcu(func->stack_node.next,
					      struct klpc_func, stack_node);
			if (&func->stack_node == &ops->func_stack)
				goto unlock;
		}
	}

	/* a nop func means "the original function" */
	if (func->nop)
		goto unlock;

	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)func->new_func);
unlock:
	preempt_enable_notrace();
}

static void notrace klpc_probe_handler(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *fops,
				       struct ftrace_regs *fregs)
{
}

/*
 * Only used to find which address another IPMODIFY user (the built-in
 * livepatch, a kprobe with a post handler, ...) already owns.  Not
 * PERMANENT, so that it still registers when ftrace is disabled and the
 * search can tell a conflict from a disabled ftrace.
 */
static struct ftrace_ops klpc_probe_fops = {
	.func	= klpc_probe_handler,
	.flags	= FTRACE_OPS_FL_IPMODIFY,
};

static bool klpc_ips_conflict(unsigned long *ips, unsigned int nr)
{
	bool busy;

	if (ftrace_set_filter_ips(&klpc_probe_fops, ips, nr, 0, 1))
		return false;
	busy = register_ftrace_function(&klpc_probe_fops) == -EBUSY;
	if (!busy)
		unregister_ftrace_function(&klpc_probe_fops);
	return busy;
}

/*
 * Bisect for an address whose redirection conflicts with another ftrace
 * user.  Only runs after a failed batch; each step that does not conflict
 * costs one ftrace_ops unregistration.
 */
static unsigned long klpc_find_conflict(unsigned long *ips, unsigned int nr)
{
	unsigned int half;

	if (!klpc_ips_conflict(ips, nr))
		return 0;
	while (nr > 1) {
		half = nr / 2;
		if (klpc_ips_conflict(ips, half)) {
			nr = half;
		} else {
			ips += half;
			nr -= half;
		}
	}
	return ips[0];
}

/* The first of @ips that has a direct call, or 0; direct_mutex held. */
static unsigned long klpc_find_direct(const unsigned long *ips,
				      unsigned int nr)
{
	unsigned int i;

	if (!klpc_find_rec_direct)
		return 0;
	for (i = 0; i < nr; i++)
		if (klpc_find_rec_direct(ips[i]))
			return ips[i];
	return 0;
}

/*
 * ftrace reads the flags of a registered ops under ftrace_lock, which
 * ftrace_set_filter_ips() takes: PERMANENT set before the update is seen by
 * any later clearing of kernel.ftrace_enabled, and a clearing that came
 * first is seen in ftrace_enabled after it.  Only klpc changes the flags of
 * its ops, with klpc_mutex held.
 */
static void klpc_fops_set_permanent(bool permanent)
{
	if (permanent)
		klpc_fops.flags |= FTRACE_OPS_FL_PERMANENT;
	else
		klpc_fops.flags &= ~FTRACE_OPS_FL_PERMANENT;
}

/*
 * x86's ftrace_replace_code() rewrites every call site of one filter update
 * without a resched point: 1000 addresses in one update held a CPU for
 * 70-140 ms under TCG, against a few ms for one.  Updates of at most this
 * many addresses, with cond_resched() between them, bound that stall.
 * Smaller batches do not bound it further: every update also walks all
 * ~50,000 ftrace records five times, three of them in ftrace_hash_move()
 * with no resched point between them (some 7.5 ms under TCG with 1000
 * functions in the filter, reckoned from an update's time less its text
 * poking).  Batches of 20 cut an update's text poking from 5 ms to 2 but
 * not the worst wake-up of a 1000-function disable, and tripled its time
 * (docs/bench.md).
 */
#define KLPC_FTRACE_BATCH	64

/* a failed removal left addresses in the filter (see klpc_ftrace_remove()) */
static bool klpc_filter_stale;

/*
 * Add (@remove 0) or remove @ips from the filter of klpc's ops, in batches.
 * A failed ftrace update leaves the filter as it was; *@done is set to how
 * many addresses went through before it.
 */
static int klpc_filter_update(unsigned long *ips, unsigned int nr, int remove,
			      unsigned int *done)
{
	unsigned int n;
	int ret = 0;

	for (*done = 0; *done < nr; *done += n) {
		n = min_t(unsigned int, nr - *done, KLPC_FTRACE_BATCH);
		if (*done)
			cond_resched();
		ret = ftrace_set_filter_ips(&klpc_fops, ips + *done, n, remove, 0);
		if (ret)
			break;
	}
	return ret;
}

/* Take out again the @nr addresses of a failed addition. */
static void klpc_filter_undo(unsigned long *ips, unsigned int nr)
{
	unsigned int done;

	if (nr && klpc_filter_update(ips, nr, 1, &done))
		klpc_filter_stale = true;
}

/*
 * Add @ips to the filter of klpc's ops, all or none.
 *
 * They go in batches: until the caller publishes their func stacks, the
 * handler ignores the addresses already added.  If a batch fails, those
 * before it are taken out again, and *@failed is the index of its first
 * address.
 *
 * An address with an ftrace direct call (a BPF trampoline) is refused with
 * -EBUSY and returned in *@direct.  Registering an IPMODIFY ops asks the
 * owner of each direct call on its functions to share them
 * (prepare_direct_functions_for_ipmodify(): a BPF trampoline is rebuilt to
 * continue at the address the handler sets; a direct call that cannot
 * share fails the registration), but adding an address to the filter of an
 * ops already registered asks nobody: the direct call would go on running
 * the original function while the patch reads enabled.  direct_mutex keeps
 * a direct call from being attached between the check and the update; one
 * attached afterwards finds the address marked IPMODIFY, and ftrace makes
 * it share the function or refuses it.
 */
static int klpc_ftrace_add(unsigned long *ips, unsigned int nr,
			   unsigned long *direct, unsigned int *failed)
{
	bool first = hash_empty(klpc_ops_table);
	int ret = -EBUSY;

	*direct = 0;
	*failed = 0;
	if (!nr)
		return 0;
	if (klpc_direct_mutex)
		mutex_lock(klpc_direct_mutex);
	*direct = klpc_find_direct(ips, nr);
	if (*direct)
		goto unlock;
	if (first)
		klpc_fops_set_permanent(true);
	ret = klpc_filter_update(ips, nr, 0, failed);
	/* with ftrace off the filter changes, but no call is redirected */
	if (!ret && !READ_ONCE(*klpc_ksyms.ftrace_enabled)) {
		ret = -EBUSY;
		*failed = 0;
		klpc_filter_undo(ips, nr);
	} else if (ret) {
		klpc_filter_undo(ips, *failed);
	}
	if (ret && first)
		klpc_fops_set_permanent(false);
unlock:
	if (klpc_direct_mutex)
		mutex_unlock(klpc_direct_mutex);
	return ret;
}

/*
 * Take the addresses of @dead out of the filter, in batches as they went
 * in.  If an update fails, the addresses stay: the handler ignores an
 * address without a func stack, and the reset when the last patch goes
 * drops them, so unpatching still cannot fail.
 */
static void klpc_ftrace_remove(struct klpc_ops *dead, unsigned int nr)
{
	unsigned int i = 0, done = 0;
	unsigned long *ips;
	int ret = -ENOMEM;

	if (!nr)
		return;
	ips = kvmalloc_array(nr, sizeof(*ips), GFP_KERNEL);
	if (ips) {
		for (; dead; dead = dead->next_dead)
			ips[i++] = dead->ip;
		ret = klpc_filter_update(ips, nr, 1, &done);
		kvfree(ips);
	}
	if (ret)
		klpc_filter_stale = true;
	if (!hash_empty(klpc_ops_table))
		goto out;
	/* the last address went: drop what failed updates left behind */
	if (klpc_filter_stale &&
	    !ftrace_set_filter_ip(&klpc_fops, klpc_anchor_ip, 0, 1)) {
		klpc_filter_stale = false;
		ret = 0;
	}
	/* nothing is redirected any more: ftrace may be turned off */
	klpc_fops_set_permanent(false);
out:
	if (ret)
		pr_warn("%u unpatched addresses stay traced until the last patch is gone (%d)\n",
			nr - done, ret);
}

static bool klpc_obj_selected(struct klpc_object *obj,
			      struct klpc_object *only, bool patched)
{
	if (only && obj != only)
		return false;
	return klpc_is_object_loaded(obj) && obj->patched == patched;
}

static unsigned int klpc_count_funcs(struct klpc_patch *patch,
				     struct klpc_object *only)
{
	struct klpc_object *obj;
	struct klpc_func *func;
	unsigned int nr = 0;

	klpc_for_each_object(patch, obj) {
		if (!klpc_obj_selected(obj, only, false))
			continue;
		klpc_for_each_func(obj, func)
			nr++;
	}
	return nr;
}

/*
 * One message for a failed filter update: the function that has a direct
 * call (@direct) or that another IPMODIFY user owns, if there is one, and
 * that user when owner.c can tell it.
 */
static void klpc_report_failure(struct klpc_patch *patch,
				unsigned long *ips, unsigned int nr,
				unsigned long direct, int ret)
{
	struct klpc_object *obj;
	struct klpc_func *func;
	bool ftrace_off = !READ_ONCE(*klpc_ksyms.ftrace_enabled);
	const char *why = "is already redirected by another ftrace user (livepatch or kprobe)";
	char owner[256];
	unsigned long bad = direct;

	if (direct)
		why = "has an ftrace direct call (BPF trampoline) attached";
	else if (ret == -EBUSY && !ftrace_off)
		bad = klpc_find_conflict(ips, nr);

	klpc_for_each_object(patch, obj) {
		klpc_for_each_func(obj, func) {
			if (!bad || func->old_ip != bad)
				continue;
			if (!direct &&
			    klpc_ftrace_owner((unsigned long)func->old_func,
					      func->old_ip, owner,
					      sizeof(owner))) {
				klpc_obj_err(patch, klpc_obj_name(obj),
					     "function '%s' is already redirected by %s (%d)\n",
					     func->old_name, owner, ret);
				return;
			}
			klpc_obj_err(patch, klpc_obj_name(obj),
				     "function '%s' %s (%d)\n", func->old_name,
				     why, ret);
			return;
		}
	}
	klpc_patch_err(patch, "ftrace cannot redirect function '%s'%s (%d)%s\n",
		       klpc_first_func_name(patch),
		       nr > 1 ? " and the others" : "", ret,
		       ftrace_off ? ": kernel.ftrace_enabled is 0" : "");
}

/*
 * Push the funcs of the selected objects on their func stacks.  Addresses
 * that no patch redirects yet get a new klpc_ops; all of them enter the
 * ftrace filter, and nothing is pushed unless every one did.
 */
static int klpc_patch_objs(struct klpc_patch *patch, struct klpc_object *only)
{
	unsigned int max = klpc_count_funcs(patch, only), nr = 0, failed, i;
	/* NULL: an object of callbacks only (!max) reaches the kvfree()s */
	struct klpc_ops **new_ops = NULL, *ops;
	struct klpc_object *obj;
	struct klpc_func *func;
	unsigned long *ips = NULL, direct;
	int ret = -ENOMEM;

	if (!max)
		goto mark;
	ips = kvcalloc(max, sizeof(*ips), GFP_KERNEL);
	new_ops = kvcalloc(max, sizeof(*new_ops), GFP_KERNEL);
	if (!ips || !new_ops)
		goto nomem;

	klpc_for_each_object(patch, obj) {
		if (!klpc_obj_selected(obj, only, false))
			continue;
		klpc_for_each_func(obj, func) {
			if (klpc_find_ops(func->old_ip))
				continue;
			ops = kzalloc(sizeof(*ops), GFP_KERNEL);
			if (!ops)
				goto nomem;
			ops->ip = func->old_ip;
			INIT_LIST_HEAD(&ops->func_stack);
			new_ops[nr] = ops;
			ips[nr++] = ops->ip;
		}
	}

	ret = klpc_ftrace_add(ips, nr, &direct, &failed);
	if (ret) {
		klpc_report_failure(patch, ips + failed, nr - failed, direct,
				    ret);
		goto out;
	}

	for (i = 0; i < nr; i++)
		hash_add_rcu(klpc_ops_table, &new_ops[i]->node, new_ops[i]->ip);
	nr = 0;

	klpc_for_each_object(patch, obj) {
		if (!klpc_obj_selected(obj, only, false))
			continue;
		klpc_for_each_func(obj, func) {
			ops = klpc_find_ops(func->old_ip);
			list_add_rcu(&func->stack_node, &ops->func_stack);
			func->patched = true;
		}
	}
mark:
	klpc_for_each_object(patch, obj)
		if (klpc_obj_selected(obj, only, false))
			obj->patched = true;
	ret = 0;
	goto out;
nomem:
	/* the one failure here that has no message of its own */
	klpc_patch_err(patch,
		       "cannot allocate the redirection of its functions (-ENOMEM)\n");
out:
	for (i = 0; i < nr; i++)
		kfree(new_ops[i]);
	kvfree(new_ops);
	kvfree(ips);
	return ret;
}

/* Take a func off its stack; an emptied stack joins the @dead list. */
static void klpc_pop_func(struct klpc_func *func, struct klpc_ops **dead,
			  unsigned int *nr)
{
	struct klpc_ops *ops = klpc_find_ops(func->old_ip);

	if (WARN_ON_ONCE(!ops))
		return;
	list_del_rcu(&func->stack_node);
	func->patched = false;
	if (list_empty(&ops->func_stack)) {
		hash_del_rcu(&ops->node);
		ops->next_dead = *dead;
		*dead = ops;
		(*nr)++;
	}
}

static void klpc_free_dead(struct klpc_ops *dead, unsigned int nr)
{
	struct klpc_ops *ops;

	klpc_ftrace_remove(dead, nr);

	/* no handler may still be looking at a stack we are about to free */
	if (dead)
		klpc_synchronize();
	while (dead) {
		ops = dead;
		dead = dead->next_dead;
		kfree(ops);
	}
}

static void klpc_unpatch_objs(struct klpc_patch *patch,
			      struct klpc_object *only)
{
	struct klpc_ops *dead = NULL;
	struct klpc_object *obj;
	struct klpc_func *func;
	unsigned int nr = 0;

	klpc_for_each_object(patch, obj) {
		if (!klpc_obj_selected(obj, only, true))
			continue;
		klpc_for_each_func(obj, func)
			if (func->patched)
				klpc_pop_func(func, &dead, &nr);
		obj->patched = false;
	}
	klpc_free_dead(dead, nr);
}

/**
 * klpc_patch_objects() - redirect every loaded, unpatched object of a patch
 * @patch:	the patch
 *
 * Return: 0, or an error with nothing of @patch newly patched.
 */
int klpc_patch_objects(struct klpc_patch *patch)
{
	return klpc_patch_objs(patch, NULL);
}

/**
 * klpc_patch_object() - redirect the funcs of one object that just loaded
 * @obj:	the object, which must belong to a registered patch
 *
 * Return: 0, or an error with nothing of @obj patched.
 */
int klpc_patch_object(struct klpc_object *obj)
{
	return klpc_patch_objs(klpc_obj_patch(obj), obj);
}

/**
 * klpc_unpatch_objects() - remove every func of a patch from its func stack
 * @patch:	the patch
 *
 * Cannot fail.  On return no CPU runs the ftrace handler on a removed func
 * stack, but tasks may still be executing the removed new functions.
 */
void klpc_unpatch_objects(struct klpc_patch *patch)
{
	klpc_unpatch_objs(patch, NULL);
}

/**
 * klpc_unpatch_object() - remove the funcs of one object from the func stacks
 * @obj:	the object, which must belong to a registered patch
 */
void klpc_unpatch_object(struct klpc_object *obj)
{
	klpc_unpatch_objs(klpc_obj_patch(obj), obj);
}

/**
 * klpc_unpatch_nops() - take a replace patch's nops off the func stacks
 * @patch:	the patch, whose transition to the patched state completed
 *
 * Once no patch below a nop is left, the nop means what an empty func
 * stack means: the original function.  Cannot fail.
 */
void klpc_unpatch_nops(struct klpc_patch *patch)
{
	struct klpc_ops *dead = NULL;
	struct klpc_object *obj;
	struct klpc_func *func;
	unsigned int nr = 0;

	klpc_for_each_object(patch, obj) {
		klpc_for_each_func(obj, func)
			if (func->nop && func->patched)
				klpc_pop_func(func, &dead, &nr);
		/* an object of nothing but nops patches nothing now */
		if (obj->dynamic)
			obj->patched = false;
	}
	klpc_free_dead(dead, nr);
}

/**
 * klpc_func_below() - the func a func replaces on its func stack
 * @func:	a patched func
 *
 * Return: the next older func for the same address, or NULL when @func
 * replaces the original function.
 */
struct klpc_func *klpc_func_below(struct klpc_func *func)
{
	struct klpc_ops *ops = klpc_find_ops(func->old_ip);

	if (!ops || list_is_last(&func->stack_node, &ops->func_stack))
		return NULL;
	return list_next_entry(func, stack_node);
}

/*
 * Find what klpc needs to see direct calls.  Only this file uses them,
 * hence not in klpc_ksyms; and klpc_find_symbol(), unlike a plain lookup,
 * refuses a name that is not unique, which a static variable such as
 * direct_mutex need not be.
 */
static int klpc_direct_init(void)
{
	unsigned long find_rec, mutex;
	const char *name = "ftrace_find_rec_direct";
	int ret;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS))
		return 0;
	ret = klpc_find_symbol(NULL, name, 0, &find_rec);
	if (!ret) {
		name = "direct_mutex";
		ret = klpc_find_symbol(NULL, name, 0, &mutex);
	}
	if (ret) {
		pr_err("kernel symbol '%s' not found or not unique (%d)\n",
		       name, ret);
		return -ENOENT;
	}
	klpc_find_rec_direct = (void *)find_rec;
	klpc_direct_mutex = (struct mutex *)mutex;
	return 0;
}

/**
 * klpc_patch_init() - register klpc's ftrace_ops, on the anchor alone
 *
 * Return: 0, or an error from ftrace or a missing kernel symbol, after a
 * message.
 */
int klpc_patch_init(void)
{
	int ret;

	ret = klpc_direct_init();
	if (ret)
		return ret;
	klpc_anchor_ip =
		klpc_ksyms.ftrace_location((unsigned long)klpc_ftrace_anchor);
	ret = klpc_anchor_ip ? 0 : -ENOENT;
	if (!ret)
		ret = ftrace_set_filter_ip(&klpc_fops, klpc_anchor_ip, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&klpc_fops);
	if (ret) {
		pr_err("cannot register the ftrace handler (%d)\n", ret);
		ftrace_free_filter(&klpc_fops);
	}
	return ret;
}

/**
 * klpc_patch_exit() - unregister klpc's ftrace_ops and free its filters
 *
 * Called when klpc unloads, when no patch is registered any more.
 */
void klpc_patch_exit(void)
{
	WARN_ON(!hash_empty(klpc_ops_table));
	unregister_ftrace_function(&klpc_fops);
	ftrace_free_filter(&klpc_fops);
	ftrace_free_filter(&klpc_probe_fops);
}
