/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klpc.h - the klpc live patching API for patch modules
 *
 * klpc mirrors the upstream 6.1 <linux/livepatch.h> API with every klp_
 * identifier renamed klpc_: the kernel's built-in livepatch exports the
 * klp_ names, so a module loaded next to it needs names of its own.
 * Patch modules that are written against the upstream API can include
 * <klpc-compat.h> instead of <linux/livepatch.h>.
 */

#ifndef _KLPC_H_
#define _KLPC_H_

#include <linux/module.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/completion.h>
#include <linux/workqueue.h>

/* task patch states, as seen by the per-task consistency model */
#define KLPC_UNDEFINED	-1
#define KLPC_UNPATCHED	 0
#define KLPC_PATCHED	 1

/**
 * struct klpc_func - one function to be replaced
 * @old_name:	name of the function to be patched
 * @new_func:	pointer to the replacement function
 * @old_sympos: 1-based position of @old_name among the equally named symbols
 *		of its object, for local symbols that are not unique; 0 means
 *		the name must be unique in the object
 * @old_func:	resolved address of @old_name
 * @old_ip:	ftrace location of @old_func (where klpc redirects it)
 * @kobj:	kobject for sysfs resources
 * @node:	list node for klpc_object func_list
 * @stack_node:	list node in the func stack of the address being patched
 * @old_size:	size of the old function
 * @new_size:	size of the new function
 * @nop:	temporary patch to use the original code again; dyn. allocated
 * @patched:	the func has been added to the func stack of its address
 * @transition: the func is currently being applied or reverted
 *
 * The internal fields are owned by klpc and must not be touched by patch
 * modules.
 */
struct klpc_func {
	/* external */
	const char *old_name;
	void *new_func;
	unsigned long old_sympos;

	/* internal */
	void *old_func;
	unsigned long old_ip;
	struct kobject kobj;
	struct list_head node;
	struct list_head stack_node;
	unsigned long old_size, new_size;
	bool nop;
	bool patched;
	bool transition;
};

struct klpc_object;
struct klpc_record_hdr;

/*
 * What a patch module fixes, for 'klpc info' (modinfo fields, so they can
 * be read from the .ko file before it is loaded; REF: a bug report, an
 * advisory):
 *
 *	KLPC_PATCH_DESC("cmdline: show a fixed string");
 *	KLPC_PATCH_CVE("CVE-2023-0001");	(once per CVE fixed)
 *	KLPC_PATCH_REF("https://bugs.debian.org/1000000");
 *
 * They go at file scope, next to MODULE_LICENSE().
 */
#define KLPC_PATCH_DESC(_text)	MODULE_INFO(klpc_desc, _text)
#define KLPC_PATCH_CVE(_id)	MODULE_INFO(klpc_cve, _id)
#define KLPC_PATCH_REF(_url)	MODULE_INFO(klpc_ref, _url)

/**
 * struct klpc_sym - an unexported symbol that the patch's code uses
 * @name:	symbol name (a function or a variable) in the object
 * @sympos:	1-based position among equally named symbols of the object,
 *		as for &struct klpc_func; 0 means the name must be unique
 * @addr:	where klpc stores the symbol's address: the address of a
 *		pointer in the patch module, through which the new code
 *		calls the function or reaches the variable
 *
 * Upstream livepatch reaches unexported symbols through special
 * relocation sections that need a dedicated build tool.  klpc resolves a
 * table of these entries instead, with nothing but Kbuild: the pointers
 * are set before any function of their object is patched (when its module
 * loads, for a module object), and a symbol that cannot be resolved fails
 * the enable, or the module's load, like a missing function does.
 */
struct klpc_sym {
	const char *name;
	unsigned long sympos;
	void **addr;
};

/*
 * KLPC_SYM(name, sympos, ptr) - a &struct klpc_sym entry for @ptr, a
 * pointer variable of the type of what @name is (a function pointer or a
 * pointer to the variable).
 */
#define KLPC_SYM(_name, _sympos, _ptr)					\
	{ .name = (_name), .sympos = (_sympos),				\
	  .addr = (void **)(_ptr) }

/*
 * KLPC_SYMBOL(name, object, sympos) - where an unexported symbol that the
 * patch's code uses by name lives, for klpc-convert (klp-convert/README.md)
 *
 * A patch converted by klpc-convert may call an unexported function, or
 * use an unexported variable, by declaring it extern.  klpc-convert turns
 * each such reference into a livepatch relocation (.klp.rela.OBJECT.SEC,
 * against .klp.sym.OBJECT.NAME,SYMPOS) that the kernel resolves at load.
 * Without an annotation, the symbol is looked for in vmlinux and must be
 * unique there; the annotation names its object ("vmlinux" or a module's
 * name) and its 1-based position among the equally named symbols of that
 * object (0: unique).  At file scope, next to the declaration:
 *
 *	extern int klpc_target_dup(void);
 *	KLPC_SYMBOL(klpc_target_dup, "klpc_target", 2);
 *
 * It emits an ELF note (owner "klpc", type 1) holding name, object and
 * sympos as strings into the non-allocated section .note.klpc.syms (a
 * .note name, which modpost accepts), that klpc-convert reads and
 * removes; and it makes the
 * reference weak so that modpost does not refuse the undefined symbol:
 * klpc-convert is the check instead (an unconverted weak reference would
 * load as NULL: always convert such a module).
 */
#define KLPC_SYMBOL(_name, _object, _sympos)				\
	asm(".pushsection .note.klpc.syms, \"\", @note\n\t"		\
	    ".balign 4\n\t"						\
	    ".long 5, 2f - 1f, 1\n\t"					\
	    ".asciz \"klpc\"\n\t"					\
	    ".balign 4\n"						\
	    "1:\t.asciz \"" #_name "\"\n\t"				\
	    ".asciz \"" _object "\"\n\t"				\
	    ".asciz \"" __stringify(_sympos) "\"\n"			\
	    "2:\t.balign 4\n\t"						\
	    ".popsection\n\t"						\
	    ".weak " #_name "\n")

/**
 * struct klpc_callbacks - pre/post live-(un)patch callback structure
 * @pre_patch:		executed before code patching
 * @post_patch:		executed after code patching
 * @pre_unpatch:	executed before code unpatching
 * @post_unpatch:	executed after code unpatching
 * @post_unpatch_enabled:	flag indicating if post-unpatch callback
 *				should run
 *
 * All callbacks are optional.  Only the pre-patch callback may fail; when it
 * does, the object is not patched.
 */
struct klpc_callbacks {
	int (*pre_patch)(struct klpc_object *obj);
	void (*post_patch)(struct klpc_object *obj);
	void (*pre_unpatch)(struct klpc_object *obj);
	void (*post_unpatch)(struct klpc_object *obj);
	bool post_unpatch_enabled;
};

/**
 * struct klpc_object - kernel object (vmlinux or a module) to be patched
 * @name:	module name (or NULL for vmlinux)
 * @funcs:	function entries for functions to be patched in the object,
 *		terminated by an all-zero entry
 * @callbacks:	functions to be executed pre/post (un)patching
 * @syms:	unexported symbols of the object the patch's code uses,
 *		terminated by an all-zero entry; may be NULL
 * @kobj:	kobject for sysfs resources
 * @func_list:	dynamic list of the function entries
 * @node:	list node for klpc_patch obj_list
 * @mod:	kernel module associated with the patched object
 *		(NULL for vmlinux, or when the module is not loaded)
 * @dynamic:	temporary object for nop functions; dynamically allocated
 * @patched:	the object's funcs have been added to the func stacks
 */
struct klpc_object {
	/* external */
	const char *name;
	struct klpc_func *funcs;
	struct klpc_callbacks callbacks;
	struct klpc_sym *syms;

	/* internal */
	struct kobject kobj;
	struct list_head func_list;
	struct list_head node;
	struct module *mod;
	bool dynamic;
	bool patched;
};

/**
 * struct klpc_state - state of the system modified by the livepatch
 * @id:		system state identifier (non-zero)
 * @version:	version of the change
 * @data:	custom data
 */
struct klpc_state {
	unsigned long id;
	unsigned int version;
	void *data;
};

/**
 * struct klpc_patch - patch structure for live patching
 * @mod:	reference to the live patch module
 * @objs:	object entries for kernel objects to be patched, terminated by
 *		an all-zero entry
 * @states:	system states that can get modified
 * @replace:	replace all actively used patches
 * @list:	list node for the global list of registered patches
 * @kobj:	kobject for sysfs resources
 * @obj_list:	dynamic list of the object entries
 * @enabled:	the patch is enabled (but operation may be incomplete)
 * @forced:	was involved in a forced transition
 * @replaced:	a replace patch took over; the patch can never be enabled again
 * @going:	the patch module is being removed; the patch is unregistering
 * @checked:	the patch carries a build record (klpc-convert's) that matched
 *		the running kernel when it registered
 * @record:	that record, in the patch module; NULL if none
 * @free_work:	patch cleanup from workqueue-context
 * @finish:	for waiting till it is safe to remove the patch module
 */
struct klpc_patch {
	/* external */
	struct module *mod;
	struct klpc_object *objs;
	struct klpc_state *states;
	bool replace;

	/* internal */
	struct list_head list;
	struct kobject kobj;
	struct list_head obj_list;
	bool enabled;
	bool forced;
	bool replaced;
	bool going;
	bool checked;
	const struct klpc_record_hdr *record;
	struct work_struct free_work;
	struct completion finish;
};

#define klpc_for_each_object_safe(patch, obj, tmp_obj)		\
	list_for_each_entry_safe(obj, tmp_obj, &(patch)->obj_list, node)

#define klpc_for_each_object(patch, obj)	\
	list_for_each_entry(obj, &(patch)->obj_list, node)

#define klpc_for_each_func_safe(obj, func, tmp_func)			\
	list_for_each_entry_safe(func, tmp_func, &(obj)->func_list, node)

#define klpc_for_each_func(obj, func)	\
	list_for_each_entry(func, &(obj)->func_list, node)

int klpc_enable_patch(struct klpc_patch *patch);

/* Called from pre/post (un)patch callbacks. */
struct klpc_state *klpc_get_state(struct klpc_patch *patch, unsigned long id);
struct klpc_state *klpc_get_prev_state(unsigned long id);

/**
 * typedef klpc_shadow_ctor_t - constructor for shadow variable data
 * @obj:	pointer to the parent object
 * @shadow_data:	pointer to the shadow variable data
 * @ctor_data:	optional data passed by the caller of klpc_shadow_alloc()
 *
 * Called with a spinlock held when the data are published; must not sleep.
 */
typedef int (*klpc_shadow_ctor_t)(void *obj, void *shadow_data,
				  void *ctor_data);

/**
 * typedef klpc_shadow_dtor_t - destructor for shadow variable data
 * @obj:	pointer to the parent object
 * @shadow_data:	pointer to the shadow variable data
 */
typedef void (*klpc_shadow_dtor_t)(void *obj, void *shadow_data);

void *klpc_shadow_get(void *obj, unsigned long id);
void *klpc_shadow_alloc(void *obj, unsigned long id, size_t size,
			gfp_t gfp_flags, klpc_shadow_ctor_t ctor,
			void *ctor_data);
void *klpc_shadow_get_or_alloc(void *obj, unsigned long id, size_t size,
			       gfp_t gfp_flags, klpc_shadow_ctor_t ctor,
			       void *ctor_data);
void klpc_shadow_free(void *obj, unsigned long id, klpc_shadow_dtor_t dtor);
void klpc_shadow_free_all(unsigned long id, klpc_shadow_dtor_t dtor);

#endif /* _KLPC_H_ */
