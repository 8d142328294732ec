// SPDX-License-Identifier: GPL-2.0
/*
 * object.c - binding a patch's objects to the code they patch
 *
 * An object is bound while its code is present: always for vmlinux, from
 * MODULE_STATE_COMING to MODULE_STATE_GOING for a module.  Binding
 * resolves the address of every function to be replaced, and of every
 * unexported symbol the new code uses (the object's klpc_sym table).
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/ftrace.h>

#include "core.h"
#include "kallsyms.h"
#include "record.h"
#include "reloc.h"

/* what went wrong, naming the field to fix: old_sympos or sympos */
static const char *klpc_lookup_why(int ret, unsigned long sympos, bool func)
{
	if (ret == -EINVAL)
		return func ? "is ambiguous, set old_sympos" :
			      "is ambiguous, set its sympos";
	if (!sympos)
		return "not found";
	return func ? "not found at that old_sympos" :
		      "not found at that sympos";
}

/* a symbol's address: from the object's queries if it has them */
static int klpc_lookup(struct klpc_object *obj, const struct klpc_sym_query *q,
		       const char *name, unsigned long sympos,
		       unsigned long *addr)
{
	if (q)
		return klpc_query_result(q, addr);
	return klpc_find_symbol(obj->name, name, sympos, addr);
}

static unsigned int klpc_nr_symbols(struct klpc_object *obj)
{
	struct klpc_func *func;
	struct klpc_sym *sym;
	unsigned int nr = 0;

	klpc_for_each_func(obj, func)
		nr++;
	for (sym = obj->syms; sym && sym->name; sym++)
		nr++;
	return nr;
}

/*
 * The funcs of a module object, then its klpc_syms, resolved in one walk
 * of the modules' symbols (klpc_find_module_symbols()), not one walk
 * each; NULL for vmlinux (each lookup there is a binary search already),
 * or if the queries cannot be allocated: then they are looked up one by
 * one, with the same results.
 */
static struct klpc_sym_query *klpc_query_object(struct klpc_object *obj)
{
	unsigned int nr = klpc_nr_symbols(obj);
	struct klpc_sym_query *q;
	struct klpc_func *func;
	struct klpc_sym *sym;

	if (!klpc_is_module(obj) || !nr)
		return NULL;
	q = kvcalloc(nr, sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;
	nr = 0;
	klpc_for_each_func(obj, func) {
		q[nr].name = func->old_name;
		q[nr++].sympos = func->old_sympos;
	}
	for (sym = obj->syms; sym && sym->name; sym++) {
		q[nr].name = sym->name;
		q[nr++].sympos = sym->sympos;
	}
	if (klpc_find_module_symbols(obj->mod, q, nr)) {
		kvfree(q);
		return NULL;
	}
	return q;
}

static int klpc_resolve_func(struct klpc_patch *patch, struct klpc_object *obj,
			     struct klpc_func *func,
			     const struct klpc_sym_query *q)
{
	unsigned long addr, offset;
	int ret;

	ret = klpc_lookup(obj, q, func->old_name, func->old_sympos, &addr);
	if (ret) {
		klpc_obj_err(patch, klpc_obj_name(obj),
			     "function '%s' %s (%d)\n", func->old_name,
			     klpc_lookup_why(ret, func->old_sympos, true), ret);
		return ret;
	}
	func->old_func = (void *)addr;
	/* a nop "replaces" the function with itself */
	if (func->nop)
		func->new_func = func->old_func;

	if (!klpc_ksyms.lookup_size_offset(addr, &func->old_size, &offset) ||
	    !klpc_ksyms.lookup_size_offset((unsigned long)func->new_func,
					   &func->new_size, &offset)) {
		klpc_obj_err(patch, klpc_obj_name(obj),
			     "function '%s' has no size\n", func->old_name);
		return -ENOENT;
	}

	func->old_ip = klpc_ksyms.ftrace_location(addr);
	if (!func->old_ip || func->old_ip >= addr + func->old_size) {
		klpc_obj_err(patch, klpc_obj_name(obj),
			     "function '%s' cannot be traced by ftrace (-EINVAL)\n",
			     func->old_name);
		return -EINVAL;
	}
	return 0;
}

/*
 * The new code may use the pointers as soon as its functions are patched,
 * which happens only after this returns 0.
 */
static int klpc_resolve_syms(struct klpc_patch *patch, struct klpc_object *obj,
			     const struct klpc_sym_query *q)
{
	struct klpc_sym *sym;
	unsigned long addr;
	int ret;

	for (sym = obj->syms; sym && sym->name; sym++, q = q ? q + 1 : NULL) {
		ret = klpc_lookup(obj, q, sym->name, sym->sympos, &addr);
		if (ret) {
			klpc_obj_err(patch, klpc_obj_name(obj),
				     "symbol '%s' %s (%d)\n", sym->name,
				     klpc_lookup_why(ret, sym->sympos, false),
				     ret);
			return ret;
		}
		WRITE_ONCE(*sym->addr, (void *)addr);
	}
	return 0;
}

/**
 * klpc_init_object_loaded() - resolve an object whose code is present
 * @patch:	the patch
 * @obj:	one of its objects, with obj->mod set for a module
 *
 * Return: 0, or an error with a message naming the patch and the symbol.
 */
int klpc_init_object_loaded(struct klpc_patch *patch, struct klpc_object *obj)
{
	struct klpc_sym_query *queries = klpc_query_object(obj), *q = queries;
	struct klpc_func *func, *other;
	int ret;

	klpc_for_each_func(obj, func) {
		ret = klpc_resolve_func(patch, obj, func, q);
		if (ret)
			goto out;
		if (q)
			q++;
		klpc_for_each_func(obj, other) {
			if (other == func)
				break;
			if (other->old_ip != func->old_ip)
				continue;
			klpc_obj_err(patch, klpc_obj_name(obj),
				     "function '%s' is patched twice (-EINVAL)\n",
				     func->old_name);
			ret = -EINVAL;
			goto out;
		}
		/*
		 * Nothing above sleeps: for 1,000 functions of a module (each
		 * size lookup a walk of its symbols) this loop held a CPU
		 * ~20 ms under TCG.
		 */
		cond_resched();
	}
	ret = klpc_resolve_syms(patch, obj, q);
	/*
	 * Compare the record before writing anything, and write the
	 * relocations last: nothing after them can fail.
	 */
	if (!ret)
		ret = klpc_record_check_object(patch, obj);
	if (!ret)
		ret = klpc_reloc_apply_object(patch, obj);
out:
	kvfree(queries);
	return ret;
}

/**
 * klpc_free_object_loaded() - forget the addresses of an object's code
 * @obj:	the object, whose funcs are not patched
 *
 * The symbol pointers go back to NULL, so that a stale one cannot be used
 * after its module is gone, and the relocations written for a module
 * object are cleared, so that they can be written again if it comes back.
 */
void klpc_free_object_loaded(struct klpc_object *obj)
{
	struct klpc_func *func;
	struct klpc_sym *sym;

	if (obj->mod && !obj->dynamic)
		klpc_reloc_clear_object(klpc_obj_patch(obj), obj);
	obj->mod = NULL;
	klpc_for_each_func(obj, func) {
		func->old_func = NULL;
		func->old_ip = 0;
	}
	for (sym = obj->syms; sym && sym->name; sym++)
		WRITE_ONCE(*sym->addr, NULL);
}

/*
 * A COMING module's ftrace records are enabled by ftrace_module_enable(),
 * just before the COMING notifiers run; an address added to klpc's filter
 * before that makes ftrace warn (an IPMODIFY user found in
 * referenced_filters()) and miscount the record, which warns again when
 * the module goes (the sysfs storm, t-8a, hit it).  The built-in
 * livepatch sets klp_alive right after ftrace_module_enable(), for every
 * module: a COMING module without it is left to klpc's coming notifier.
 */
static bool klpc_module_ready(struct module *mod)
{
	if (mod->state == MODULE_STATE_LIVE)
		return true;
#ifdef CONFIG_LIVEPATCH
	return mod->state == MODULE_STATE_COMING && READ_ONCE(mod->klp_alive);
#else
	return false;
#endif
}

/**
 * klpc_find_object_module() - bind a module object to its loaded module
 * @obj:	the object
 *
 * A module object counts as loaded once its ftrace records are enabled
 * (see klpc_module_ready()); the coming notifier skips objects found
 * here.  A module that is going is left to the going notifier.  The
 * notifiers take klpc_mutex, so obj->mod stays valid while the caller
 * holds it.
 */
void klpc_find_object_module(struct klpc_object *obj)
{
	struct module *mod;

	if (!klpc_is_module(obj) || obj->mod)
		return;
	preempt_disable();
	mod = klpc_ksyms.find_module(obj->name);
	if (mod && klpc_module_ready(mod))
		obj->mod = mod;
	preempt_enable();
}
