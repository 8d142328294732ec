// SPDX-License-Identifier: GPL-2.0
/*
 * elf-renumber.c - keep section and symbol indices right after an edit
 *
 * Dropping a section moves every later section down, and sorting the
 * symbol table moves symbols: every field that holds such an index has to
 * follow (symbols' st_shndx, sh_link, sh_info of relocation and group
 * sections, relocations' symbol numbers, group members, e_shstrndx).  The
 * kernel loader trusts them all.
 */
#include <stdlib.h>
#include <string.h>

#include "elf-file.h"
#include "util.h"

static bool sh_info_is_section(const struct kelf_sec *s)
{
	return s->sh.sh_type == SHT_RELA || s->sh.sh_type == SHT_REL ||
	       (s->sh.sh_flags & SHF_INFO_LINK);
}

/* Renumber the symbol references of relocation and group sections. */
static int remap_sym_refs(struct kelf *k, const size_t *map, size_t nr)
{
	size_t i, j;

	for (i = 1; i < k->nsec; i++) {
		struct kelf_sec *s = &k->secs[i];

		if (s->drop)
			continue;
		if (s->sh.sh_type == SHT_GROUP && s->sh.sh_link == k->symtab) {
			if (s->sh.sh_info >= nr || !map[s->sh.sh_info])
				goto bad;
			s->sh.sh_info = map[s->sh.sh_info];
		}
		if (s->sh.sh_type != SHT_RELA || s->sh.sh_link != k->symtab)
			continue;
		for (j = 0; j < s->size / sizeof(Elf64_Rela); j++) {
			Elf64_Rela *r = (Elf64_Rela *)s->data + j;
			size_t sym = ELF64_R_SYM(r->r_info);

			if (sym >= nr || (sym && !map[sym]))
				goto bad;
			r->r_info = ELF64_R_INFO(map[sym], ELF64_R_TYPE(r->r_info));
		}
	}
	return 0;
bad:
	kelf_err(k->path, "section %s refers to a symbol that is gone",
		 k->secs[i].name);
	return -1;
}

/*
 * Locals first, as the ELF format wants (sh_info: the first non-local),
 * each group in its old order; symbols flagged in @remove are left out.
 */
static int renumber_symbols(struct kelf *k, const bool *remove)
{
	size_t nr, i, n = 1, nlocal, pass;
	Elf64_Sym *syms = kelf_syms(k, &nr), *out;
	size_t *map;
	int ret;

	map = xcalloc(nr, sizeof(*map));
	out = xcalloc(nr, sizeof(*out));
	for (pass = 0; pass < 2; pass++) {
		for (i = 1; i < nr; i++) {
			bool local = ELF64_ST_BIND(syms[i].st_info) == STB_LOCAL;

			if ((remove && remove[i]) || local != !pass)
				continue;
			map[i] = n;
			out[n++] = syms[i];
		}
		if (!pass)
			nlocal = n;
	}
	ret = remap_sym_refs(k, map, nr);
	free(map);
	if (ret) {
		free(out);
		return ret;
	}
	kelf_set_data(k, k->symtab, out, n * sizeof(*out));
	k->secs[k->symtab].sh.sh_info = nlocal;
	return 0;
}

int kelf_sort_symbols(struct kelf *k)
{
	return renumber_symbols(k, NULL);
}

/* Leave out the symbols flagged in @remove (none may be referenced). */
int kelf_remove_symbols(struct kelf *k, const bool *remove)
{
	return renumber_symbols(k, remove);
}

static void remap_group(struct kelf_sec *s, const size_t *map)
{
	Elf32_Word *w = (Elf32_Word *)s->data;
	size_t j;

	/* word 0 is the flags (GRP_COMDAT), then member section indices */
	for (j = 1; j < s->size / sizeof(*w); j++)
		w[j] = map[w[j]];
}

/* Section indices after the dropped ones are gone. */
static void remap_sections(struct kelf *k, const size_t *map)
{
	size_t nr, i;
	Elf64_Sym *syms = kelf_syms(k, &nr);

	for (i = 1; i < nr; i++)
		if (syms[i].st_shndx != SHN_UNDEF && syms[i].st_shndx < SHN_LORESERVE)
			syms[i].st_shndx = map[syms[i].st_shndx];
	for (i = 1; i < k->nsec; i++) {
		struct kelf_sec *s = &k->secs[i];

		if (s->drop)
			continue;
		if (s->sh.sh_link < k->nsec)
			s->sh.sh_link = map[s->sh.sh_link];
		if (sh_info_is_section(s) && s->sh.sh_info < k->nsec)
			s->sh.sh_info = map[s->sh.sh_info];
		if (s->sh.sh_type == SHT_GROUP)
			remap_group(s, map);
	}
	k->eh.e_shstrndx = map[k->eh.e_shstrndx];
	k->symtab = map[k->symtab];
	k->strtab = map[k->strtab];
}

/* Remove the sections marked drop, their relocations and symbols. */
int kelf_remove_dropped(struct kelf *k)
{
	size_t nr, i, n = 1, *map;
	Elf64_Sym *syms;
	bool *remove;
	int ret;

	for (i = 1; i < k->nsec; i++)
		if (sh_info_is_section(&k->secs[i]) &&
		    k->secs[i].sh.sh_info < k->nsec &&
		    k->secs[k->secs[i].sh.sh_info].drop)
			k->secs[i].drop = true;
	syms = kelf_syms(k, &nr);
	remove = xcalloc(nr, sizeof(*remove));
	for (i = 1; i < nr; i++)
		remove[i] = syms[i].st_shndx != SHN_UNDEF &&
			    syms[i].st_shndx < k->nsec &&
			    k->secs[syms[i].st_shndx].drop;
	ret = renumber_symbols(k, remove);
	free(remove);
	if (ret)
		return ret;

	map = xcalloc(k->nsec, sizeof(*map));
	for (i = 1; i < k->nsec; i++)
		if (!k->secs[i].drop)
			map[i] = n++;
	remap_sections(k, map);
	for (i = 1, n = 1; i < k->nsec; i++) {
		if (k->secs[i].drop) {
			free(k->secs[i].name);
			free(k->secs[i].data);
			continue;
		}
		k->secs[n++] = k->secs[i];
	}
	k->nsec = n;
	free(map);
	return 0;
}
