// SPDX-License-Identifier: GPL-2.0
/*
 * closure.c - what the kept code needs, section by section
 *
 * Every relocation of a kept section reaches a symbol.  A function the
 * comparison did not name is the kernel's (unchanged: the kept code calls
 * the running copy); writable data is the kernel's (the patched code must
 * share its state with the code it does not replace); read-only data,
 * strings and constants are copied, since the kernel's copy may not hold
 * what the patched source says.  Repeated until nothing more is kept.
 */
#include <string.h>

#include "emit.h"

static bool sec_is(const struct emit *e, size_t sec, GElf_Xword flag)
{
	return sec < e->elf.nsec && (e->elf.secs[sec].sh.sh_flags & flag);
}

static void keep_section(struct emit *e, size_t sec)
{
	if (sec && sec < e->elf.nsec && !e->keep[sec]) {
		e->keep[sec] = true;
		e->changed = true;
	}
}

/**
 * emit_sym_at() - the function or object of section @sec that covers @off
 *
 * Return: its symbol index, or 0.
 */
size_t emit_sym_at(const struct emit *e, size_t sec, long long off)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);

	for (i = 1; i < nr; i++) {
		const Elf64_Sym *s = &syms[i];
		unsigned int type = ELF64_ST_TYPE(s->st_info);

		if (s->st_shndx != sec || (type != STT_FUNC && type != STT_OBJECT))
			continue;
		if (off >= (long long)s->st_value &&
		    off < (long long)(s->st_value + (s->st_size ? s->st_size : 1)))
			return i;
	}
	return 0;
}

/*
 * Keep the section of symbol @idx, and with it every function that shares
 * it (__sched, __cold, ...): a section is carried whole.
 */
int emit_keep_symbol(struct emit *e, size_t idx)
{
	size_t nr, i;
	Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	size_t sec = syms[idx].st_shndx;

	if (sec == SHN_UNDEF || sec >= e->elf.nsec)
		return emit_err(e, "%s: not defined in this unit",
				kelf_sym_name(&e->elf, &syms[idx]));
	e->fate[idx] = EMIT_KEEP;
	keep_section(e, sec);
	for (i = 1; i < nr; i++)
		if (syms[i].st_shndx == sec &&
		    ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC)
			e->fate[i] = EMIT_KEEP;
	return 0;
}

/*
 * foo.cold (foo.cold.N with older compilers): the part of foo that gcc
 * moved to .text.unlikely, which foo jumps to and which jumps back into
 * foo's body.  The kernel's would run the old code of the error path and
 * return into the old foo: the new foo carries its own, changed or not.
 */
static bool cold_part(const struct emit *e, const Elf64_Sym *s)
{
	return ELF64_ST_TYPE(s->st_info) == STT_FUNC &&
	       strstr(kelf_sym_name(&e->elf, s), ".cold");
}

/*
 * The flags of DO_ONCE_LITE() (pr_*_once(), WARN_ONCE(), printk_once()),
 * side by side in .data.once: vmlinux has hundreds of __already_done.N,
 * away from their unit's other symbols, so which is the kernel's one of
 * this unit cannot be told (kallsyms.c).  The patch has its own, zero
 * at load: a new site's flag is new anyway, and an existing site reports
 * once more at most.
 */
static bool once_flag(const struct emit *e, const Elf64_Sym *s)
{
	return ELF64_ST_TYPE(s->st_info) == STT_OBJECT &&
	       !strcmp(e->elf.secs[s->st_shndx].name, ".data.once");
}

/* a defined function or object that kept code reaches */
static int reach_symbol(struct emit *e, size_t idx)
{
	size_t nr;
	Elf64_Sym *s = &kelf_syms(&e->elf, &nr)[idx];
	unsigned int type = ELF64_ST_TYPE(s->st_info);

	if (e->fate[idx] != EMIT_DROP || s->st_shndx == SHN_UNDEF ||
	    s->st_shndx >= SHN_LORESERVE)
		return 0;
	if (e->keep[s->st_shndx]) {
		e->fate[idx] = EMIT_KEEP;
		return 0;
	}
	if (cold_part(e, s) || once_flag(e, s))
		return emit_keep_symbol(e, idx);
	if (type == STT_FUNC || (type == STT_OBJECT && kelf_sec_writable(&e->elf, s->st_shndx))) {
		e->fate[idx] = EMIT_EXTERN;
		return 0;
	}
	if (type == STT_OBJECT)
		return emit_keep_symbol(e, idx);
	/* a label gas kept for a string of a mergeable section (.LC6) */
	if (type == STT_NOTYPE && ELF64_ST_BIND(s->st_info) == STB_LOCAL &&
	    !kelf_sec_writable(&e->elf, s->st_shndx) && !sec_is(e, s->st_shndx, SHF_EXECINSTR)) {
		e->fate[idx] = EMIT_KEEP;
		keep_section(e, s->st_shndx);
		return 0;
	}
	return emit_err(e, "%s: a symbol of type %u the patched code needs",
			kelf_sym_name(&e->elf, s), type);
}

/* relocation @r of kept section (or kept special entry) @from */
int emit_reach(struct emit *e, const Elf64_Rela *r, size_t from)
{
	size_t nr, idx = ELF64_R_SYM(r->r_info), sec, at;
	Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	long long off;

	if (!idx || idx >= nr)
		return idx ? emit_err(e, "%s: bad symbol index %zu",
				      e->elf.secs[from].name, idx) : 0;
	if (ELF64_ST_TYPE(syms[idx].st_info) != STT_SECTION)
		return reach_symbol(e, idx);
	sec = syms[idx].st_shndx;
	if (sec >= e->elf.nsec)
		return 0;
	/* strings and constants have no symbols: copied whole */
	if (sec_is(e, sec, SHF_MERGE) ||
	    (!kelf_sec_writable(&e->elf, sec) && !sec_is(e, sec, SHF_EXECINSTR))) {
		keep_section(e, sec);
		return 0;
	}
	off = kelf_rela_target(&e->elf, from, r);
	at = emit_sym_at(e, sec, off);
	if (at)
		return reach_symbol(e, at);
	if (sec_is(e, sec, SHF_EXECINSTR)) {
		keep_section(e, sec);	/* code without a symbol: .altinstr_replacement */
		return 0;
	}
	return emit_err(e, "%s: refers to %s+%lld, which no symbol names",
			e->elf.secs[from].name, e->elf.secs[sec].name, off);
}

/**
 * emit_closure() - keep what the kept sections' relocations reach
 *
 * Special sections are not walked here (special.c keeps their entries
 * one by one).  Return: 0, or -1 after a message.
 */
int emit_closure(struct emit *e)
{
	size_t i, j, rs;

	do {
		e->changed = false;
		for (i = 1; i < e->elf.nsec; i++) {
			const Elf64_Rela *r;

			if (!e->keep[i])
				continue;
			rs = kelf_rela_sec(&e->elf, i);
			if (!rs)
				continue;
			r = (const Elf64_Rela *)e->elf.secs[rs].data;
			for (j = 0; j < e->elf.secs[rs].size / sizeof(*r); j++)
				if (emit_reach(e, &r[j], i))
					return -1;
		}
	} while (e->changed);
	return 0;
}
