// SPDX-License-Identifier: GPL-2.0
/*
 * special.c - the sections of fixed-size entries that describe code
 *
 * Each entry of these sections belongs to the code its first field points
 * to: a bug site, a jump label, an alternative, an exception fixup, a
 * static call, a retpoline or return thunk site, an fentry call, an ORC
 * unwind entry.  The module loader and the kernel walk them by name, so an
 * entry of kept code is carried (with what its other fields reach) and
 * every other entry is left out.  Sizes are those of x86-64 6.1.
 */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

/**
 * struct special - a section of fixed-size entries
 * @name:	the section
 * @size:	its entry size; the first field points to the code
 * @pair:	a section whose entries go with these one for one, or NULL
 *		(.orc_unwind, whose entries have no relocations)
 * @pair_size:	its entry size
 */
struct special {
	const char *name;
	size_t size;
	const char *pair;
	size_t pair_size;
};

static const struct special specials[] = {
	{ .name = "__bug_table", .size = 12 },		/* struct bug_entry, relative */
	{ .name = "__jump_table", .size = 16 },		/* struct jump_entry, relative */
	{ .name = ".altinstructions", .size = 12 },	/* struct alt_instr */
	{ .name = "__ex_table", .size = 12 },		/* struct exception_table_entry */
	{ .name = ".static_call_sites", .size = 8 },	/* struct static_call_site */
	{ .name = ".parainstructions", .size = 16 },	/* struct paravirt_patch_site */
	{ .name = ".retpoline_sites", .size = 4 },
	{ .name = ".return_sites", .size = 4 },
	{ .name = ".smp_locks", .size = 4 },
	{ .name = "__mcount_loc", .size = 8 },
	{ .name = ".orc_unwind_ip", .size = 4, .pair = ".orc_unwind", .pair_size = 6 },
	{ .name = NULL },
};

bool emit_is_special(const char *name)
{
	const struct special *sp;

	for (sp = specials; sp->name; sp++)
		if (!strcmp(sp->name, name) || (sp->pair && !strcmp(sp->pair, name)))
			return true;
	return false;
}

/* does entry relocation @r point into kept code or data? */
static bool points_to_kept(const struct emit *e, const Elf64_Rela *r)
{
	size_t nr, idx = ELF64_R_SYM(r->r_info);
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);

	if (!idx || idx >= nr)
		return false;
	if (ELF64_ST_TYPE(syms[idx].st_info) == STT_SECTION)
		return syms[idx].st_shndx < e->elf.nsec &&
		       e->keep[syms[idx].st_shndx];
	return e->fate[idx] == EMIT_KEEP;
}

/**
 * emit_entry_kept() - is entry @i of special section @sec carried?
 * @e:		the unit
 * @sec:	a special section (not the pair)
 * @size:	its entry size
 * @i:		the entry
 *
 * Return: whether the relocation of its first field points to kept code.
 */
bool emit_entry_kept(const struct emit *e, size_t sec, size_t size, size_t i)
{
	size_t j, nr;
	const Elf64_Rela *r = kelf_relas_of(&e->elf, sec, &nr);

	for (j = 0; j < nr; j++)
		if (r[j].r_offset == i * size)
			return points_to_kept(e, &r[j]);
	return false;
}

/* reach what the other fields of kept entries of @sec point to */
static int reach_entries(struct emit *e, size_t sec, size_t size)
{
	size_t j, nr;
	const Elf64_Rela *r = kelf_relas_of(&e->elf, sec, &nr);

	for (j = 0; j < nr; j++) {
		if (!emit_entry_kept(e, sec, size, r[j].r_offset / size))
			continue;
		if (emit_reach(e, &r[j], sec))
			return -1;
	}
	return 0;
}

/**
 * emit_special_sections() - reach what kept entries need
 *
 * Return: 0, or -1 after a message (a section whose size is not a
 * multiple of its entries').
 */
int emit_special_sections(struct emit *e)
{
	const struct special *sp;
	size_t sec;

	for (sp = specials; sp->name; sp++) {
		sec = kelf_find(&e->elf, sp->name);
		if (!sec)
			continue;
		if (e->elf.secs[sec].size % sp->size)
			return emit_err(e, "%s: %zu bytes, not a multiple of %zu",
					sp->name, e->elf.secs[sec].size, sp->size);
		if (reach_entries(e, sec, sp->size))
			return -1;
	}
	return 0;
}

/* the entries of @sec (and its pair) that are kept, compacted in place */
static int filter_section(struct emit *e, const struct special *sp, size_t sec)
{
	size_t rs = kelf_rela_sec(&e->elf, sec), pair = sp->pair ? kelf_find(&e->elf, sp->pair) : 0;
	struct kelf_sec *s = &e->elf.secs[sec];
	size_t n = s->size / sp->size, i, out = 0, j, nr = 0, rout = 0;
	Elf64_Rela *r = NULL;
	size_t *newpos = xcalloc(n + 1, sizeof(*newpos));

	if (pair && e->elf.secs[pair].size != n * sp->pair_size) {
		free(newpos);
		return emit_err(e, "%s and %s do not match", sp->name, sp->pair);
	}
	for (i = 0; i < n; i++) {
		newpos[i] = (size_t)-1;
		if (!emit_entry_kept(e, sec, sp->size, i))
			continue;
		memmove(s->data + out * sp->size, s->data + i * sp->size, sp->size);
		if (pair)
			memmove(e->elf.secs[pair].data + out * sp->pair_size,
				e->elf.secs[pair].data + i * sp->pair_size,
				sp->pair_size);
		newpos[i] = out++;
	}
	if (rs) {
		r = (Elf64_Rela *)e->elf.secs[rs].data;
		nr = e->elf.secs[rs].size / sizeof(*r);
	}
	for (j = 0; j < nr; j++) {
		size_t entry = r[j].r_offset / sp->size;

		if (newpos[entry] == (size_t)-1)
			continue;
		r[rout] = r[j];
		r[rout++].r_offset = newpos[entry] * sp->size +
				     r[j].r_offset % sp->size;
	}
	s->size = out * sp->size;
	s->sh.sh_size = s->size;
	if (pair) {
		e->elf.secs[pair].size = out * sp->pair_size;
		e->elf.secs[pair].sh.sh_size = e->elf.secs[pair].size;
		e->keep[pair] = out > 0;
	}
	if (rs) {
		e->elf.secs[rs].size = rout * sizeof(*r);
		e->elf.secs[rs].sh.sh_size = e->elf.secs[rs].size;
	}
	e->keep[sec] = out > 0;
	free(newpos);
	return 0;
}

/**
 * emit_filter_special() - leave in each special section only the entries
 * of kept code; the sections left empty are dropped
 *
 * Return: 0, or -1 after a message.
 */
int emit_filter_special(struct emit *e)
{
	const struct special *sp;
	size_t sec;

	for (sp = specials; sp->name; sp++) {
		sec = kelf_find(&e->elf, sp->name);
		if (sec && filter_section(e, sp, sec))
			return -1;
	}
	return 0;
}
