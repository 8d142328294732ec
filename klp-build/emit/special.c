// SPDX-License-Identifier: GPL-2.0
/*
 * special.c - the sections of fixed-size entries that describe code
 *
 * Each entry of these sections belongs to the code its first field points
 * to: a bug site, a jump label, an alternative, an exception fixup, a
 * static call, a retpoline or return thunk site, an fentry call, an ORC
 * unwind entry.  The module loader and the kernel walk them by name, so an
 * entry of kept code is carried (with what its other fields reach) and
 * every other entry is left out.  An entry's size is the target's: its
 * type's size in the target's headers (layout.c), or the section's
 * sh_entsize; a kernel release changes them (struct alt_instr grew from
 * 12 to 14 bytes in 6.3), and a wrong size would carry torn entries that
 * the loader applies to the wrong code.  A section of entries klpc does
 * not know, or whose size the target does not give, is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

/*
 * Sections of one scalar per entry have no struct: the type is the one the
 * kernel reads them as (apply_retpolines(), apply_returns(),
 * alternatives_smp_lock(), ftrace_process_locs(), the ORC unwinder).
 */
const struct emit_special emit_specials[] = {
	{ .name = "__bug_table", .header = "linux/bug.h",
	  .type = "struct bug_entry" },
	{ .name = "__jump_table", .header = "linux/jump_label.h",
	  .type = "struct jump_entry" },
	{ .name = ".altinstructions", .header = "asm/alternative.h",
	  .type = "struct alt_instr" },
	{ .name = "__ex_table", .header = "asm/extable.h",
	  .type = "struct exception_table_entry" },
	{ .name = ".static_call_sites", .header = "linux/static_call_types.h",
	  .type = "struct static_call_site" },
	{ .name = ".parainstructions", .header = "asm/paravirt_types.h",
	  .type = "struct paravirt_patch_site" },
	{ .name = ".retpoline_sites", .header = "linux/types.h", .type = "s32" },
	{ .name = ".return_sites", .header = "linux/types.h", .type = "s32" },
	{ .name = ".smp_locks", .header = "linux/types.h", .type = "s32" },
	{ .name = "__mcount_loc", .header = "linux/types.h",
	  .type = "unsigned long" },
	{ .name = ".orc_unwind_ip", .header = "linux/types.h", .type = "int",
	  .pair = ".orc_unwind" },
	{ .name = ".orc_unwind", .header = "asm/orc_types.h",
	  .type = "struct orc_entry", .follows = true },
	{ .name = NULL },
};

/* the emit_specials[] entry named @name, or NULL */
static const struct emit_special *special_named(const char *name)
{
	const struct emit_special *sp;

	for (sp = emit_specials; sp->name; sp++)
		if (!strcmp(sp->name, name))
			return sp;
	return NULL;
}

bool emit_is_special(const char *name)
{
	return special_named(name);
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

/* does any relocation of @sec point into kept code? */
static bool reaches_kept_code(const struct emit *e, size_t sec)
{
	size_t nr, j, nsyms;
	const Elf64_Rela *r = kelf_relas_of(&e->elf, sec, &nr);
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nsyms);

	for (j = 0; j < nr; j++) {
		size_t idx = ELF64_R_SYM(r[j].r_info), at;

		if (!idx || idx >= nsyms || !points_to_kept(e, &r[j]))
			continue;
		at = syms[idx].st_shndx;
		if (at < e->elf.nsec &&
		    (e->elf.secs[at].sh.sh_flags & SHF_EXECINSTR))
			return true;
	}
	return false;
}

/**
 * emit_entry_size() - the target's size of the entries of a special section
 * @e:		the unit
 * @sp:		which special section
 * @sec:	its index in the unit
 *
 * The target's layout gives it (layout.c), else the section's sh_entsize
 * (objtool sets it on the sections it writes); when both do, they agree.
 *
 * Return: the size, or 0 after a message.
 */
size_t emit_entry_size(struct emit *e, const struct emit_special *sp,
		       size_t sec)
{
	size_t want = emit_layout_size(sp->name);
	size_t ent = e->elf.secs[sec].sh.sh_entsize;

	if (want && ent && want != ent) {
		emit_err(e, "%s: entries of %zu bytes, the target's layout says %zu (%s)",
			 sp->name, ent, want, sp->type);
		return 0;
	}
	if (!want && !ent) {
		emit_err(e, "%s: the target's size of its entries (%s) is not known: the entries of the patched code cannot be kept",
			 sp->name, sp->type);
		return 0;
	}
	return want ? want : ent;
}

/* a symbol other than the section's own is defined in @sec */
static bool has_symbols(const struct emit *e, size_t sec)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);

	for (i = 1; i < nr; i++)
		if (syms[i].st_shndx == sec &&
		    ELF64_ST_TYPE(syms[i].st_info) != STT_SECTION)
			return true;
	return false;
}

/*
 * A section of entries that klpc does not know: allocated, not code, not
 * carried, without a symbol of its own (nothing refers to it: it is walked
 * by name, as the special sections are), and pointing into kept code.
 * Its entries of that code would be lost or carried torn; refused.
 * .discard.* is thrown away by the linker.
 */
static int unknown_sections(struct emit *e)
{
	static const char unknown[] =
		"klpc does not know its entries, and some point into the patched code";
	size_t i;

	for (i = 1; i < e->elf.nsec; i++) {
		const struct kelf_sec *s = &e->elf.secs[i];

		if (!(s->sh.sh_flags & SHF_ALLOC) ||
		    (s->sh.sh_flags & SHF_EXECINSTR) || e->keep[i] ||
		    kelf_is_rela(s) || special_named(s->name) ||
		    !strncmp(s->name, ".discard.", 9) || has_symbols(e, i) ||
		    !reaches_kept_code(e, i))
			continue;
		return emit_err(e, "%s: %s", s->name, unknown);
	}
	return 0;
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
 * @e:		the unit
 *
 * Return: 0, or -1 after a message (an entry size the target does not
 * give, a section whose size is not a multiple of its entries', a
 * section of entries klpc does not know, a jump label klpc cannot carry).
 */
int emit_special_sections(struct emit *e)
{
	const struct emit_special *sp;
	size_t sec, size;

	for (sp = emit_specials; sp->name; sp++) {
		sec = kelf_find(&e->elf, sp->name);
		if (!sec || sp->follows || !reaches_kept_code(e, sec))
			continue;
		size = emit_entry_size(e, sp, sec);
		if (!size)
			return -1;
		if (e->elf.secs[sec].size % size)
			return emit_err(e, "%s: %zu bytes, not a multiple of %zu",
					sp->name, e->elf.secs[sec].size, size);
		if (reach_entries(e, sec, size))
			return -1;
		if ((!strcmp(sp->name, "__jump_table") ||
		     !strcmp(sp->name, ".static_call_sites")) &&
		    emit_module_keys(e, sec, size))
			return -1;
	}
	return unknown_sections(e);
}

/* the entries of @sec (@size bytes each) that are kept, compacted in place */
static void compact(struct emit *e, size_t sec, size_t size, size_t *newpos)
{
	struct kelf_sec *s = &e->elf.secs[sec];
	size_t n = s->size / size, i, out = 0;

	for (i = 0; i < n; i++) {
		newpos[i] = (size_t)-1;
		if (!emit_entry_kept(e, sec, size, i))
			continue;
		memmove(s->data + out * size, s->data + i * size, size);
		newpos[i] = out++;
	}
	s->size = out * size;
	s->sh.sh_size = s->size;
	e->keep[sec] = out > 0;
}

/* the pair's entries (@size bytes each) moved as @newpos says */
static void compact_pair(struct emit *e, size_t pair, size_t size,
			 const size_t *newpos, size_t n)
{
	struct kelf_sec *s = &e->elf.secs[pair];
	size_t i, out = 0;

	for (i = 0; i < n; i++) {
		if (newpos[i] == (size_t)-1)
			continue;
		memmove(s->data + out * size, s->data + i * size, size);
		out++;
	}
	s->size = out * size;
	s->sh.sh_size = s->size;
	e->keep[pair] = out > 0;
}

/* the relocations of the entries kept, at their new offsets */
static void compact_relas(struct emit *e, size_t sec, size_t size,
			  const size_t *newpos)
{
	size_t rs = kelf_rela_sec(&e->elf, sec), nr, j, rout = 0;
	Elf64_Rela *r;

	if (!rs)
		return;
	r = (Elf64_Rela *)e->elf.secs[rs].data;
	nr = e->elf.secs[rs].size / sizeof(*r);
	for (j = 0; j < nr; j++) {
		size_t entry = r[j].r_offset / size;

		if (newpos[entry] == (size_t)-1)
			continue;
		r[rout] = r[j];
		r[rout++].r_offset = newpos[entry] * size + r[j].r_offset % size;
	}
	e->elf.secs[rs].size = rout * sizeof(*r);
	e->elf.secs[rs].sh.sh_size = e->elf.secs[rs].size;
}

/* the entries of @sec (and its pair) that are kept; none when no code is */
static int filter_section(struct emit *e, const struct emit_special *sp,
			  size_t sec)
{
	size_t pair = sp->pair ? kelf_find(&e->elf, sp->pair) : 0, size, psize = 0, n;
	size_t *newpos;

	if (!reaches_kept_code(e, sec)) {
		e->keep[sec] = false;
		if (pair)
			e->keep[pair] = false;
		return 0;
	}
	size = emit_entry_size(e, sp, sec);
	if (pair)
		psize = emit_entry_size(e, special_named(sp->pair), pair);
	if (!size || (pair && !psize))
		return -1;
	n = e->elf.secs[sec].size / size;
	if (pair && e->elf.secs[pair].size != n * psize)
		return emit_err(e, "%s and %s do not match", sp->name, sp->pair);
	newpos = xcalloc(n + 1, sizeof(*newpos));
	compact(e, sec, size, newpos);
	if (pair)
		compact_pair(e, pair, psize, newpos, n);
	compact_relas(e, sec, size, newpos);
	free(newpos);
	return 0;
}

/**
 * emit_filter_special() - leave in each special section only the entries
 * of kept code; the sections left empty are dropped
 * @e:		the unit
 *
 * Return: 0, or -1 after a message.
 */
int emit_filter_special(struct emit *e)
{
	const struct emit_special *sp;
	size_t sec;

	for (sp = emit_specials; sp->name; sp++) {
		sec = kelf_find(&e->elf, sp->name);
		if (sec && !sp->follows && filter_section(e, sp, sec))
			return -1;
	}
	return 0;
}
