/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emit.h - klpc build's emit step: a unit's patched object cut down to the
 * code a live patch carries
 *
 * What is kept: the functions the comparison named (changed, copied, new),
 * the new data, and what their code needs that the running kernel does
 * not have: read-only data and strings (copied), the entries of the
 * special sections (exception table, alternatives, ORC, ...) that belong
 * to kept code.  What their code uses that the kernel has (an unchanged
 * function, existing writable data) becomes an undefined symbol of the
 * kernel's name, which klpc-convert then turns into a livepatch
 * relocation when the kernel does not export it.
 */
#ifndef KLPC_EMIT_H
#define KLPC_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "elf-file.h"
#include "patch.h"

/* what happens to a symbol of the patched object */
enum emit_fate {
	EMIT_DROP,	/* neither kept nor used */
	EMIT_KEEP,	/* its section is carried */
	EMIT_EXTERN,	/* the kernel's: an undefined reference */
};

/**
 * struct emit - one unit being cut down
 * @elf:	the patched object, edited in place
 * @keep:	per section: carried in the output
 * @fate:	per symbol
 * @kname:	per symbol: its name in the running kernel (a twin's), or NULL
 *		for its own
 * @patched:	per symbol: the comparison said "changed" (klpc redirects the
 *		kernel's function to this one)
 * @callback:	per symbol: the callback kind it is declared as (callbacks.c),
 *		or NULL
 * @nsyms:	the symbol count (of the arrays above)
 * @changed:	set by emit_closure() when anything new was kept
 * @patch:	the patch: gathers the unit's functions and callbacks
 * @object:	the object the unit is linked into ("vmlinux", a module)
 * @unit:	the unit's number
 */
struct emit {
	struct kelf elf;
	bool *keep;
	enum emit_fate *fate;
	char **kname;
	bool *patched;
	const char **callback;
	size_t nsyms;
	bool changed;
	struct patch *patch;
	const char *object;
	size_t unit;
};

/* a line of klpc-compare's output, as compare.sh gathers them */
struct emit_change {
	char *object;	/* what the unit is linked into */
	char *unit;	/* its object's path: fs/proc/cmdline.o */
	char *what;	/* changed, copied, new, new-data, twin */
	char *name;
	char *orig;	/* a twin's name in the running kernel, or NULL */
};

struct emit_changes {
	struct emit_change *lines;
	size_t nr;
};

/**
 * struct emit_special - a section of fixed-size entries that describe code
 * @name:	the section
 * @header:	the target's header that declares the entries' type
 * @type:	their C type, whose size is the target's entry size (layout.c)
 * @pair:	a section whose entries go with these one for one, or NULL
 *		(.orc_unwind, whose entries have no relocations)
 * @follows:	this section is another one's @pair: filtered with it
 */
struct emit_special {
	const char *name;
	const char *header;
	const char *type;
	const char *pair;
	bool follows;
};

int emit_err(struct emit *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* changes.c */
int emit_read_changes(struct emit_changes *ch, const char *path);
void emit_free_changes(struct emit_changes *ch);
size_t emit_unit_names(const struct emit_changes *ch, const char ***out);
const char *emit_unit_object(const struct emit_changes *ch, const char *unit);

/* emit.c */
int emit_units(struct patch *p, const struct emit_changes *ch,
	       const char *orig, const char *patched, const char *out);

/* closure.c */
int emit_keep_symbol(struct emit *e, size_t sym);
int emit_reach(struct emit *e, const Elf64_Rela *r, size_t from);
int emit_closure(struct emit *e);
size_t emit_sym_at(const struct emit *e, size_t sec, long long off);

/* callbacks.c */
int emit_callbacks(struct emit *e);

/* special.c */
extern const struct emit_special emit_specials[];
bool emit_is_special(const char *name);
size_t emit_entry_size(struct emit *e, const struct emit_special *sp,
		       size_t sec);
bool emit_entry_kept(const struct emit *e, size_t sec, size_t size, size_t i);
int emit_special_sections(struct emit *e);
int emit_filter_special(struct emit *e);

/* layout.c */
int emit_read_layout(const char *path);
size_t emit_layout_size(const char *name);
int emit_layout_probe(const char *dir);

/* keys.c */
int emit_module_keys(struct emit *e, size_t sec, size_t size);

/* output.c */
int emit_output(struct emit *e, const char *prefix, const char *path);

#endif /* KLPC_EMIT_H */
