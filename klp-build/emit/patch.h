/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patch.h - klpc build's emit step for the whole patch: every unit's
 * cut-down object, then each decision about the running kernel made once
 *
 * For each unit (emit.c) the functions it replaces and the callbacks it
 * declares are gathered here; place.c then says which running symbol each
 * replaced function and each unexported reference is (vmlinux's sympos from
 * the target's kallsyms, a module's own symbol) and checks that the source
 * reproduces the running kernel; hook.c writes them, with the patch's
 * description, for the fixed hook module (klpc-hook.c).
 */
#ifndef KLPC_EMIT_PATCH_H
#define KLPC_EMIT_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "symvers.h"

/**
 * struct ksyms - the target's vmlinux symbols (kallsyms.c)
 * @name:	per entry, in address order
 * @addr:	per entry
 * @count:	per entry: how many entries have its name
 * @by_name:	the entries sorted by name, then address
 * @nr:		the entry count
 * @alloc:	the arrays' room
 */
struct ksyms {
	char **name;
	unsigned long long *addr;
	size_t *count;
	size_t *by_name;
	size_t nr, alloc;
};

/* where the unit's symbol of a name is in vmlinux (ksyms_place()) */
struct ksym_place {
	size_t count;		/* how many vmlinux has, 0 if none */
	long pos;		/* sympos: 0 when unique, -1 when not told */
	long long gap;		/* bytes to the next symbol, -1 when not told */
};

int ksyms_read(struct ksyms *ks, const char *path);
void ksyms_free(struct ksyms *ks);
void ksyms_place(const struct ksyms *ks, const char *name,
		 struct symvers *defined, struct ksym_place *p);

/* a function the patch replaces: klpc_func */
struct patch_func {
	char *object;		/* "vmlinux" or a module */
	char *kname;		/* the running kernel's name */
	char *alias;		/* the replacement's global symbol */
	long pos;		/* old_sympos */
	size_t unit;		/* the unit's number */
};

/* a callback of an object: klpc_object.callbacks */
struct patch_callback {
	char *object;
	const char *kind;	/* pre_patch, post_patch, ... */
	char *alias;
};

/* an unexported symbol the patch's code uses: KLPC_SYMBOL() */
struct patch_symbol {
	char *object;		/* where it is looked up when the patch loads */
	char *name;
	long pos;		/* -1: vmlinux has none (an error unless
				 * a unit of the patch defines it)
				 */
	char *unit;		/* the unit that uses it, for messages */
};

/**
 * struct patch - the patch being emitted
 * @exports:	what the kernel and klpc export (the -s files)
 * @vmlinux_exports: what vmlinux exports
 * @symvers:	the -s files, @nsymvers of them
 * @ksyms:	the target's vmlinux symbols (--kallsyms), if read
 * @have_ksyms:	whether they were
 * @defined:	the names the patch's units define (not the kernel's)
 * @funcs:	the replaced functions, @nfuncs of them
 * @cbs:	the callbacks, @ncbs of them
 * @syms:	the unexported symbols, @nsyms of them
 * @kver:	the target kernel, for messages
 * @label:	what the patch was made from, for the hook's comment
 * @desc:	its description
 * @cves:	its CVE ids, @ncves of them
 * @replace:	cumulative (.replace): retires the patches before it
 */
struct patch {
	struct symvers exports;
	struct symvers vmlinux_exports;
	const char **symvers;
	size_t nsymvers;
	struct ksyms ksyms;
	bool have_ksyms;
	struct symvers defined;
	struct patch_func *funcs;
	size_t nfuncs;
	struct patch_callback *cbs;
	size_t ncbs;
	struct patch_symbol *syms;
	size_t nsyms;
	const char *kver;
	const char *label;
	const char *desc;
	const char **cves;
	size_t ncves;
	bool replace;
};

void patch_add_func(struct patch *p, const char *object, const char *kname,
		    const char *alias, size_t unit);
void patch_add_callback(struct patch *p, const char *object,
			const char *kind, const char *alias);

/* place.c */
int place_unit(struct patch *p, const char *unit, const char *object,
	       size_t n, const char *orig, const char *cut);
int place_check(struct patch *p);

/* hook.c */
int hook_write(const struct patch *p, const char *dir);
void patch_free(struct patch *p);

#endif /* KLPC_EMIT_PATCH_H */
