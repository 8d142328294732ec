/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_KALLSYMS_H
#define _KLPC_KALLSYMS_H

#include <linux/elf.h>
#include <linux/types.h>

#include "compat.h"

struct callback_head;
struct module;
struct mutex;
struct task_struct;

/*
 * Kernel functions (and kernel.ftrace_enabled) klpc needs that the 6.1
 * kernel does not export to modules.  They are looked up once, through
 * kallsyms, when klpc loads; klpc refuses to load if any of them is
 * missing.
 */
struct klpc_kernel_syms {
	unsigned long (*lookup_name)(const char *name);
	int (*on_each_match_symbol)(int (*fn)(void *data, unsigned long addr),
				    const char *name, void *data);
	klpc_module_kallsyms_t module_on_each_symbol;
	int (*lookup_size_offset)(unsigned long addr, unsigned long *size,
				  unsigned long *offset);
	unsigned long (*ftrace_location)(unsigned long ip);
	struct module *(*find_module)(const char *name);
	int (*task_call_func)(struct task_struct *p,
			      int (*func)(struct task_struct *t, void *arg),
			      void *arg);
	int (*task_curr)(const struct task_struct *p);
	int (*stack_trace_save_tsk_reliable)(struct task_struct *tsk,
					     unsigned long *store,
					     unsigned int size);
	void (*put_task_stack)(struct task_struct *tsk);
	struct task_struct *(*idle_task)(int cpu);
	void (*signal_wake_up_state)(struct task_struct *t, unsigned int state);
	int (*wake_up_state)(struct task_struct *p, unsigned int state);
	struct callback_head *(*task_work_cancel_match)(struct task_struct *task,
							bool (*match)(struct callback_head *cb,
								      void *data),
							void *data);
	int (*apply_relocate_add)(struct elf64_shdr *sechdrs, const char *strtab,
				  unsigned int symindex, unsigned int relsec,
				  struct module *me);
	void *(*text_poke)(void *addr, const void *opcode, size_t len);
	void (*text_poke_sync)(void);
	/* serializes text_poke() users (kernel/extable.c) */
	struct mutex *text_mutex;
	unsigned long do_exit;
	int *ftrace_enabled;
	int *nr_threads;
};

extern struct klpc_kernel_syms klpc_ksyms;

int klpc_kallsyms_init(void);

int klpc_find_symbol(const char *objname, const char *name,
		     unsigned long sympos, unsigned long *addr);
unsigned long klpc_symbol_count(const char *objname, const char *name);

/**
 * struct klpc_sym_query - one symbol for klpc_find_module_symbols()
 * @name:	its name
 * @sympos:	1-based position among equally named symbols, 0 if unique
 * @count:	how many symbols of that name the module has
 * @addr:	the address of the one at @sympos (the first if 0)
 * @next:	the next query in its hash bucket, while resolving
 */
struct klpc_sym_query {
	const char *name;
	unsigned long sympos;
	unsigned long count;
	unsigned long addr;
	struct klpc_sym_query *next;
};

int klpc_find_module_symbols(struct module *mod, struct klpc_sym_query *q,
			     unsigned int nr);
int klpc_query_result(const struct klpc_sym_query *q, unsigned long *addr);

#endif /* _KLPC_KALLSYMS_H */
