/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - klpc build's object comparison: what changed in one
 * translation unit, function by function
 *
 * Both objects are compiled with -ffunction-sections -fdata-sections
 * (build-units.sh), so most functions and data objects have a section of
 * their own; functions that share one (__init, __sched, ...) are compared
 * by their symbol's byte range.  A function is the same when its bytes
 * and its relocations are, a relocation being compared by what it points
 * to (a symbol's name, a string's text), not by an offset that moves when
 * an unrelated string literal is added.
 */
#ifndef KLPC_COMPARE_H
#define KLPC_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "elf-file.h"

/* what one function or data object of the patched unit became */
enum cmp_state {
	CMP_SAME,
	CMP_CHANGED,
	CMP_NEW,
};

/**
 * struct cmp_sym - one function or data object of an object file
 * @sym:	its symbol
 * @name:	its name as the symbol table has it
 * @key:	its name with gcc's numbers dropped (foo.constprop.3 ->
 *		foo.constprop., a static local's counter.12 -> counter.), to
 *		correlate the two objects' symbols
 * @sec:	the section it lives in
 * @twin:	the other object's symbol it correlates with, or NULL
 * @state:	for the patched object's symbols: what the diff did to it
 * @ambiguous:	a static local of the patched object whose twin cannot be
 *		told among the original's (see cmp_correlate())
 * @digits:	a changed function that only digits in its strings set
 *		apart from its twin (see cmp_same_but_digits())
 * @ignored:	its changes are ignored (KPATCH_IGNORE_FUNCTION or
 *		KPATCH_IGNORE_SECTION; see annotate.c)
 * @forced:	patched where a change would be refused only as a
 *		judgement (KPATCH_FORCE_UNSAFE)
 */
struct cmp_sym {
	const Elf64_Sym *sym;
	const char *name;
	char *key;
	size_t sec;
	struct cmp_sym *twin;
	enum cmp_state state;
	bool ambiguous;
	bool digits;
	bool ignored;
	bool forced;
};

/**
 * struct cmp_obj - one object file and its functions and data
 * @elf:	the file
 * @syms:	its STT_FUNC and STT_OBJECT symbols that are defined
 * @nr:		how many
 */
struct cmp_obj {
	struct kelf elf;
	struct cmp_sym *syms;
	size_t nr;
};

int cmp_open(struct cmp_obj *o, const char *path);
void cmp_close(struct cmp_obj *o);
bool cmp_is_func(const struct cmp_sym *s);

/* annotate.c */
int cmp_annotations(struct cmp_obj *o);

/* correlate.c */
void cmp_correlate(struct cmp_obj *orig, struct cmp_obj *patched);
size_t cmp_users(const struct cmp_obj *o, const struct cmp_sym *d,
		 struct cmp_sym **out, size_t max);

/* diff.c */
bool cmp_same(const struct cmp_obj *a, const struct cmp_sym *sa,
	      const struct cmp_obj *b, const struct cmp_sym *sb);
bool cmp_same_but_digits(const struct cmp_obj *a, const struct cmp_sym *sa,
			 const struct cmp_obj *b, const struct cmp_sym *sb);
bool cmp_traceable(const struct cmp_obj *o, const struct cmp_sym *s);

#endif /* KLPC_COMPARE_H */
