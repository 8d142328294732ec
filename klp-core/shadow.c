// SPDX-License-Identifier: GPL-2.0
/*
 * shadow.c - shadow variables: data attached to existing kernel objects
 *
 * A patch that needs a new field in a structure it cannot change attaches
 * a shadow variable to each instance: an <obj, id> pair, where obj is the
 * address of the parent object and id names the field, maps to a buffer
 * that klpc allocates.  The semantics are those of upstream 6.1's
 * klp_shadow_*() API (Documentation/livepatch/shadow-vars.rst), except
 * that a duplicate klpc_shadow_alloc() says so with pr_err() instead of a
 * WARN: klpc must never leave "WARNING:" in the kernel log.
 *
 * Concurrency: patched code calls these functions in any context except
 * NMI, so writers take klpc_shadow_lock with interrupts off and readers
 * walk the hash under RCU.  A variable is published (hash_add_rcu) only
 * after its constructor succeeded, so klpc_shadow_get() never returns
 * half-built data; it is freed with kfree_rcu(), so a reader that found
 * it can finish its walk, and a caller that looked it up inside its own
 * rcu_read_lock() section may use the data until it leaves the section
 * even if another CPU frees the variable meanwhile.  Beyond that, access
 * to the data is up to the caller's own locking, as upstream.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <klpc.h>

#include "shadow.h"

/* 4096 buckets, as upstream: patches may shadow many objects */
#define KLPC_SHADOW_HASH_BITS	12

static DEFINE_HASHTABLE(klpc_shadow_hash, KLPC_SHADOW_HASH_BITS);

/* serializes all changes of klpc_shadow_hash, constructors, destructors */
static DEFINE_SPINLOCK(klpc_shadow_lock);

/**
 * struct klpc_shadow - one shadow variable
 * @node:	node in klpc_shadow_hash, in the bucket of @obj
 * @rcu:	for freeing after the readers that may see it are done
 * @obj:	the parent object
 * @id:		what the variable is, among the parent's shadow variables
 * @data:	the caller's data, @size bytes as asked for at allocation
 */
struct klpc_shadow {
	struct hlist_node node;
	struct rcu_head rcu;
	void *obj;
	unsigned long id;
	char data[];
};

/*
 * The variable <obj, id> or NULL.  Caller holds rcu_read_lock() or
 * klpc_shadow_lock.
 */
static struct klpc_shadow *klpc_shadow_find(void *obj, unsigned long id)
{
	struct klpc_shadow *shadow;

	hash_for_each_possible_rcu(klpc_shadow_hash, shadow, node,
				   (unsigned long)obj,
				   lockdep_is_held(&klpc_shadow_lock)) {
		if (shadow->obj == obj && shadow->id == id)
			return shadow;
	}
	return NULL;
}

/**
 * klpc_shadow_get() - find the data of a shadow variable
 * @obj:	pointer to the parent object
 * @id:		identifier of the variable
 *
 * Safe in any context but NMI, concurrently with the other shadow
 * functions.
 *
 * Return: the data of the <@obj, @id> shadow variable, or NULL if there is
 * none.
 */
void *klpc_shadow_get(void *obj, unsigned long id)
{
	struct klpc_shadow *shadow;
	void *data = NULL;

	rcu_read_lock();
	shadow = klpc_shadow_find(obj, id);
	if (shadow)
		data = shadow->data;
	rcu_read_unlock();
	return data;
}
EXPORT_SYMBOL_GPL(klpc_shadow_get);

/*
 * Under klpc_shadow_lock: construct @new for <obj, id> and publish it.
 * Returns 0, or the constructor's error; then @new was not published.
 */
static int klpc_shadow_attach(struct klpc_shadow *new, void *obj,
			      unsigned long id, klpc_shadow_ctor_t ctor,
			      void *ctor_data)
{
	int ret;

	new->obj = obj;
	new->id = id;
	if (ctor) {
		ret = ctor(obj, new->data, ctor_data);
		if (ret) {
			pr_err_ratelimited("shadow variable <%p, id 0x%lx>: constructor failed (%d)\n",
					   obj, id, ret);
			return ret;
		}
	}
	/* the constructor's stores are ordered before this publication */
	hash_add_rcu(klpc_shadow_hash, &new->node, (unsigned long)obj);
	return 0;
}

/*
 * The common part of klpc_shadow_alloc() and klpc_shadow_get_or_alloc().
 * The buffer is allocated before the lock is taken, so that @gfp_flags
 * alone decide whether this may sleep; the lookup is repeated under the
 * lock, where the constructor runs only when <obj, id> is still absent.
 */
static void *klpc_shadow_get_or_add(void *obj, unsigned long id, size_t size,
				    gfp_t gfp_flags, klpc_shadow_ctor_t ctor,
				    void *ctor_data, bool dup_is_error)
{
	struct klpc_shadow *new, *old;
	unsigned long flags;
	void *data;

	data = klpc_shadow_get(obj, id);
	if (data)
		goto exists;

	new = kzalloc(struct_size(new, data, size), gfp_flags);
	if (!new)
		return NULL;

	spin_lock_irqsave(&klpc_shadow_lock, flags);
	old = klpc_shadow_find(obj, id);
	if (unlikely(old)) {
		/* someone else added it since the lockless lookup */
		data = old->data;
		spin_unlock_irqrestore(&klpc_shadow_lock, flags);
		kfree(new);
		goto exists;
	}
	if (klpc_shadow_attach(new, obj, id, ctor, ctor_data)) {
		spin_unlock_irqrestore(&klpc_shadow_lock, flags);
		kfree(new);
		return NULL;
	}
	spin_unlock_irqrestore(&klpc_shadow_lock, flags);
	return new->data;

exists:
	if (dup_is_error) {
		pr_err_ratelimited("shadow variable <%p, id 0x%lx> exists already\n",
				   obj, id);
		return NULL;
	}
	return data;
}

/**
 * klpc_shadow_alloc() - allocate and attach a new shadow variable
 * @obj:	pointer to the parent object
 * @id:		identifier of the variable
 * @size:	size of the data, in bytes
 * @gfp_flags:	how to allocate the data
 * @ctor:	constructor of the data (optional); the data are zeroed first
 * @ctor_data:	passed to @ctor
 *
 * The data become visible to klpc_shadow_get() only once @ctor returned
 * 0.  @ctor is called only when <@obj, @id> does not exist yet, under a
 * spinlock with interrupts disabled: it must not sleep.  The allocation
 * itself is done without the lock, with @gfp_flags.
 *
 * Unlike upstream's klp_shadow_alloc(), an existing <@obj, @id> is
 * reported with pr_err(), naming @id, and not with a WARN.
 *
 * Return: the new data, or NULL if <@obj, @id> exists already, memory ran
 * out or @ctor failed.
 */
void *klpc_shadow_alloc(void *obj, unsigned long id, size_t size,
			gfp_t gfp_flags, klpc_shadow_ctor_t ctor,
			void *ctor_data)
{
	return klpc_shadow_get_or_add(obj, id, size, gfp_flags, ctor,
				      ctor_data, true);
}
EXPORT_SYMBOL_GPL(klpc_shadow_alloc);

/**
 * klpc_shadow_get_or_alloc() - find a shadow variable, or attach a new one
 * @obj:	pointer to the parent object
 * @id:		identifier of the variable
 * @size:	size of the data, in bytes
 * @gfp_flags:	how to allocate the data
 * @ctor:	constructor of the data (optional); the data are zeroed first
 * @ctor_data:	passed to @ctor
 *
 * Like klpc_shadow_alloc(), but an existing <@obj, @id> is no error: its
 * data are returned.  Concurrent callers for the same <@obj, @id> all get
 * the same data, constructed once.
 *
 * Return: the data of <@obj, @id>, or NULL if memory ran out or @ctor
 * failed.
 */
void *klpc_shadow_get_or_alloc(void *obj, unsigned long id, size_t size,
			       gfp_t gfp_flags, klpc_shadow_ctor_t ctor,
			       void *ctor_data)
{
	return klpc_shadow_get_or_add(obj, id, size, gfp_flags, ctor,
				      ctor_data, false);
}
EXPORT_SYMBOL_GPL(klpc_shadow_get_or_alloc);

/* Under klpc_shadow_lock: unpublish @shadow, destroy and free it. */
static void klpc_shadow_drop(struct klpc_shadow *shadow,
			     klpc_shadow_dtor_t dtor)
{
	hash_del_rcu(&shadow->node);
	if (dtor)
		dtor(shadow->obj, shadow->data);
	kfree_rcu(shadow, rcu);
}

/**
 * klpc_shadow_free() - detach and free a shadow variable
 * @obj:	pointer to the parent object
 * @id:		identifier of the variable
 * @dtor:	called with the data before they are freed (optional), under
 *		a spinlock with interrupts disabled: it must not sleep
 *
 * Nothing happens if <@obj, @id> does not exist.  The memory is freed
 * after an RCU grace period, so concurrent klpc_shadow_get() calls are
 * safe; the caller must stop using the data.
 */
void klpc_shadow_free(void *obj, unsigned long id, klpc_shadow_dtor_t dtor)
{
	struct klpc_shadow *shadow;
	unsigned long flags;

	spin_lock_irqsave(&klpc_shadow_lock, flags);
	shadow = klpc_shadow_find(obj, id);
	if (shadow)
		klpc_shadow_drop(shadow, dtor);
	spin_unlock_irqrestore(&klpc_shadow_lock, flags);
}
EXPORT_SYMBOL_GPL(klpc_shadow_free);

/**
 * klpc_shadow_free_all() - detach and free every shadow variable of an id
 * @id:		identifier of the variables
 * @dtor:	called with each variable's data before it is freed
 *		(optional), as for klpc_shadow_free()
 *
 * A patch module typically calls this when it is removed, for each id it
 * used.  The whole hash is walked with interrupts disabled.
 */
void klpc_shadow_free_all(unsigned long id, klpc_shadow_dtor_t dtor)
{
	struct klpc_shadow *shadow;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&klpc_shadow_lock, flags);
	hash_for_each_safe(klpc_shadow_hash, bkt, tmp, shadow, node) {
		if (shadow->id == id)
			klpc_shadow_drop(shadow, dtor);
	}
	spin_unlock_irqrestore(&klpc_shadow_lock, flags);
}
EXPORT_SYMBOL_GPL(klpc_shadow_free_all);

/*
 * klpc.ko is going.  Every module that could have attached a shadow
 * variable used our symbols and is gone already, so what is left was
 * leaked by a patch module (upstream leaves such variables forever, too;
 * freeing them is the patch module's job).  Nobody can reach them any
 * more, so free them, but without their destructors, whose code went with
 * their modules, and say how many there were: whatever their data pointed
 * to is leaked.
 */
void klpc_shadow_exit(void)
{
	struct klpc_shadow *shadow;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int left = 0;
	int bkt;

	spin_lock_irqsave(&klpc_shadow_lock, flags);
	hash_for_each_safe(klpc_shadow_hash, bkt, tmp, shadow, node) {
		hash_del_rcu(&shadow->node);
		kfree_rcu(shadow, rcu);
		left++;
	}
	spin_unlock_irqrestore(&klpc_shadow_lock, flags);
	if (left)
		pr_warn("%u shadow variable(s) never freed by their patch modules; freed at unload without destructors\n",
			left);
}
