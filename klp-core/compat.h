/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel interfaces that differ between klpc's kernels
 *
 * klpc builds from one source for Debian 12's 6.1 and Debian's 6.12.  Its
 * files are written against the newer interfaces, as upstream's livepatch
 * of 6.12 is; this file, and only this file, maps them onto 6.1's.  Each
 * section names the release that changed the interface; Kbuild probes the
 * headers for the change (KLPC_HAVE_*) rather than trusting the version,
 * as distribution kernels backport.  Any file of klpc (the core, the test
 * modules) includes it for the concerns it has.
 */
#ifndef _KLPC_COMPAT_H
#define _KLPC_COMPAT_H

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

/*
 * ftrace: klpc redirects a call by setting the instruction pointer in the
 * ftrace_regs of an ftrace_ops without SAVE_REGS.  Without
 * DYNAMIC_FTRACE_WITH_ARGS the setter is a no-op and no patch would take.
 * Between 6.1 and 6.12 ftrace_instruction_pointer_set() became
 * ftrace_regs_set_instruction_pointer(), a macro of the architecture.
 */
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#error "klpc needs CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS"
#endif
#ifndef ftrace_regs_set_instruction_pointer
#define ftrace_regs_set_instruction_pointer(fregs, ip) \
	ftrace_instruction_pointer_set(fregs, ip)
#endif

/*
 * ftrace direct calls (used by the test module klpc-test-direct only):
 * 6.1 attaches one by address, register_ftrace_direct(ip, addr); since 6.5
 * a direct call is an ftrace_ops whose filter holds the address,
 * register_ftrace_direct(ops, addr).  @ops is unused on 6.1.
 */
#ifdef KLPC_HAVE_DIRECT_OPS
static inline int klpc_direct_attach(struct ftrace_ops *ops, unsigned long ip,
				     unsigned long addr)
{
	int ret = ftrace_set_filter_ip(ops, ip, 0, 0);

	if (ret)
		return ret;
	ret = register_ftrace_direct(ops, addr);
	if (ret)
		ftrace_free_filter(ops);
	return ret;
}

static inline void klpc_direct_detach(struct ftrace_ops *ops,
				      unsigned long ip, unsigned long addr)
{
	unregister_ftrace_direct(ops, addr, true);
}
#else
static inline int klpc_direct_attach(struct ftrace_ops *ops, unsigned long ip,
				     unsigned long addr)
{
	return register_ftrace_direct(ip, addr);
}

static inline void klpc_direct_detach(struct ftrace_ops *ops,
				      unsigned long ip, unsigned long addr)
{
	unregister_ftrace_direct(ip, addr);
}
#endif

/*
 * kallsyms: since 6.2 module_kallsyms_on_each_symbol() walks the module
 * named (all of them for NULL) and its callback gets no module; 6.1's
 * walks every module and passes each symbol's.  klpc reaches it through
 * kallsyms (it is not exported): klpc_module_kallsyms_t is the kernel's
 * type, klpc_module_kallsyms_on_each_symbol() calls it the 6.2 way.
 */
typedef int (*klpc_module_sym_fn)(void *data, const char *name,
				  unsigned long addr);

#ifdef KLPC_HAVE_KALLSYMS_MODNAME
typedef int (*klpc_module_kallsyms_t)(const char *modname,
				      klpc_module_sym_fn fn, void *data);

static inline int
klpc_module_kallsyms_on_each_symbol(klpc_module_kallsyms_t walk,
				    const char *modname,
				    klpc_module_sym_fn fn, void *data)
{
	return walk(modname, fn, data);
}
#else
typedef int (*klpc_module_kallsyms_t)(int (*fn)(void *data, const char *name,
						 struct module *mod,
						 unsigned long addr),
				      void *data);

struct klpc_module_walk {
	const char *modname;
	klpc_module_sym_fn fn;
	void *data;
};

static inline int klpc_module_walk_one(void *data, const char *name,
				       struct module *mod, unsigned long addr)
{
	struct klpc_module_walk *w = data;

	if (w->modname && (!mod || strcmp(mod->name, w->modname)))
		return 0;
	return w->fn(w->data, name, addr);
}

static inline int
klpc_module_kallsyms_on_each_symbol(klpc_module_kallsyms_t walk,
				    const char *modname,
				    klpc_module_sym_fn fn, void *data)
{
	struct klpc_module_walk w = {
		.modname = modname, .fn = fn, .data = data,
	};

	return walk(klpc_module_walk_one, &w);
}
#endif

/*
 * module memory: since 6.4 a module's memory is one region per kind,
 * mod->mem[MOD_TEXT, MOD_DATA, MOD_RODATA, ...]; 6.1 has one core_layout
 * (text, read-only data, ro_after_init, data, in that order) and one
 * init_layout.  klpc asks two things of it (reloc.c, record.c): is a
 * range in the module's core memory, which stays until the module goes,
 * and where is its read-only data.
 */
#ifdef KLPC_HAVE_MODULE_MEM
static inline bool klpc_module_core_has(const struct module *mod,
					unsigned long start, unsigned long size)
{
	for_class_mod_mem_type(type, core) {
		unsigned long base = (unsigned long)mod->mem[type].base;

		if (start >= base && size <= mod->mem[type].size &&
		    start - base <= mod->mem[type].size - size)
			return true;
	}
	return false;
}

static inline void klpc_module_rodata(const struct module *mod,
				      const void **start, const void **end)
{
	*start = mod->mem[MOD_RODATA].base;
	*end = *start + mod->mem[MOD_RODATA].size;
}
#else
static inline bool klpc_module_core_has(const struct module *mod,
					unsigned long start, unsigned long size)
{
	unsigned long base = (unsigned long)mod->core_layout.base;

	return start >= base && size <= mod->core_layout.size &&
	       start - base <= mod->core_layout.size - size;
}

static inline void klpc_module_rodata(const struct module *mod,
				      const void **start, const void **end)
{
	*start = mod->core_layout.base + mod->core_layout.text_size;
	*end = mod->core_layout.base + mod->core_layout.ro_size;
}
#endif

/*
 * function graph tracer: when it traces a function it replaces the
 * return address into it with return_to_handler's and keeps the real one
 * on the task's shadow stack, task->ret_stack.  6.1's is an array of
 * struct ftrace_ret_stack and curr_ret_stack the index of its top entry,
 * -1 when empty; since 6.9 (several fgraph users) it is an array of words
 * and curr_ret_stack the offset of the first free one, 0 when empty.  The
 * test of 6.1 (>= 0) holds for every task on 6.12, and would unwind every
 * task where a scan of its stack would do.  Read without a lock: the task
 * is current or cannot run.
 */
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
#ifdef KLPC_HAVE_RET_STACK_WORDS
#define KLPC_RET_STACK_EMPTY	0
#else
#define KLPC_RET_STACK_EMPTY	(-1)
#endif
static inline bool klpc_fgraph_holds_returns(struct task_struct *task)
{
	return READ_ONCE(task->curr_ret_stack) > KLPC_RET_STACK_EMPTY;
}
#else
static inline bool klpc_fgraph_holds_returns(struct task_struct *task)
{
	return false;
}
#endif

#endif /* _KLPC_COMPAT_H */
