// SPDX-License-Identifier: GPL-2.0
/*
 * annot.c - read the KLPC_SYMBOL() annotations of a patch module
 *
 * KLPC_SYMBOL(name, object, sympos) (include/klpc.h) puts an ELF note
 * into the non-allocated section .note.klpc.syms: owner "klpc", type 1,
 * three strings: the symbol's name, its object and its position as a
 * decimal number.  They say where an
 * unexported symbol lives when it is not a unique vmlinux symbol.  The
 * section is removed from the output: the kernel has no use for it.
 */
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

/* The next NUL-terminated string in [*p, end), or NULL. */
static const char *next_str(const char **p, const char *end)
{
	const char *s = *p, *nul;

	if (s >= end)
		return NULL;
	nul = memchr(s, '\0', end - s);
	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

static int add_annot(struct conv *c, const char *name, const char *object,
		     const char *pos)
{
	struct objsym *os, *old;
	char *end;

	os = objsym_add(&c->annots, &c->nr_annots);
	os->name = xstrdup(name);
	os->object = xmalloc(KLPC_OBJ_LEN);
	object_name(os->object, object, KLPC_OBJ_LEN);
	os->pos = strtoul(pos, &end, 10);
	if (!*name || !*object || strlen(object) >= KLPC_OBJ_LEN ||
	    strchr(object, '.') || !*pos || *end) {
		kelf_err(c->in, "bad KLPC_SYMBOL(%s, \"%s\", %s)", name, object, pos);
		return -1;
	}
	old = objsym_find(c->annots, c->nr_annots - 1, NULL, name);
	if (old && (strcmp(old->object, os->object) || old->pos != os->pos)) {
		kelf_err(c->in, "symbol %s: two KLPC_SYMBOL() annotations disagree",
			 name);
		return -1;
	}
	return 0;
}

/* One note: owner "klpc", type 1, three strings; at *off, moved past. */
static int read_note(struct conv *c, const struct kelf_sec *s, size_t *off)
{
	const char *p, *end, *name, *object, *pos;
	Elf64_Nhdr nh;
	size_t desc;

	if (*off + sizeof(nh) > s->size)
		goto bad;
	memcpy(&nh, s->data + *off, sizeof(nh));
	desc = *off + sizeof(nh) + ((nh.n_namesz + 3) & ~3U);
	if (nh.n_namesz != 5 || memcmp(s->data + *off + sizeof(nh), "klpc", 5) ||
	    nh.n_type != 1 || desc + nh.n_descsz > s->size)
		goto bad;
	*off = desc + ((nh.n_descsz + 3) & ~3U);
	p = (const char *)s->data + desc;
	end = p + nh.n_descsz;
	name = next_str(&p, end);
	object = next_str(&p, end);
	pos = next_str(&p, end);
	if (!pos)
		goto bad;
	return add_annot(c, name, object, pos);
bad:
	kelf_err(c->in, "section %s: a malformed note at offset %zu", s->name, *off);
	return -1;
}

int annot_read(struct kelf *k, struct conv *c)
{
	size_t idx = kelf_find(k, KLPC_ANNOT_SECTION), off = 0;
	struct kelf_sec *s;

	if (!idx)
		return 0;
	s = &k->secs[idx];
	if (s->sh.sh_flags & SHF_ALLOC) {
		kelf_err(c->in, "section %s must not be allocated", s->name);
		return -1;
	}
	while (off < s->size)
		if (read_note(c, s, &off))
			return -1;
	s->drop = true;
	return 0;
}
