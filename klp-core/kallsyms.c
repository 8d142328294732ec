// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - symbol lookups for klpc
 *
 * klpc is an ordinary module, so the kernel functions that the built-in
 * livepatch calls directly (kallsyms iteration, ftrace_location(), ...) are
 * out of reach: 6.1 exports none of them.  kallsyms_lookup_name() is found
 * through a kprobe, which resolves a symbol name for us, and everything
 * else through kallsyms_lookup_name().
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/kernel.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "kallsyms.h"

struct klpc_kernel_syms klpc_ksyms;

static int klpc_find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	klpc_ksyms.lookup_name = (void *)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

#define KLPC_KSYM(field, sym) { #sym, (void **)&klpc_ksyms.field }

static const struct {
	const char *name;
	void **ptr;
} klpc_ksym_table[] = {
	KLPC_KSYM(on_each_match_symbol, kallsyms_on_each_match_symbol),
	KLPC_KSYM(module_on_each_symbol, module_kallsyms_on_each_symbol),
	KLPC_KSYM(lookup_size_offset, kallsyms_lookup_size_offset),
	KLPC_KSYM(ftrace_location, ftrace_location),
	KLPC_KSYM(find_module, find_module),
	KLPC_KSYM(task_call_func, task_call_func),
	KLPC_KSYM(task_curr, task_curr),
	KLPC_KSYM(stack_trace_save_tsk_reliable, stack_trace_save_tsk_reliable),
	KLPC_KSYM(put_task_stack, put_task_stack),
	KLPC_KSYM(idle_task, idle_task),
	KLPC_KSYM(signal_wake_up_state, signal_wake_up_state),
	KLPC_KSYM(wake_up_state, wake_up_state),
	KLPC_KSYM(task_work_cancel_match, task_work_cancel_match),
	KLPC_KSYM(apply_relocate_add, apply_relocate_add),
	KLPC_KSYM(text_poke, text_poke),
	KLPC_KSYM(text_poke_sync, text_poke_sync),
	KLPC_KSYM(text_mutex, text_mutex),
	KLPC_KSYM(do_exit, do_exit),
	KLPC_KSYM(ftrace_enabled, ftrace_enabled),
	KLPC_KSYM(nr_threads, nr_threads),
};

/**
 * klpc_kallsyms_init() - resolve the unexported kernel functions klpc uses
 *
 * Return: 0 on success, -ENOENT (with a message naming the symbol) otherwise.
 */
int klpc_kallsyms_init(void)
{
	unsigned long addr;
	int i, ret;

	ret = klpc_find_lookup_name();
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name (%d)\n", ret);
		return -ENOENT;
	}

	for (i = 0; i < ARRAY_SIZE(klpc_ksym_table); i++) {
		addr = klpc_ksyms.lookup_name(klpc_ksym_table[i].name);
		if (!addr) {
			pr_err("kernel symbol '%s' not found\n",
			       klpc_ksym_table[i].name);
			return -ENOENT;
		}
		*klpc_ksym_table[i].ptr = (void *)addr;
	}
	return 0;
}

#define KLPC_MAX_MATCHES	64

struct klpc_find_arg {
	const char *objname;
	const char *name;
	unsigned long addrs[KLPC_MAX_MATCHES];
	unsigned long count;
};

static void klpc_note_match(struct klpc_find_arg *args, unsigned long addr)
{
	if (args->count < KLPC_MAX_MATCHES)
		args->addrs[args->count] = addr;
	args->count++;
}

static int klpc_vmlinux_match(void *data, unsigned long addr)
{
	klpc_note_match(data, addr);
	return 0;
}

static int klpc_module_match(void *data, const char *name, unsigned long addr)
{
	struct klpc_find_arg *args = data;

	if (strcmp(name, args->name))
		return 0;
	klpc_note_match(args, addr);
	return 0;
}

static int klpc_cmp_addr(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether @sympos picks one of @count equally named symbols: 0, or the
 * error klpc_find_symbol() returns for it.
 */
static int klpc_sympos_check(unsigned long count, unsigned long sympos)
{
	if (!count || sympos > count)
		return -ENOENT;
	if (!sympos && count > 1)
		return -EINVAL;
	if (sympos > KLPC_MAX_MATCHES)
		return -ERANGE;
	return 0;
}

/**
 * klpc_find_symbol() - resolve a symbol of vmlinux or of a loaded module
 * @objname:	module name, or NULL for vmlinux
 * @name:	symbol name
 * @sympos:	1-based position among equally named symbols, 0 if unique
 * @addr:	the address found
 *
 * vmlinux symbols are counted in address order, which is the order of
 * /proc/kallsyms; module symbols in the order of the module's symbol table,
 * which is again the order /proc/kallsyms lists them in.
 *
 * Return: 0, -ENOENT if the symbol or that position does not exist, or
 * -EINVAL if @sympos is 0 and the name is not unique.
 */
int klpc_find_symbol(const char *objname, const char *name,
		     unsigned long sympos, unsigned long *addr)
{
	struct klpc_find_arg args = { .objname = objname, .name = name };
	int ret;

	if (objname) {
		klpc_module_kallsyms_on_each_symbol(klpc_ksyms.module_on_each_symbol,
						    objname, klpc_module_match,
						    &args);
	} else {
		klpc_ksyms.on_each_match_symbol(klpc_vmlinux_match, name,
						&args);
		sort(args.addrs, min_t(unsigned long, args.count,
				       KLPC_MAX_MATCHES),
		     sizeof(args.addrs[0]), klpc_cmp_addr, NULL);
	}

	ret = klpc_sympos_check(args.count, sympos);
	if (!ret)
		*addr = args.addrs[sympos ? sympos - 1 : 0];
	return ret;
}

/**
 * klpc_symbol_count() - how many symbols of an object have a name
 * @objname:	module name, "vmlinux" or NULL for vmlinux
 * @name:	symbol name
 *
 * For messages about a symbol klpc_find_symbol() did not resolve.
 *
 * Return: the count.
 */
unsigned long klpc_symbol_count(const char *objname, const char *name)
{
	struct klpc_find_arg args = { .objname = objname, .name = name };

	if (objname && strcmp(objname, "vmlinux"))
		klpc_module_kallsyms_on_each_symbol(klpc_ksyms.module_on_each_symbol,
						    objname, klpc_module_match,
						    &args);
	else
		klpc_ksyms.on_each_match_symbol(klpc_vmlinux_match, name,
						&args);
	return args.count;
}

struct klpc_batch_arg {
	struct klpc_sym_query **buckets;
	unsigned int bits;
	unsigned int seen;
};

static u32 klpc_name_hash(const char *name, unsigned int bits)
{
	return hash_32(hashlen_hash(hashlen_string(NULL, name)), bits);
}

static int klpc_batch_match(void *data, const char *name, unsigned long addr)
{
	struct klpc_batch_arg *a = data;
	struct klpc_sym_query *q;

	/*
	 * The walk holds module_mutex and may sleep, but has no resched
	 * point: over every module's symbols (6.1 walks them all) it held a
	 * CPU ~20 ms under TCG.
	 */
	if (!(++a->seen % 64))
		cond_resched();
	for (q = a->buckets[klpc_name_hash(name, a->bits)]; q; q = q->next) {
		if (strcmp(q->name, name))
			continue;
		if (++q->count == (q->sympos ? q->sympos : 1))
			q->addr = addr;
	}
	return 0;
}

/**
 * klpc_find_module_symbols() - resolve many symbols of one module at once
 * @mod:	the module, loaded; the caller keeps it from going
 * @q:		the queries: name and sympos set, the rest zeroed
 * @nr:		their number
 *
 * klpc_find_symbol() walks the symbols of every module for each symbol: a
 * patch of 1,000 functions of a module spent a quarter of a second there.
 * This walks them once, looking each name of @mod up in a hash table of
 * the queries.  Each query then gives klpc_query_result() what
 * klpc_find_symbol() would have returned.
 *
 * Return: 0, or -ENOMEM, with nothing resolved.
 */
int klpc_find_module_symbols(struct module *mod, struct klpc_sym_query *q,
			     unsigned int nr)
{
	struct klpc_batch_arg a = { };
	unsigned int i;
	u32 h;

	a.bits = max(ilog2(roundup_pow_of_two(nr)), 1);
	a.buckets = kvcalloc(1U << a.bits, sizeof(*a.buckets), GFP_KERNEL);
	if (!a.buckets)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		h = klpc_name_hash(q[i].name, a.bits);
		q[i].next = a.buckets[h];
		a.buckets[h] = &q[i];
	}
	klpc_module_kallsyms_on_each_symbol(klpc_ksyms.module_on_each_symbol,
					    mod->name, klpc_batch_match, &a);
	kvfree(a.buckets);
	return 0;
}

/**
 * klpc_query_result() - the outcome of one query of klpc_find_module_symbols()
 * @q:		the query
 * @addr:	the address found
 *
 * Return: as klpc_find_symbol() for the same name and sympos.
 */
int klpc_query_result(const struct klpc_sym_query *q, unsigned long *addr)
{
	int ret = klpc_sympos_check(q->count, q->sympos);

	if (!ret)
		*addr = q->addr;
	return ret;
}
