// SPDX-License-Identifier: GPL-2.0
/*
 * place.c - which running symbol each of the patch's names is
 *
 * Made once here, for the hook's klpc_func table and the KLPC_SYMBOL()
 * annotations klpc-convert then follows without deciding anything:
 * - a replaced function of vmlinux: its sympos, and the check that the
 *   source reproduces the running kernel: the function as compiled here
 *   (before the diff) must fill the running one's place, its size to the
 *   next symbol less at most 63 bytes of padding (another source or
 *   compiler almost always changes a function's size);
 * - an unexported symbol a vmlinux unit's code uses: vmlinux's, its
 *   sympos when vmlinux has several of that name;
 * - an unexported symbol a module unit's code uses: the module's own (a
 *   module can only have used exported symbols and its own); and one the
 *   module itself exports: as a plain relocation it would make the patch
 *   depend on the module, which could then not load before it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "elf-file.h"
#include "util.h"

static int place_err(const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int place_err(const char *unit, const char *fmt, ...)
{
	va_list ap;

	if (unit)
		fprintf(stderr, "%s: ", unit);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static bool named_defined(const struct kelf *k, const Elf64_Sym *s)
{
	unsigned int type = ELF64_ST_TYPE(s->st_info);

	return s->st_shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && *kelf_sym_name(k, s);
}

/*
 * The names object @k defines, into @set; only its global ones when
 * @global: another object's reference can only be to those.
 */
static void defined_names(const struct kelf *k, struct symvers *set,
			  bool global)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(k, &nr);

	for (i = 1; i < nr; i++)
		if (named_defined(k, &syms[i]) &&
		    (!global || ELF64_ST_BIND(syms[i].st_info) != STB_LOCAL))
			symvers_add(set, kelf_sym_name(k, &syms[i]));
}

/* the size of @name as object @k defines it, 0 if it does not */
static unsigned long long size_in(const struct kelf *k, const char *name)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(k, &nr);

	for (i = 1; i < nr; i++)
		if (named_defined(k, &syms[i]) && syms[i].st_size &&
		    !strcmp(kelf_sym_name(k, &syms[i]), name))
			return syms[i].st_size;
	return 0;
}

static void add_symbol(struct patch *p, const char *unit, const char *object,
		       const char *name, long pos)
{
	struct patch_symbol *s;

	p->syms = xrealloc(p->syms, (p->nsyms + 1) * sizeof(*p->syms));
	s = &p->syms[p->nsyms++];
	s->object = xstrdup(object);
	s->name = xstrdup(name);
	s->pos = pos;
	s->unit = xstrdup(unit);
}

static void free_symbol(struct patch_symbol *s)
{
	free(s->object);
	free(s->name);
	free(s->unit);
}

/* the sympos and size check of unit @n's replaced functions */
static int place_funcs(struct patch *p, const char *unit, size_t n,
		       const struct kelf *orig, struct symvers *anchors)
{
	struct ksym_place at;
	unsigned long long size;
	size_t i;

	for (i = 0; i < p->nfuncs; i++) {
		struct patch_func *f = &p->funcs[i];

		if (f->unit != n)
			continue;
		ksyms_place(&p->ksyms, f->kname, anchors, &at);
		if (!at.count)
			return place_err(unit, "%s is not in %s's vmlinux: %s",
					 f->kname, p->kver,
					 "the source does not match it");
		if (at.pos < 0)
			return place_err(unit, "vmlinux has %zu functions named %s, %s",
					 at.count, f->kname,
					 "and which is this unit's cannot be told");
		size = size_in(orig, f->kname);
		if (at.gap < 0 || (unsigned long long)at.gap < size ||
		    (unsigned long long)at.gap >= size + 64)
			return place_err(unit, "%s compiles to %llu bytes here, %s %lld: %s %s",
					 f->kname, size, "the running one takes",
					 at.gap, "the source or compiler does not match",
					 p->kver);
		f->pos = at.pos;
	}
	return 0;
}

/* what module @object exports itself, into @own */
static int own_exports(struct patch *p, const char *object,
		       struct symvers *own)
{
	size_t i;

	for (i = 0; i < p->nsymvers; i++)
		if (symvers_read_module(own, p->symvers[i], object))
			return -1;
	return 0;
}

/* the symbols a module unit's cut object @cut uses that are @object's */
static int place_module_symbols(struct patch *p, const char *unit,
				const char *object, const struct kelf *cut)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(cut, &nr);
	struct symvers own = { 0 };

	if (own_exports(p, object, &own))
		return -1;
	for (i = 1; i < nr; i++) {
		const char *name = kelf_sym_name(cut, &syms[i]);

		if (syms[i].st_shndx == SHN_UNDEF && *name &&
		    (!symvers_has(&p->exports, name) || symvers_has(&own, name)))
			add_symbol(p, unit, object, name, 0);
	}
	symvers_free(&own);
	return 0;
}

/* the unexported symbols a vmlinux unit's cut object @cut uses */
static int place_symbols(struct patch *p, const char *unit, const char *object,
			 const struct kelf *cut, struct symvers *anchors)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(cut, &nr);
	struct ksym_place at;

	for (i = 1; i < nr; i++) {
		const char *name = kelf_sym_name(cut, &syms[i]);

		if (syms[i].st_shndx != SHN_UNDEF || !*name ||
		    symvers_has(&p->exports, name))
			continue;
		ksyms_place(&p->ksyms, name, anchors, &at);
		if (at.count && at.pos < 0)
			return place_err(unit, "the patched code uses %s (%zu in vmlinux), %s",
					 name, at.count,
					 "and which is this unit's cannot be told");
		add_symbol(p, unit, object, name, at.count ? at.pos : -1);
	}
	return 0;
}

/**
 * place_unit() - place unit @n's names in the running kernel
 * @p:		the patch; unit @n's functions are in it
 * @unit:	the unit's source, for messages
 * @object:	"vmlinux" or the module it is linked into
 * @n:		the unit's number
 * @orig:	its object as compiled before the diff
 * @cut:	its cut-down object (emit_output())
 *
 * Return: 0, or -1 after a message.
 */
int place_unit(struct patch *p, const char *unit, const char *object,
	       size_t n, const char *orig, const char *cut)
{
	struct kelf o = { 0 }, c = { 0 };
	struct symvers anchors = { 0 };
	int ret = -1;

	if (kelf_read(&o, orig) || kelf_read(&c, cut))
		goto out;
	defined_names(&c, &p->defined, true);
	defined_names(&o, &anchors, false);
	if (strcmp(object, "vmlinux")) {
		ret = place_module_symbols(p, unit, object, &c);
		goto out;
	}
	if (!p->have_ksyms) {
		place_err(unit, "no symbols of %s's vmlinux (--kallsyms) to place its functions",
			  p->kver);
		goto out;
	}
	if (place_funcs(p, unit, n, &o, &anchors) ||
	    place_symbols(p, unit, object, &c, &anchors))
		goto out;
	ret = 0;
out:
	symvers_free(&anchors);
	kelf_free(&c);
	kelf_free(&o);
	return ret;
}

static int by_symbol(const void *a, const void *b)
{
	const struct patch_symbol *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (!c)
		c = strcmp(x->object, y->object);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * The symbols of every unit: less those a unit of the patch defines
 * globally (a new function of the diff another unit calls), each once.
 * Then each must be placed, and two units using two symbols of one name
 * cannot both be annotated.
 */
static int merge_symbols(struct patch *p)
{
	size_t i, out = 0;
	int ret = 0;

	qsort(p->syms, p->nsyms, sizeof(*p->syms), by_symbol);
	for (i = 0; i < p->nsyms; i++) {
		struct patch_symbol *s = &p->syms[i];
		struct patch_symbol *last = out ? &p->syms[out - 1] : NULL;

		if (symvers_has(&p->defined, s->name) ||
		    (last && !by_symbol(last, s))) {
			free_symbol(s);
			continue;
		}
		if (!ret && s->pos < 0)
			ret = place_err(s->unit, "the patched code uses %s, which %s's vmlinux %s",
					s->name, p->kver,
					"does not have and nothing exports");
		else if (!ret && last && !strcmp(last->name, s->name))
			ret = place_err(NULL, "two units use two different symbols named %s",
					s->name);
		p->syms[out++] = *s;
	}
	p->nsyms = out;
	return ret;
}

/**
 * place_check() - the decisions across units, once all are placed
 * @p:	the patch
 *
 * Return: 0, or -1 after a message (two units disagreeing on a symbol,
 * two callbacks of one kind for one object).
 */
int place_check(struct patch *p)
{
	size_t i, j;

	for (i = 0; i < p->ncbs; i++)
		for (j = i + 1; j < p->ncbs; j++)
			if (!strcmp(p->cbs[i].object, p->cbs[j].object) &&
			    !strcmp(p->cbs[i].kind, p->cbs[j].kind))
				return place_err(NULL, "two %s callbacks for %s: %s",
						 p->cbs[i].kind, p->cbs[i].object,
						 "one of each kind per object");
	return merge_symbols(p);
}
