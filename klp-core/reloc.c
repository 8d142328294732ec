// SPDX-License-Identifier: GPL-2.0
/*
 * reloc.c - the relocation sections of the kernel's livepatch ELF format
 *
 * A patch module in that format (Documentation/livepatch/
 * module-elf-format.rst) reaches symbols it cannot link against through
 * SHF_RELA_LIVEPATCH sections named .klp.rela.<object>.<section>, whose
 * symbols are SHN_LIVEPATCH and named .klp.sym.<object>.<name>,<sympos>.
 * On 6.1 the module loader applies the .klp.rela.vmlinux.* sections itself
 * (through the built-in livepatch's klp_apply_section_relocs()) and skips
 * the others: those of a module object are klpc's, applied each time the
 * object binds (its module comes, or is loaded when the patch is) and
 * cleared when it unbinds, since 6.1's apply_relocate_add() refuses to
 * write over a non-zero target and the module may come back.
 *
 * apply_relocate_add() checks little: every entry is validated here first,
 * when the patch registers, so that a bad patch fails its own load rather
 * than a module's later, and nothing is ever half applied.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/bitmap.h>
#include <linux/elf.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "core.h"
#include "elf.h"
#include "kallsyms.h"
#include "reloc.h"

#define KLPC_RELA_PREFIX	".klp.rela."
#define KLPC_SYM_PREFIX		".klp.sym."
#define KLPC_VMLINUX		"vmlinux"

/**
 * struct klpc_rela - one decoded entry of a .klp.rela section
 * @rela:	the entry
 * @sym:	its symbol
 * @symname:	the symbol's name, "?" if its index is bad
 * @type:	its relocation type
 * @width:	the bytes it writes (0 for R_X86_64_NONE)
 * @loc:	where it writes
 */
struct klpc_rela {
	const struct elf64_rela *rela;
	struct elf64_sym *sym;
	const char *symname;
	unsigned int type;
	unsigned int width;
	void *loc;
};

/**
 * struct klpc_symref - a parsed .klp.sym.<object>.<name>,<sympos>
 * @obj:	the object
 * @name:	the symbol's name
 * @sympos:	its position, 0 if unique
 */
struct klpc_symref {
	char obj[MODULE_NAME_LEN];
	char name[KSYM_NAME_LEN];
	unsigned long sympos;
};

/* the types x86-64's apply_relocate_add() writes, and their widths */
static unsigned int klpc_rela_width(unsigned int type)
{
	switch (type) {
	case R_X86_64_64:
	case R_X86_64_PC64:
		return 8;
	case R_X86_64_32:
	case R_X86_64_32S:
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		return 4;
	default:
		return 0;
	}
}

/*
 * The object a .klp.rela section is for, copied to @obj; false if the
 * name is not .klp.rela.<object>.<section>.
 */
static bool klpc_rela_secobj(const char *secname, char *obj)
{
	const char *o = secname + strlen(KLPC_RELA_PREFIX);
	const char *dot;

	if (!str_has_prefix(secname, KLPC_RELA_PREFIX))
		return false;
	dot = strchr(o, '.');
	if (!dot || dot == o || dot - o >= MODULE_NAME_LEN || !dot[1])
		return false;
	memcpy(obj, o, dot - o);
	obj[dot - o] = '\0';
	return true;
}

/* Parse .klp.sym.<object>.<name>,<sympos>, as upstream's sscanf() does. */
static bool klpc_parse_symref(const char *s, struct klpc_symref *ref)
{
	const char *o = s + strlen(KLPC_SYM_PREFIX);
	const char *dot, *comma;

	if (!str_has_prefix(s, KLPC_SYM_PREFIX))
		return false;
	dot = strchr(o, '.');
	if (!dot || dot == o || dot - o >= MODULE_NAME_LEN)
		return false;
	comma = strchr(dot + 1, ',');
	if (!comma || comma == dot + 1 || comma - dot - 1 >= KSYM_NAME_LEN)
		return false;
	/* digits only: kstrtoul() would also take a sign or a newline */
	if (!comma[1] || strspn(comma + 1, "0123456789") != strlen(comma + 1) ||
	    kstrtoul(comma + 1, 10, &ref->sympos))
		return false;
	memcpy(ref->obj, o, dot - o);
	ref->obj[dot - o] = '\0';
	memcpy(ref->name, dot + 1, comma - dot - 1);
	ref->name[comma - dot - 1] = '\0';
	return true;
}

/*
 * Decode entry @i of section @sec.  Return: NULL, or why the entry is
 * unusable (the section itself was checked by klpc_check_rela_section()).
 */
static const char *klpc_rela_decode(const struct klpc_elf *elf,
				    const struct elf64_shdr *sec, unsigned int i,
				    struct klpc_rela *r)
{
	const struct elf64_shdr *target = &elf->sechdrs[sec->sh_info];
	unsigned long symi;

	r->rela = (const struct elf64_rela *)sec->sh_addr + i;
	r->type = ELF64_R_TYPE(r->rela->r_info);
	r->symname = "?";
	r->loc = NULL;
	symi = ELF64_R_SYM(r->rela->r_info);
	if (!symi || symi >= elf->nsyms)
		return "symbol index out of the symbol table";
	r->sym = &elf->syms[symi];
	r->symname = elf->strtab + r->sym->st_name;
	if (r->sym->st_shndx != SHN_LIVEPATCH)
		return "symbol is not SHN_LIVEPATCH";
	r->width = klpc_rela_width(r->type);
	if (!r->width && r->type != R_X86_64_NONE)
		return "relocation type not supported";
	if (r->rela->r_offset > target->sh_size ||
	    r->width > target->sh_size - r->rela->r_offset)
		return "offset beyond its target section";
	r->loc = (void *)target->sh_addr + r->rela->r_offset;
	return NULL;
}

static int klpc_rela_error(const struct klpc_elf *elf, const char *obj,
			   unsigned int secndx, unsigned int i,
			   const struct klpc_rela *r, const char *why)
{
	klpc_pr_obj(pr_err, elf->mod->name, obj,
		    "symbol '%s': section '%s' relocation %u (type %u, offset %#llx): %s (%pe)\n",
		    r->symname, klpc_elf_secname(elf, secndx), i, r->type,
		    (unsigned long long)r->rela->r_offset, why,
		    ERR_PTR(-ENOEXEC));
	return -ENOEXEC;
}

static int klpc_section_error(const struct klpc_elf *elf, const char *obj,
			      unsigned int secndx, const char *why)
{
	klpc_pr_obj(pr_err, elf->mod->name, obj, "section '%s': %s (%pe)\n",
		    klpc_elf_secname(elf, secndx), why, ERR_PTR(-ENOEXEC));
	return -ENOEXEC;
}

static bool klpc_within_core(struct module *mod, const struct elf64_shdr *s)
{
	return klpc_module_core_has(mod, s->sh_addr, s->sh_size);
}

/*
 * The section, and the one it relocates: klpc writes there after the
 * loader is done, possibly long after the patch's init, so the target must
 * be loaded (SHF_ALLOC) into the patch module's core memory, where it
 * stays until the module goes; init memory is freed after the init.
 */
static int klpc_check_rela_section(const struct klpc_elf *elf,
				   const char *obj, unsigned int secndx)
{
	const struct elf64_shdr *sec = &elf->sechdrs[secndx];
	const struct elf64_shdr *target;
	const char *tname;

	if (sec->sh_type != SHT_RELA || !(sec->sh_flags & SHF_ALLOC) ||
	    sec->sh_size % sizeof(struct elf64_rela) || !klpc_within_core(elf->mod, sec))
		return klpc_section_error(elf, obj, secndx,
					  "not an allocated SHT_RELA section");
	if (sec->sh_info >= elf->shnum || !sec->sh_info)
		return klpc_section_error(elf, obj, secndx,
					  "target section index out of range");
	target = &elf->sechdrs[sec->sh_info];
	tname = klpc_elf_secname(elf, sec->sh_info);
	if (!(target->sh_flags & SHF_ALLOC))
		return klpc_section_error(elf, obj, secndx,
					  "target section is not SHF_ALLOC");
	if (str_has_prefix(tname, ".init") ||
	    !klpc_within_core(elf->mod, target))
		return klpc_section_error(elf, obj, secndx,
					  "target section is init memory, freed after the patch's init");
	return 0;
}

static bool klpc_patch_has_object(struct klpc_patch *patch, const char *name)
{
	struct klpc_object *obj;

	for (obj = patch->objs; klpc_obj_static_valid(obj); obj++)
		if (obj->name && !strcmp(obj->name, name))
			return true;
	return false;
}

/*
 * Every entry of a module object's section: a well-formed SHN_LIVEPATCH
 * symbol of that very object (it binds when that module comes, and
 * another module may not be loaded then; vmlinux is reached through the
 * .klp.rela.vmlinux sections, as upstream requires), a type
 * apply_relocate_add() writes, within the target.
 */
static int klpc_check_module_section(const struct klpc_elf *elf,
				     const char *obj, unsigned int secndx,
				     struct klpc_symref *ref)
{
	const struct elf64_shdr *sec = &elf->sechdrs[secndx];
	unsigned int i, n = sec->sh_size / sizeof(struct elf64_rela);
	struct klpc_rela r;
	const char *why;
	int ret;

	ret = klpc_check_rela_section(elf, obj, secndx);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		why = klpc_rela_decode(elf, sec, i, &r);
		if (!why && !klpc_parse_symref(r.symname, ref))
			why = "malformed .klp.sym name";
		else if (!why && strcmp(ref->obj, obj))
			why = strcmp(ref->obj, KLPC_VMLINUX) ?
			      "symbol of another module" :
			      "vmlinux symbol in a module's section";
		if (why)
			return klpc_rela_error(elf, obj, secndx, i, &r, why);
	}
	return 0;
}

/*
 * The loader applied the vmlinux sections already, resolving their
 * symbols with the built-in livepatch's lookup; what it lets through and
 * klpc must not is a module's symbol there: that module may go, and its
 * address would stay in the patch.  Nor a section it skipped, whose
 * target is out of range or not loaded (the patch's references stay
 * unresolved), nor one klpc cannot read: not loaded into the module's
 * core memory, the copy the loader read is freed before the init runs.
 * A target in init memory is fine: the loader writes it before the init.
 */
static int klpc_check_vmlinux_section(const struct klpc_elf *elf,
				      unsigned int secndx,
				      struct klpc_symref *ref)
{
	const struct elf64_shdr *sec = &elf->sechdrs[secndx];
	unsigned int i, n = sec->sh_size / sizeof(struct elf64_rela);
	struct klpc_rela r;

	if (sec->sh_type != SHT_RELA || !(sec->sh_flags & SHF_ALLOC) ||
	    sec->sh_size % sizeof(struct elf64_rela) || !klpc_within_core(elf->mod, sec))
		return klpc_section_error(elf, KLPC_VMLINUX, secndx,
					  "not an allocated SHT_RELA section");
	if (sec->sh_info >= elf->shnum || !sec->sh_info ||
	    !(elf->sechdrs[sec->sh_info].sh_flags & SHF_ALLOC))
		return klpc_section_error(elf, KLPC_VMLINUX, secndx,
					  "target section out of range or not SHF_ALLOC: not applied by the loader");
	for (i = 0; i < n; i++) {
		if (klpc_rela_decode(elf, sec, i, &r) ||
		    !klpc_parse_symref(r.symname, ref) ||
		    !strcmp(ref->obj, KLPC_VMLINUX))
			continue;
		return klpc_rela_error(elf, KLPC_VMLINUX, secndx, i, &r,
				       "module symbol in a vmlinux section");
	}
	return 0;
}

/*
 * A module without the "livepatch" modinfo keeps no ELF after its load,
 * and the loader let its SHN_LIVEPATCH symbols through unresolved: its
 * module sections would never be applied.  Its full symbol table is still
 * mod->kallsyms while its init runs (the kept copy drops those symbols).
 */
static int klpc_check_plain_module(struct klpc_patch *patch)
{
	struct module *mod = patch->mod;
	struct mod_kallsyms *ks;
	const char *name = NULL;
	unsigned int i;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 1; ks && i < ks->num_symtab; i++) {
		if (ks->symtab[i].st_shndx == SHN_LIVEPATCH) {
			name = ks->strtab + ks->symtab[i].st_name;
			klpc_obj_err(patch, "?",
				     "symbol '%s' is a livepatch symbol, but the module has no \"livepatch\" modinfo: its .klp.rela sections are lost (%pe)\n",
				     name, ERR_PTR(-ENOEXEC));
			break;
		}
	}
	preempt_enable();
	return name ? -ENOEXEC : 0;
}

/**
 * klpc_reloc_check_patch() - validate a patch module's .klp.rela sections
 * @patch:	the patch, whose module's init is running
 *
 * Return: 0, or -ENOEXEC (-ENOMEM) with one message naming the patch, the
 * object and the symbol.
 */
int klpc_reloc_check_patch(struct klpc_patch *patch)
{
	char obj[MODULE_NAME_LEN];
	struct klpc_symref *ref;
	struct klpc_elf elf;
	unsigned int i;
	int ret = 0;

	if (!klpc_elf_get(patch->mod, &elf))
		return klpc_check_plain_module(patch);
	ref = kmalloc(sizeof(*ref), GFP_KERNEL);
	if (!ref) {
		klpc_patch_err(patch,
			       "cannot check its .klp.rela sections (%pe)\n",
			       ERR_PTR(-ENOMEM));
		return -ENOMEM;
	}
	for (i = 1; i < elf.shnum && !ret; i++) {
		if (!(elf.sechdrs[i].sh_flags & SHF_RELA_LIVEPATCH))
			continue;
		if (!klpc_rela_secobj(klpc_elf_secname(&elf, i), obj))
			ret = klpc_section_error(&elf, "?", i,
						 "malformed .klp.rela name");
		else if (!strcmp(obj, KLPC_VMLINUX))
			ret = klpc_check_vmlinux_section(&elf, i, ref);
		else if (!klpc_patch_has_object(patch, obj))
			ret = klpc_section_error(&elf, obj, i,
						 "the patch has no such object");
		else
			ret = klpc_check_module_section(&elf, obj, i, ref);
	}
	kfree(ref);
	return ret;
}

/* the sections of @obj (a module object), one after the other */
static unsigned int klpc_next_section(const struct klpc_elf *elf,
				      const char *objname, unsigned int i)
{
	char obj[MODULE_NAME_LEN];

	for (i++; i < elf->shnum; i++)
		if ((elf->sechdrs[i].sh_flags & SHF_RELA_LIVEPATCH) &&
		    klpc_rela_secobj(klpc_elf_secname(elf, i), obj) &&
		    !strcmp(obj, objname))
			return i;
	return 0;
}

static int klpc_report_unresolved(const struct klpc_elf *elf,
				  const char *obj,
				  const struct klpc_symref *ref,
				  const char *symname, int ret)
{
	unsigned long count = klpc_symbol_count(obj, ref->name);

	if (ret == -EINVAL)
		klpc_pr_obj(pr_err, elf->mod->name, obj,
			    "symbol '%s' is ambiguous (%lu candidates) for '%s': it needs a sympos (%pe)\n",
			    ref->name, count, symname, ERR_PTR(ret));
	else
		klpc_pr_obj(pr_err, elf->mod->name, obj,
			    "symbol '%s' not found (%lu of that name, position %lu wanted) for '%s' (%pe)\n",
			    ref->name, count, ref->sympos, symname,
			    ERR_PTR(ret));
	return ret;
}

/*
 * Give every symbol of the object's sections its address, with the same
 * lookup as the funcs (klpc_find_symbol()), each symbol once.
 */
static int klpc_resolve_section_syms(const struct klpc_elf *elf,
				     const char *objname, unsigned int secndx,
				     unsigned long *done,
				     struct klpc_symref *ref)
{
	const struct elf64_shdr *sec = &elf->sechdrs[secndx];
	unsigned int i, n = sec->sh_size / sizeof(struct elf64_rela);
	unsigned long addr;
	struct klpc_rela r;
	int ret;

	for (i = 0; i < n; i++) {
		if (klpc_rela_decode(elf, sec, i, &r) ||
		    !klpc_parse_symref(r.symname, ref))
			return -ENOEXEC;	/* checked at registration */
		if (__test_and_set_bit(r.sym - elf->syms, done))
			continue;
		ret = klpc_find_symbol(objname, ref->name, ref->sympos, &addr);
		if (ret)
			return klpc_report_unresolved(elf, objname, ref,
						      r.symname, ret);
		r.sym->st_value = addr;
		cond_resched();
	}
	return 0;
}

/* what an entry writes: apply_relocate_add()'s arithmetic */
static u64 klpc_rela_value(const struct klpc_rela *r)
{
	u64 val = r->sym->st_value + r->rela->r_addend;

	if (r->type == R_X86_64_PC32 || r->type == R_X86_64_PLT32 ||
	    r->type == R_X86_64_PC64)
		val -= (u64)r->loc;
	return val;
}

/*
 * apply_relocate_add() checks the overflow of the absolute 32-bit types
 * only after writing, and never that of PC32: check before anything is
 * written, so that a failure leaves nothing behind.
 */
static bool klpc_rela_fits(const struct klpc_rela *r, u64 val)
{
	switch (r->type) {
	case R_X86_64_32:
		return val == (u32)val;
	case R_X86_64_32S:
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		return (s64)val == (s32)val;
	default:
		return true;
	}
}

enum klpc_rela_state {
	KLPC_RELA_CLEAR = 1,	/* zero: to be written */
	KLPC_RELA_DONE = 2,	/* holds what would be written */
	KLPC_RELA_OTHER = 4,	/* anything else */
};

/*
 * What the entries' targets hold: an object bound again (a disabled
 * patch enabled again) finds its entries written already.
 */
static int klpc_section_state(const struct klpc_elf *elf, const char *obj,
			      unsigned int secndx, unsigned int *state)
{
	const struct elf64_shdr *sec = &elf->sechdrs[secndx];
	unsigned int i, n = sec->sh_size / sizeof(struct elf64_rela);
	struct klpc_rela r;
	u64 val, cur;

	for (i = 0; i < n; i++) {
		if (klpc_rela_decode(elf, sec, i, &r))
			return -ENOEXEC;
		if (!r.width)
			continue;
		val = klpc_rela_value(&r);
		if (!klpc_rela_fits(&r, val))
			return klpc_rela_error(elf, obj, secndx, i, &r,
					       "the symbol's address does not fit the relocation");
		cur = 0;
		memcpy(&cur, r.loc, r.width);
		if (!cur)
			*state |= KLPC_RELA_CLEAR;
		else if (!memcmp(&val, r.loc, r.width))
			*state |= KLPC_RELA_DONE;
		else
			*state |= KLPC_RELA_OTHER;
	}
	return 0;
}

static int klpc_write_sections(const struct klpc_elf *elf, const char *obj)
{
	unsigned int i;
	int ret;

	for (i = klpc_next_section(elf, obj, 0); i;
	     i = klpc_next_section(elf, obj, i)) {
		ret = klpc_ksyms.apply_relocate_add(elf->sechdrs, elf->strtab,
						    elf->symndx, i, elf->mod);
		if (ret) {
			klpc_pr_obj(pr_err, elf->mod->name, obj,
				    "section '%s': apply_relocate_add() failed (%pe)\n",
				    klpc_elf_secname(elf, i), ERR_PTR(ret));
			return ret;
		}
	}
	return 0;
}

static int klpc_apply_sections(const struct klpc_elf *elf, const char *obj)
{
	unsigned int i, state = 0;
	unsigned long *done;
	struct klpc_symref *ref;
	int ret = 0;

	done = bitmap_zalloc(elf->nsyms, GFP_KERNEL);
	ref = kmalloc(sizeof(*ref), GFP_KERNEL);
	if (!done || !ref) {
		klpc_pr_obj(pr_err, elf->mod->name, obj,
			    "cannot apply its .klp.rela sections (%pe)\n",
			    ERR_PTR(-ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	for (i = klpc_next_section(elf, obj, 0); i;
	     i = klpc_next_section(elf, obj, i)) {
		ret = klpc_resolve_section_syms(elf, obj, i, done, ref);
		if (!ret)
			ret = klpc_section_state(elf, obj, i, &state);
		if (ret)
			goto out;
	}
	if (state == KLPC_RELA_DONE || !state)
		goto out;
	if (state != KLPC_RELA_CLEAR) {
		klpc_pr_obj(pr_err, elf->mod->name, obj,
			    "relocation targets are neither clear nor applied for this module (%pe)\n",
			    ERR_PTR(-EBUSY));
		ret = -EBUSY;
		goto out;
	}
	ret = klpc_write_sections(elf, obj);
out:
	kfree(ref);
	bitmap_free(done);
	return ret;
}

/**
 * klpc_reloc_apply_object() - apply a module object's .klp.rela sections
 * @patch:	the patch
 * @obj:	its object, bound to its module (obj->mod), none of whose
 *		funcs is patched yet
 *
 * Return: 0, or an error with one message and nothing written.
 */
int klpc_reloc_apply_object(struct klpc_patch *patch, struct klpc_object *obj)
{
	struct klpc_elf elf;
	int ret;

	lockdep_assert_held(&klpc_mutex);
	if (!klpc_is_module(obj) || !klpc_elf_get(patch->mod, &elf))
		return 0;
	ret = klpc_apply_sections(&elf, obj->name);
	if (ret)
		klpc_reloc_clear_object(patch, obj);
	return ret;
}

/*
 * The loader made the text, the read-only data and, after the init,
 * .data..ro_after_init read-only (module_enable_ro()): those take
 * text_poke(), which writes through a temporary mapping; the writable
 * data (.data, .bss) a plain write.
 */
static bool klpc_readonly_section(const struct elf64_shdr *s)
{
	return !(s->sh_flags & SHF_WRITE) || (s->sh_flags & SHF_RO_AFTER_INIT);
}

/* Zero what the section's entries wrote; Return: whether text_poke() ran. */
static bool klpc_clear_section(const struct klpc_elf *elf,
			       unsigned int secndx)
{
	const struct elf64_shdr *sec = &elf->sechdrs[secndx];
	unsigned int i, n = sec->sh_size / sizeof(struct elf64_rela);
	bool ro = klpc_readonly_section(&elf->sechdrs[sec->sh_info]);
	static const u64 zero;
	bool poked = false;
	struct klpc_rela r;

	lockdep_assert_held(klpc_ksyms.text_mutex);
	for (i = 0; i < n; i++) {
		if (klpc_rela_decode(elf, sec, i, &r) || !r.width ||
		    !memchr_inv(r.loc, 0, r.width))
			continue;
		if (ro) {
			klpc_ksyms.text_poke(r.loc, &zero, r.width);
			poked = true;
		} else {
			memset(r.loc, 0, r.width);
		}
	}
	return poked;
}

/**
 * klpc_reloc_clear_object() - undo klpc_reloc_apply_object()
 * @patch:	the patch
 * @obj:	its object, whose funcs are not patched
 *
 * 6.1's apply_relocate_add() refuses a non-zero target, so what it wrote
 * must go when the module goes, or the module could not come back.
 * Targets already zero are left alone: this may run for an object that
 * was never applied.
 */
void klpc_reloc_clear_object(struct klpc_patch *patch, struct klpc_object *obj)
{
	struct klpc_elf elf;
	bool poked = false;
	unsigned int i;

	if (!klpc_is_module(obj) || !klpc_elf_get(patch->mod, &elf))
		return;
	mutex_lock(klpc_ksyms.text_mutex);
	for (i = klpc_next_section(&elf, obj->name, 0); i;
	     i = klpc_next_section(&elf, obj->name, i))
		poked |= klpc_clear_section(&elf, i);
	if (poked)
		klpc_ksyms.text_poke_sync();
	mutex_unlock(klpc_ksyms.text_mutex);
}
