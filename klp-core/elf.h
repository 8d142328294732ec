/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_ELF_H
#define _KLPC_ELF_H

#include <linux/elf.h>
#include <linux/module.h>

/**
 * struct klpc_elf - a patch module's ELF, as the module loader kept it
 * @mod:	the patch module
 * @sechdrs:	its section headers (sh_addr: where each SHF_ALLOC section
 *		was loaded)
 * @shnum:	their number
 * @secstrings:	the section names
 * @secstrings_size: the size of @secstrings
 * @symndx:	the index of the symbol table section
 * @syms:	the symbol table (the module's core_kallsyms copy, which a
 *		livepatch module keeps whole and in order)
 * @nsyms:	its number of entries
 * @strtab:	the names of @syms
 *
 * The loader keeps this only for a module with the "livepatch" modinfo
 * (mod->klp), in mod->klp_info, for as long as the module is loaded.
 */
struct klpc_elf {
	struct module *mod;
	struct elf64_shdr *sechdrs;
	unsigned int shnum;
	const char *secstrings;
	unsigned long secstrings_size;
	unsigned int symndx;
	struct elf64_sym *syms;
	unsigned int nsyms;
	const char *strtab;
};

/**
 * klpc_elf_get() - the kept ELF of a patch module
 * @mod:	the patch module
 * @elf:	filled in
 *
 * Return: false if the loader kept none (no "livepatch" modinfo).
 */
static inline bool klpc_elf_get(struct module *mod, struct klpc_elf *elf)
{
#ifdef CONFIG_LIVEPATCH
	struct klp_modinfo *info = mod->klp_info;

	if (!mod->klp || !info)
		return false;
	elf->mod = mod;
	elf->sechdrs = info->sechdrs;
	elf->shnum = info->hdr.e_shnum;
	elf->secstrings = info->secstrings;
	elf->secstrings_size = info->sechdrs[info->hdr.e_shstrndx].sh_size;
	elf->symndx = info->symndx;
	elf->syms = (struct elf64_sym *)info->sechdrs[info->symndx].sh_addr;
	elf->nsyms = mod->core_kallsyms.num_symtab;
	elf->strtab = mod->core_kallsyms.strtab;
	return true;
#else
	return false;
#endif
}

/* the name of section @i, or "" if its offset is out of the table */
static inline const char *klpc_elf_secname(const struct klpc_elf *elf,
					   unsigned int i)
{
	unsigned long off = elf->sechdrs[i].sh_name;

	return off < elf->secstrings_size ? elf->secstrings + off : "";
}

#endif /* _KLPC_ELF_H */
