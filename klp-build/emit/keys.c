// SPDX-License-Identifier: GPL-2.0
/*
 * keys.c - the static keys of the jump labels a patch carries
 *
 * A jump label's entry (__jump_table) names its static key.  The loader
 * links the patch module's entries to their keys when the module loads
 * (jump_label_add_module()).  A key of vmlinux is there then: one vmlinux
 * exports is a plain relocation, and the others' livepatch relocations
 * are applied when the patch is enabled, before the code runs.  A key of
 * a module (the unit's own, or another unit's of the module) is given by
 * a livepatch relocation applied only when that module comes, long after
 * the jump labels were set up: the entry names no key, and the branch is
 * never switched or is switched on a wrong key.  Refused, as kpatch and
 * upstream klp-build do; the source can use static_key_enabled() there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

static struct {
	char **names;
	size_t nr;
} vmlinux_exports;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/**
 * emit_read_vmlinux_exports() - the symbols vmlinux exports
 * @path:	a Module.symvers ("CRC NAME MODULE EXPORT NAMESPACE", tabs):
 *		the target's; the lines of other modules are not read
 *
 * Return: 0, or -1 after a message.
 */
int emit_read_vmlinux_exports(const char *path)
{
	char line[1024], *name, *mod, *end;
	FILE *f = fopen(path, "r");

	if (!f) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		name = strchr(line, '\t');
		mod = name ? strchr(name + 1, '\t') : NULL;
		end = mod ? strchr(mod + 1, '\t') : NULL;
		if (!end)
			continue;
		*mod = *end = '\0';
		if (strcmp(mod + 1, "vmlinux"))
			continue;
		vmlinux_exports.names = xrealloc(vmlinux_exports.names,
						 (vmlinux_exports.nr + 1) * sizeof(char *));
		vmlinux_exports.names[vmlinux_exports.nr++] = xstrdup(name + 1);
	}
	fclose(f);
	qsort(vmlinux_exports.names, vmlinux_exports.nr, sizeof(char *), cmp);
	return 0;
}

static bool vmlinux_exports_has(const char *name)
{
	return vmlinux_exports.nr &&
	       bsearch(&name, vmlinux_exports.names, vmlinux_exports.nr,
		       sizeof(char *), cmp);
}

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
		      const Elf64_Rela *key)
{
	size_t nr, func = reached(e, sec, code, 0);
	/* a key's low bits say the branch's default and type */
	size_t k = reached(e, sec, key, 3);
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	const char *kname = k ? kelf_sym_name(&e->elf, &syms[k]) : "(a key no symbol names)";
	const char *fname;

	if (k && syms[k].st_shndx == SHN_UNDEF && vmlinux_exports_has(kname))
		return 0;
	fname = func ? kelf_sym_name(&e->elf, &syms[func]) : "the patched code";
	return emit_err(e, "%s uses static key %s of %s: %s", fname, kname,
			e->object, "a jump label to a module's key cannot be patched");
}

/**
 * emit_jump_keys() - refuse a kept jump label whose key is a module's
 * @e:		the unit; e->object is the module it is linked into
 * @sec:	__jump_table
 * @size:	its entry size
 *
 * The key is the relocation of an entry that does not reach code.  In a
 * unit of vmlinux every key is vmlinux's; in a module's, one that vmlinux
 * does not export is the module's (module code links against exports and
 * itself only), or another module's.
 *
 * Return: 0, or -1 after a message naming the function and the key.
 */
int emit_jump_keys(struct emit *e, size_t sec, size_t size)
{
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
			if (module_key(e, sec, &r[i], &r[j]))
				return -1;
		}
	}
	return 0;
}
