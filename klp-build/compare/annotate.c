// SPDX-License-Identifier: GPL-2.0
/*
 * annotate.c - what the diff's author tells klpc-compare
 *
 * kpatch's KPATCH_IGNORE_SECTION("name"), KPATCH_IGNORE_FUNCTION(fn) and
 * KPATCH_FORCE_UNSAFE(fn) (include/kpatch/klpc-build-macros.h) leave the
 * name as a string in a section .discard.klpc.KIND of the patched object:
 * NUL-terminated strings one after the other (alignment may add NULs).
 * A function's name covers the parts gcc makes of it (fn.isra.0,
 * fn.cold, fn.constprop.0.cold): the author names the function of the
 * source.  A name the unit does not define is refused: an annotation
 * that silently does nothing would leave the change it was written for.
 */
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "util.h"

#define ANNOTATION ".discard.klpc."

/* @name is function @fn or a part gcc made of it */
static bool of_function(const char *name, const char *fn)
{
	size_t len = strlen(fn);

	return !strncmp(name, fn, len) && (!name[len] || name[len] == '.');
}

static int mark_function(struct cmp_obj *o, const char *fn, bool force)
{
	size_t i, found = 0;

	for (i = 0; i < o->nr; i++) {
		struct cmp_sym *s = &o->syms[i];

		if (!cmp_is_func(s) || !of_function(s->name, fn))
			continue;
		if (force)
			s->forced = true;
		else
			s->ignored = true;
		found++;
	}
	if (found)
		return 0;
	fprintf(stderr, "klpc-compare: %s: %s(%s): %s\n", o->elf.path,
		force ? "KPATCH_FORCE_UNSAFE" : "KPATCH_IGNORE_FUNCTION", fn,
		"no such function here (defined in another file, or inlined into every caller: name those)");
	return -1;
}

static int ignore_function(struct cmp_obj *o, const char *fn)
{
	return mark_function(o, fn, false);
}

static int force(struct cmp_obj *o, const char *fn)
{
	return mark_function(o, fn, true);
}

/* every function and data object in the section (its .rela's base) */
static int ignore_section(struct cmp_obj *o, const char *name)
{
	size_t sec = kelf_find(&o->elf, name), i;

	if (sec && kelf_is_rela(&o->elf.secs[sec]))
		sec = o->elf.secs[sec].sh.sh_info;
	if (!sec || sec >= o->elf.nsec) {
		fprintf(stderr, "klpc-compare: %s: %s(\"%s\"): no such section here\n",
			o->elf.path, "KPATCH_IGNORE_SECTION", name);
		return -1;
	}
	for (i = 0; i < o->nr; i++)
		if (o->syms[i].sec == sec)
			o->syms[i].ignored = true;
	return 0;
}

static const struct {
	const char *kind;
	int (*mark)(struct cmp_obj *o, const char *name);
} kinds[] = {
	{ "ignore_section", ignore_section },
	{ "ignore_function", ignore_function },
	{ "force", force },
};

static int one_section(struct cmp_obj *o, size_t sec,
		       int (*mark)(struct cmp_obj *o, const char *name))
{
	const struct kelf_sec *s = &o->elf.secs[sec];
	const char *p = (const char *)s->data, *end = p + s->size;
	int ret = 0;

	if (!p || s->size == 0 || end[-1] != '\0') {
		fprintf(stderr, "klpc-compare: %s: %s: not a list of names\n",
			o->elf.path, s->name);
		return -1;
	}
	for (; p < end; p += strlen(p) + 1)
		if (*p)
			ret |= mark(o, p);
	return ret;
}

/**
 * cmp_annotations() - mark the symbols the diff's annotations name
 * @o:	the patched object
 *
 * Sets &struct cmp_sym.ignored and .forced, which cmp's classification
 * reads.
 *
 * Return: 0, or -1 after a message (a name that is not here, a section
 * of an unknown kind).
 */
int cmp_annotations(struct cmp_obj *o)
{
	size_t sec, k;
	int ret = 0;

	for (sec = 1; sec < o->elf.nsec; sec++) {
		const char *name = o->elf.secs[sec].name;

		if (strncmp(name, ANNOTATION, strlen(ANNOTATION)) ||
		    kelf_is_rela(&o->elf.secs[sec]))
			continue;
		name += strlen(ANNOTATION);
		for (k = 0; k < ARRAY_SIZE(kinds); k++)
			if (!strcmp(name, kinds[k].kind))
				break;
		if (k == ARRAY_SIZE(kinds)) {
			fprintf(stderr, "klpc-compare: %s: %s: no such annotation\n",
				o->elf.path, o->elf.secs[sec].name);
			ret = -1;
			continue;
		}
		ret |= one_section(o, sec, kinds[k].mark);
	}
	return ret;
}
