// SPDX-License-Identifier: GPL-2.0
/*
 * callbacks.c - the (un)patch callbacks a unit declares
 *
 * kpatch-macros.h's KPATCH_PRE_PATCH_CALLBACK(fn) and its three siblings
 * leave a struct klpc_callbacks holding fn in a section
 * .klpc.callbacks.KIND: one relocation, to fn.  The function
 * is kept and given a global alias like a patched function, and printed
 * as "callback KIND ALIAS" for the hook to set in the unit's klpc_object;
 * the pointer's section itself is not carried.
 */
#include <string.h>

#include "emit.h"
#include "util.h"

#define CALLBACK_SECTION ".klpc.callbacks."

static const char *const kinds[] = {
	"pre_patch", "post_patch", "pre_unpatch", "post_unpatch",
};

static const char *kind_of(const char *secname)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(secname + strlen(CALLBACK_SECTION), kinds[i]))
			return kinds[i];
	return NULL;
}

/* the function a callback section's one relocation points to, or 0 */
static size_t callback_target(const struct emit *e, size_t sec)
{
	size_t nr, nrel, idx;
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);
	const Elf64_Rela *r = kelf_relas_of(&e->elf, sec, &nrel);

	if (nrel != 1)
		return 0;
	idx = ELF64_R_SYM(r->r_info);
	if (!idx || idx >= nr)
		return 0;
	if (ELF64_ST_TYPE(syms[idx].st_info) == STT_SECTION)
		idx = emit_sym_at(e, syms[idx].st_shndx, r->r_addend);
	if (!idx || ELF64_ST_TYPE(syms[idx].st_info) != STT_FUNC)
		return 0;
	return idx;
}

/**
 * emit_callbacks() - keep the unit's callback functions and mark their kind
 * @e:	the unit
 *
 * Return: 0, or -1 after a message (an unknown kind, two of one kind, a
 * section that does not point to one function).
 */
int emit_callbacks(struct emit *e)
{
	size_t i, fn;

	for (i = 1; i < e->elf.nsec; i++) {
		const char *name = e->elf.secs[i].name;
		const char *kind;

		if (strncmp(name, CALLBACK_SECTION, strlen(CALLBACK_SECTION)))
			continue;
		kind = kind_of(name);
		if (!kind)
			return emit_err(e, "%s: no such callback", name);
		fn = callback_target(e, i);
		if (!fn)
			return emit_err(e, "%s: not one callback (one of each kind per file)",
					name);
		e->callback[fn] = kind;
		if (emit_keep_symbol(e, fn))
			return -1;
	}
	return 0;
}
