// SPDX-License-Identifier: GPL-2.0
/*
 * keys.c - the static keys of the jump labels and static calls a patch
 * carries
 *
 * A jump label's entry (__jump_table) and a static call site's
 * (.static_call_sites) name a key.  The loader links the patch module's
 * entries to their keys when the module comes (jump_label_add_module(),
 * static_call_add_module()).  A key of vmlinux is there then: one vmlinux
 * exports is a plain relocation, and the others' livepatch relocations
 * are applied by the loader too (.klp.rela.vmlinux.*).  A key of a
 * module (the unit's own, or another unit's of the module) is given by a
 * livepatch relocation applied only when that module comes, long after
 * the entries were linked: the entry names no key, and the branch is
 * never switched, or the call site is followed to a wrong key.  Refused,
 * as kpatch and upstream klp-build do; the source can use
 * static_key_enabled() or a plain call there.
 */
#include <string.h>

#include "emit.h"
#include "util.h"

/*
 * The function or object relocation @r of @sec reaches (@mask: the bits
 * of the addend that are flags, not offset), or 0.
 */
static size_t reached(const struct emit *e, size_t sec, const Elf64_Rela *r,
		      long long mask)
{
	size_t nr, idx = ELF64_R_SYM(r->r_info);
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);

	if (!idx || idx >= nr)
		return 0;
	if (ELF64_ST_TYPE(syms[idx].st_info) != STT_SECTION)
		return idx;
	return emit_sym_at(e, syms[idx].st_shndx,
			   kelf_rela_target(&e->elf, sec, r) & ~mask);
}

static bool in_code(const struct emit *e, const Elf64_Sym *s)
{
	return s->st_shndx && s->st_shndx < e->elf.nsec &&
	       (e->elf.secs[s->st_shndx].sh.sh_flags & SHF_EXECINSTR);
}

/* refuse the key of entry @code (the relocation of its first field) */
static int module_key(struct emit *e, size_t sec, const Elf64_Rela *code,
		      const Elf64_Rela *key, bool call)
{
	size_t nr, func = reached(e, sec, code, 0);
	/* a key's low bits say the branch's default and type */
	size_t k = reached(e, sec, key, 3);
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	const char *kname = k ? kelf_sym_name(&e->elf, &syms[k]) : "(a key no symbol names)";
	const char *fname;

	/* the patch's own key (a new dynamic debug descriptor), or vmlinux's */
	if (k && (e->fate[k] == EMIT_KEEP ||
		  (syms[k].st_shndx == SHN_UNDEF &&
		   symvers_has(&e->patch->vmlinux_exports, kname))))
		return 0;
	fname = func ? kelf_sym_name(&e->elf, &syms[func]) : "the patched code";
	if (call)
		return emit_err(e, "%s uses static call key %s of %s: %s", fname,
				kname, e->object,
				"a static call through a module's key cannot be patched");
	return emit_err(e, "%s uses static key %s of %s: %s", fname, kname,
			e->object, "a jump label to a module's key cannot be patched");
}

/**
 * emit_module_keys() - refuse a kept jump label or static call site whose
 *			key is a module's
 * @e:		the unit; e->object is the module it is linked into
 * @sec:	__jump_table or .static_call_sites
 * @size:	its entry size
 *
 * The key is the relocation of an entry that does not reach code.  In a
 * unit of vmlinux every key is vmlinux's; in a module's, one that vmlinux
 * does not export is the module's (module code links against exports and
 * itself only), or another module's.
 *
 * Return: 0, or -1 after a message naming the function and the key.
 */
int emit_module_keys(struct emit *e, size_t sec, size_t size)
{
	bool call = !strcmp(e->elf.secs[sec].name, ".static_call_sites");
	size_t nr, nsyms, i, j;
	const Elf64_Rela *r = kelf_relas_of(&e->elf, sec, &nr);
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nsyms);

	if (!e->object || !strcmp(e->object, "vmlinux"))
		return 0;
	for (i = 0; i < nr; i++) {
		size_t entry = r[i].r_offset / size, idx = ELF64_R_SYM(r[i].r_info);

		if (r[i].r_offset % size || !emit_entry_kept(e, sec, size, entry))
			continue;
		for (j = 0; j < nr; j++) {
			size_t at = ELF64_R_SYM(r[j].r_info);

			if (j == i || r[j].r_offset / size != entry ||
			    !at || at >= nsyms || !idx)
				continue;
			if (ELF64_ST_TYPE(syms[at].st_info) == STT_SECTION ?
			    in_code(e, &syms[at]) :
			    ELF64_ST_TYPE(syms[at].st_info) == STT_FUNC)
				continue;
			if (module_key(e, sec, &r[i], &r[j], call))
				return -1;
		}
	}
	return 0;
}
