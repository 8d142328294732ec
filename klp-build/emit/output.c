// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the cut-down object: kept sections, the kernel's symbols
 * undefined, a global alias for each patched function
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

/*
 * Section @sec holds a function: it is carried code, not a section of
 * code without symbols (.altinstr_replacement), which is carried whole
 * with the replacements of the alternatives of functions left out,
 * never applied in the module.
 */
static bool holds_function(const struct emit *e, size_t sec)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);

	for (i = 1; i < nr; i++)
		if (syms[i].st_shndx == sec &&
		    ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC)
			return true;
	return false;
}

/*
 * A kept relocation (of section @in) against the section symbol of a
 * section left out points to what the symbol covering its target is: the
 * relocation is made against that symbol, which becomes the kernel's.
 * Not into a function's body from carried code: a jump back into the
 * kernel's code (from a cold part whose function is not carried) would
 * run the old function.  The replacement of an alternative of a function
 * left out (in .altinstr_replacement) may point there: it is never
 * applied.
 */
static int retarget(struct emit *e, Elf64_Rela *r, size_t in)
{
	size_t nr, idx = ELF64_R_SYM(r->r_info), at, sec;
	Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	unsigned int type = ELF64_R_TYPE(r->r_info);
	const char *from = e->elf.secs[in].name;
	long long off;

	if (!idx || idx >= nr || ELF64_ST_TYPE(syms[idx].st_info) != STT_SECTION)
		return 0;
	sec = syms[idx].st_shndx;
	if (sec >= e->elf.nsec || e->keep[sec])
		return 0;
	off = kelf_rela_target(&e->elf, in, r);
	at = emit_sym_at(e, sec, off);
	if (!at || e->fate[at] != EMIT_EXTERN)
		return emit_err(e, "%s: a reference to %s+%lld cannot be kept",
				from, e->elf.secs[sec].name, off);
	if (ELF64_ST_TYPE(syms[at].st_info) == STT_FUNC &&
	    off != (long long)syms[at].st_value && holds_function(e, in))
		return emit_err(e, "%s: jumps into the body of %s, which the patch does not carry",
				from, kelf_sym_name(&e->elf, &syms[at]));
	r->r_info = ELF64_R_INFO(at, type);
	r->r_addend -= (long long)syms[at].st_value;
	return 0;
}

static int retarget_all(struct emit *e)
{
	size_t i, j;

	for (i = 1; i < e->elf.nsec; i++) {
		struct kelf_sec *s = &e->elf.secs[i];
		Elf64_Rela *r = (Elf64_Rela *)s->data;

		if (s->sh.sh_type != SHT_RELA || s->sh.sh_info >= e->elf.nsec ||
		    !e->keep[s->sh.sh_info])
			continue;
		for (j = 0; j < s->size / sizeof(*r); j++)
			if (retarget(e, &r[j], s->sh.sh_info))
				return -1;
	}
	return 0;
}

/*
 * The kernel's symbols: undefined and global, under the kernel's name, for
 * the module loader (exported) or klpc-convert (not exported) to resolve.
 */
static void externalize(struct emit *e)
{
	size_t nr, i;
	Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	char **names = xcalloc(nr, sizeof(*names));

	for (i = 1; i < nr; i++)
		if (e->fate[i] == EMIT_EXTERN)
			names[i] = xstrdup(e->kname[i] ? e->kname[i] :
					   kelf_sym_name(&e->elf, &syms[i]));
	for (i = 1; i < nr; i++) {
		size_t name;

		if (!names[i])
			continue;
		name = kelf_str_add(&e->elf, e->elf.strtab, names[i]);
		syms = kelf_syms(&e->elf, &nr);
		syms[i].st_name = name;
		syms[i].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
		syms[i].st_other = 0;
		syms[i].st_shndx = SHN_UNDEF;
		syms[i].st_value = 0;
		syms[i].st_size = 0;
		free(names[i]);
	}
	free(names);
}

/*
 * A diff written for the kernel's own livepatch (or kpatch, which uses
 * it) calls its shadow variable API, klp_shadow_get() and the rest: the
 * calls go to klpc's, which has the same functions and arguments under
 * klpc_ names (include/klpc-compat.h), so that the patch's shadow
 * variables live in klpc, with its patches.
 */
static void klpc_names(struct emit *e)
{
	static const char prefix[] = "klp_shadow_";
	size_t nr, i, name;
	Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	char klpc[256];

	for (i = 1; i < nr; i++) {
		const char *old = kelf_sym_name(&e->elf, &syms[i]);

		if (syms[i].st_shndx != SHN_UNDEF ||
		    strncmp(old, prefix, sizeof(prefix) - 1))
			continue;
		snprintf(klpc, sizeof(klpc), "klpc_%s", old + 4);
		name = kelf_str_add(&e->elf, e->elf.strtab, klpc);
		syms = kelf_syms(&e->elf, &nr);
		syms[i].st_name = name;
	}
}

/*
 * A global alias PREFIX_N for each patched function, which the patch's
 * klpc_func table names as new_func, and for each callback: both are
 * given to the patch (patch_add_func(), patch_add_callback()).
 */
static void add_aliases(struct emit *e, const char *prefix)
{
	size_t nr, i, n = 0, count = 0, *names;
	Elf64_Sym *syms, *out;
	char alias[256];

	kelf_syms(&e->elf, &nr);
	for (i = 1; i < nr; i++)
		count += e->patched[i] || e->callback[i];
	names = xcalloc(count + 1, sizeof(*names));
	for (i = 0; i < count; i++) {
		snprintf(alias, sizeof(alias), "%s_%zu", prefix, i);
		names[i] = kelf_str_add(&e->elf, e->elf.strtab, alias);
	}
	syms = kelf_syms(&e->elf, &nr);
	out = xcalloc(nr + count, sizeof(*out));
	memcpy(out, syms, nr * sizeof(*out));
	for (i = 1; i < nr; i++) {
		Elf64_Sym *a = &out[nr + n];

		if (!e->patched[i] && !e->callback[i])
			continue;
		*a = syms[i];
		a->st_name = names[n];
		a->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		a->st_other = 0;
		snprintf(alias, sizeof(alias), "%s_%zu", prefix, n++);
		if (e->callback[i])
			patch_add_callback(e->patch, e->object, e->callback[i],
					   alias);
		else
			patch_add_func(e->patch, e->object, e->kname[i] ?
				       e->kname[i] : kelf_sym_name(&e->elf, &syms[i]),
				       alias, e->unit);
	}
	kelf_set_data(&e->elf, e->elf.symtab, out, (nr + count) * sizeof(*out));
	free(names);
}

/*
 * Undefined symbols only the left-out code used: modpost and klpc-convert
 * would otherwise take them for the patch's needs.
 */
static int drop_unused_undefined(struct emit *e)
{
	size_t nr, i, j;
	Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	bool *remove = xcalloc(nr, sizeof(*remove));
	int ret;

	for (i = 1; i < nr; i++)
		remove[i] = syms[i].st_shndx == SHN_UNDEF;
	for (i = 1; i < e->elf.nsec; i++) {
		const struct kelf_sec *s = &e->elf.secs[i];
		const Elf64_Rela *r = (const Elf64_Rela *)s->data;

		if (s->sh.sh_type != SHT_RELA)
			continue;
		for (j = 0; j < s->size / sizeof(*r); j++)
			if (ELF64_R_SYM(r[j].r_info) < nr)
				remove[ELF64_R_SYM(r[j].r_info)] = false;
	}
	ret = kelf_remove_symbols(&e->elf, remove);
	free(remove);
	return ret;
}

static bool always_kept(const struct emit *e, size_t i)
{
	const struct kelf_sec *s = &e->elf.secs[i];

	return i == e->elf.symtab || i == e->elf.strtab ||
	       i == e->elf.eh.e_shstrndx || !strcmp(s->name, ".note.GNU-stack");
}

static void drop_unkept(struct emit *e)
{
	size_t i;

	for (i = 1; i < e->elf.nsec; i++) {
		struct kelf_sec *s = &e->elf.secs[i];

		if (always_kept(e, i))
			continue;
		if (s->sh.sh_type == SHT_RELA)
			s->drop = s->sh.sh_info >= e->elf.nsec ||
				  !e->keep[s->sh.sh_info];
		else
			s->drop = !e->keep[i];
	}
}

/**
 * emit_output() - write the cut-down object
 * @e:		the unit, its closure done
 * @prefix:	the aliases' prefix
 * @path:	the file to write
 *
 * Return: 0, or -1 after a message.
 */
int emit_output(struct emit *e, const char *prefix, const char *path)
{
	if (emit_filter_special(e) || retarget_all(e))
		return -1;
	externalize(e);
	klpc_names(e);
	add_aliases(e, prefix);
	drop_unkept(e);
	if (kelf_remove_dropped(&e->elf) || drop_unused_undefined(e))
		return -1;
	return kelf_write(&e->elf, path);
}
