// SPDX-License-Identifier: GPL-2.0
/*
 * correlate.c - which symbol of the patched object is which of the
 * original's
 *
 * By name first.  gcc numbers its clones (foo.isra.0, foo.constprop.2)
 * and static locals (count.5) per compilation, so a name that has no twin
 * is matched by its key (the name without those numbers) when the key is
 * unique in both objects.  A static local that cannot be matched that way
 * is refused by the caller: the patched code must keep using the running
 * kernel's instance, and guessing which one that is would be wrong.
 */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

bool cmp_is_func(const struct cmp_sym *s)
{
	return ELF64_ST_TYPE(s->sym->st_info) == STT_FUNC;
}

/*
 * foo.constprop.12 -> foo.constprop. : the digits after a dot dropped; and
 * __UNIQUE_ID_ddebug485.29 -> __UNIQUE_ID_ddebug. : a __UNIQUE_ID_ name's
 * number is __COUNTER__'s, which any macro use added above it moves.
 */
static char *sym_key(const char *name)
{
	static const char unique[] = "__UNIQUE_ID_";
	char *key = xstrdup(name), *w = key;
	const char *r = name;

	if (!strncmp(name, unique, sizeof(unique) - 1)) {
		const char *end = strchr(name, '.') ?: name + strlen(name);

		while (end > name && end[-1] >= '0' && end[-1] <= '9')
			end--;
		memcpy(w, name, end - name);
		w += end - name;
		r = end;
		while (*r >= '0' && *r <= '9')
			r++;
	}
	while (*r) {
		*w++ = *r;
		if (*r++ != '.')
			continue;
		while (*r >= '0' && *r <= '9')
			r++;
	}
	*w = '\0';
	return key;
}

/*
 * Functions and data, less what the kernel's link discards: the
 * __ADDRESSABLE() anchors in .discard.addressable are numbered by
 * __COUNTER__, one per use, and never reach the running kernel.
 */
static bool wanted(const struct kelf *k, const Elf64_Sym *s)
{
	unsigned int type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_OBJECT) &&
	       s->st_shndx != SHN_UNDEF && s->st_shndx < k->nsec &&
	       strncmp(k->secs[s->st_shndx].name, ".discard.", 9);
}

/**
 * cmp_open() - read an object file and list its functions and data
 * @o:		filled in
 * @path:	the object
 *
 * Return: 0, or -1 after a message.
 */
int cmp_open(struct cmp_obj *o, const char *path)
{
	const Elf64_Sym *syms;
	size_t nr, i;

	memset(o, 0, sizeof(*o));
	if (kelf_read(&o->elf, path))
		return -1;
	syms = kelf_syms(&o->elf, &nr);
	if (!syms) {
		kelf_err(path, "no symbol table");
		return -1;
	}
	o->syms = xcalloc(nr, sizeof(*o->syms));
	for (i = 0; i < nr; i++) {
		struct cmp_sym *s = &o->syms[o->nr];

		if (!wanted(&o->elf, &syms[i]))
			continue;
		s->sym = &syms[i];
		s->name = kelf_sym_name(&o->elf, &syms[i]);
		s->key = sym_key(s->name);
		s->sec = syms[i].st_shndx;
		o->nr++;
	}
	return 0;
}

void cmp_close(struct cmp_obj *o)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		free(o->syms[i].key);
	free(o->syms);
	kelf_free(&o->elf);
}

static bool same_kind(const struct cmp_sym *a, const struct cmp_sym *b)
{
	return ELF64_ST_TYPE(a->sym->st_info) == ELF64_ST_TYPE(b->sym->st_info);
}

static bool numbered(const struct cmp_sym *s)
{
	return strcmp(s->name, s->key) != 0;
}

static struct cmp_sym *by_name(struct cmp_obj *o, const struct cmp_sym *s)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (!o->syms[i].twin && same_kind(&o->syms[i], s) &&
		    !strcmp(o->syms[i].name, s->name))
			return &o->syms[i];
	return NULL;
}

/* the one untwinned symbol of @o with @s's key, or NULL; *count: how many */
static struct cmp_sym *by_key(struct cmp_obj *o, const struct cmp_sym *s,
			      size_t *count)
{
	struct cmp_sym *found = NULL;
	size_t i;

	*count = 0;
	for (i = 0; i < o->nr; i++) {
		if (!same_kind(&o->syms[i], s) || strcmp(o->syms[i].key, s->key))
			continue;
		(*count)++;
		found = &o->syms[i];
	}
	return *count == 1 && !found->twin ? found : NULL;
}

/* the function of @o whose code contains @off of section @sec */
static struct cmp_sym *func_at(struct cmp_obj *o, size_t sec, GElf_Addr off)
{
	size_t i;

	for (i = 0; i < o->nr; i++) {
		const Elf64_Sym *f = o->syms[i].sym;

		if (cmp_is_func(&o->syms[i]) && o->syms[i].sec == sec &&
		    off >= f->st_value && off < f->st_value + f->st_size)
			return &o->syms[i];
	}
	return NULL;
}

/* does relocation @r, of section @sec of @o, reach data symbol @d? */
static bool reaches(const struct cmp_obj *o, size_t sec, const Elf64_Rela *r,
		    const struct cmp_sym *d)
{
	size_t nr, idx = ELF64_R_SYM(r->r_info);
	const Elf64_Sym *syms = kelf_syms(&o->elf, &nr), *t;
	GElf_Sxword off;

	if (idx >= nr)
		return false;
	t = &syms[idx];
	if (t == d->sym)
		return true;
	if (ELF64_ST_TYPE(t->st_info) != STT_SECTION || t->st_shndx != d->sec)
		return false;
	/* the offset reached, not the addend: flags lie side by side */
	off = kelf_rela_target(&o->elf, sec, r);
	return off >= (GElf_Sxword)d->sym->st_value &&
	       off < (GElf_Sxword)(d->sym->st_value + (d->sym->st_size ?: 1));
}

/**
 * cmp_users() - the functions of @o whose code refers to symbol @d
 * @o:		the object
 * @d:		a function or data symbol of @o
 * @out:	filled with up to @max functions, each once, in section order
 * @max:	the size of @out
 *
 * Return: how many were found (at most @max).
 */
size_t cmp_users(const struct cmp_obj *o, const struct cmp_sym *d,
		 struct cmp_sym **out, size_t max)
{
	size_t i, j, k, nr, n = 0;

	for (i = 1; i < o->elf.nsec && n < max; i++) {
		const struct kelf_sec *s = &o->elf.secs[i];
		const Elf64_Rela *r = (const Elf64_Rela *)s->data;

		if (s->sh.sh_type != SHT_RELA || s->sh.sh_info >= o->elf.nsec ||
		    !(o->elf.secs[s->sh.sh_info].sh.sh_flags & SHF_EXECINSTR))
			continue;
		nr = s->size / sizeof(*r);
		for (j = 0; j < nr && n < max; j++) {
			struct cmp_sym *f;

			if (!reaches(o, s->sh.sh_info, &r[j], d))
				continue;
			f = func_at((struct cmp_obj *)o, s->sh.sh_info,
				    r[j].r_offset);
			for (k = 0; f && k < n; k++)
				if (out[k] == f)
					f = NULL;
			if (f && f != d)
				out[n++] = f;
		}
	}
	return n;
}

/* the first function of @o that refers to data symbol @d, or NULL */
static struct cmp_sym *first_user(struct cmp_obj *o, const struct cmp_sym *d)
{
	struct cmp_sym *f;

	return cmp_users(o, d, &f, 1) ? f : NULL;
}

/*
 * The data symbol of @o with @s's key that relocation @r (of section
 * @sec) reaches, or NULL.
 */
static struct cmp_sym *reached(struct cmp_obj *o, size_t sec,
			       const Elf64_Rela *r, const struct cmp_sym *s)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (same_kind(&o->syms[i], s) && !strcmp(o->syms[i].key, s->key) &&
		    reaches(o, sec, r, &o->syms[i]))
			return &o->syms[i];
	return NULL;
}

/*
 * The data symbols of @o with @s's key that function @f refers to, each
 * once, in the order of @f's relocations, into @out (at most @max).
 */
static size_t key_refs(struct cmp_obj *o, const struct cmp_sym *f,
		       const struct cmp_sym *s, struct cmp_sym **out, size_t max)
{
	const Elf64_Sym *fs = f->sym;
	size_t j, k, nr, n = 0;
	const Elf64_Rela *r = kelf_relas_of(&o->elf, f->sec, &nr);

	for (j = 0; j < nr && n < max; j++) {
		struct cmp_sym *d;

		if (r[j].r_offset < fs->st_value ||
		    r[j].r_offset >= fs->st_value + fs->st_size)
			continue;
		d = reached(o, f->sec, &r[j], s);
		for (k = 0; d && k < n; k++)
			if (out[k] == d)
				d = NULL;
		if (d)
			out[n++] = d;
	}
	return n;
}

/*
 * @s among the statics of its key that its user refers to, and the
 * original's at the same place among those the user's twin refers to:
 * copy_process() has a dozen __key.N, one per spin_lock_init(), in the
 * same order before and after a diff that adds none.  NULL when the
 * numbers of them differ.
 */
static struct cmp_sym *by_order(struct cmp_obj *orig, struct cmp_obj *patched,
				struct cmp_sym *user, const struct cmp_sym *s)
{
	struct cmp_sym *a[64], *b[64];
	size_t na, nb, i;

	na = key_refs(patched, user, s, a, 64);
	nb = key_refs(orig, user->twin, s, b, 64);
	if (na != nb || na == 64)
		return NULL;
	for (i = 0; i < na; i++)
		if (a[i] == s)
			return b[i]->twin ? NULL : b[i];
	return NULL;
}

/*
 * A static local whose key is not unique (count.1 and count.4 in two
 * functions): the one of @orig used by the twin of the function that
 * uses @s, told apart by order when that twin uses several.
 * *ambiguous: that twin uses symbols of this key, but which one is @s's
 * cannot be told; when it uses none, @s is new.
 */
static struct cmp_sym *by_user(struct cmp_obj *orig, struct cmp_obj *patched,
			       const struct cmp_sym *s, bool *ambiguous)
{
	struct cmp_sym *user = first_user(patched, s), *found = NULL;
	size_t i, used = 0, n = 0;

	*ambiguous = false;
	if (!user || !user->twin)
		return NULL;
	for (i = 0; i < orig->nr; i++) {
		struct cmp_sym *c = &orig->syms[i];

		if (!same_kind(c, s) || strcmp(c->key, s->key) ||
		    first_user(orig, c) != user->twin)
			continue;
		used++;
		if (!c->twin) {
			found = c;
			n++;
		}
	}
	if (n > 1)
		found = by_order(orig, patched, user, s);
	*ambiguous = used && !found;
	return found;
}

static void pair(struct cmp_sym *a, struct cmp_sym *b)
{
	a->twin = b;
	b->twin = a;
}

/* pair the numbered symbols of @patched that are functions (@funcs) or data */
static void correlate_numbered(struct cmp_obj *orig, struct cmp_obj *patched,
			       bool funcs)
{
	struct cmp_sym *s, *t;
	size_t i, n1, n2;

	for (i = 0; i < patched->nr; i++) {
		s = &patched->syms[i];
		if (s->twin || cmp_is_func(s) != funcs)
			continue;
		t = by_key(orig, s, &n1);
		by_key(patched, s, &n2);
		if (n2 != 1)
			t = NULL;
		if (cmp_is_func(s) && !t)
			t = by_name(orig, s);
		else if (!cmp_is_func(s) && first_user(patched, s))
			t = by_user(orig, patched, s, &s->ambiguous);
		if (t)
			pair(s, t);
	}
}

/**
 * cmp_correlate() - pair the symbols of @orig and @patched
 *
 * Names without gcc's numbers pair by name.  Numbered functions (clones)
 * pair by their key where it is unique in both, else by name; numbered
 * data (static locals) by the function that uses them, or by a unique
 * key when no function does: after the functions, whose twins tell
 * (a clone's cold part may be the one user of a report-once flag).
 *
 * A data symbol whose twin cannot be told is marked ambiguous: the
 * caller refuses it.
 */
void cmp_correlate(struct cmp_obj *orig, struct cmp_obj *patched)
{
	struct cmp_sym *s, *t;
	size_t i;

	for (i = 0; i < patched->nr; i++) {
		s = &patched->syms[i];
		t = numbered(s) ? NULL : by_name(orig, s);
		if (t)
			pair(s, t);
	}
	correlate_numbered(orig, patched, true);
	correlate_numbered(orig, patched, false);
}
