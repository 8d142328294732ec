// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - checking a patch's build record against the running kernel
 *
 * klpc-convert writes into a patch module what it knew of the kernel it
 * was built for (include/klpc-record.h): the GNU build IDs of vmlinux and
 * of the modules it patches, and the sizes of the functions it replaces.
 * When the patch registers, the record is found through the ELF the
 * loader kept (a converted module has the "livepatch" modinfo), checked
 * strictly, and compared: vmlinux's entries at once, a module's when that
 * module binds.  A mismatch refuses the patch, or the module.  A patch
 * without a record loads, with one line saying it was not checked.
 */

#define pr_fmt(fmt) "klpc: " fmt

#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include <klpc-record.h>

#include "compat.h"
#include "core.h"
#include "elf.h"
#include "kallsyms.h"
#include "record.h"

#define KLPC_VMLINUX	"vmlinux"
/* the ELF note type of a GNU build ID (elf.h of user space) */
#define KLPC_NT_GNU_BUILD_ID	3

/*
 * kallsyms_lookup_size_offset() measures a function up to the next
 * symbol, so it adds the padding that aligns the next function to the
 * function's st_size: GCC aligns x86-64 functions to 16 bytes
 * (.p2align 4), and the last function of a section runs to the section's
 * end.  A function may therefore span up to 15 bytes more than recorded,
 * never less; measured on Debian's 6.1 in the guest (t-86-b), see
 * docs/design.md.
 */
#define KLPC_FUNC_PAD	16

static int klpc_record_error(struct klpc_patch *patch, const char *obj,
			     unsigned int i, const char *why)
{
	klpc_obj_err(patch, obj, "build record entry %u: %s (%pe)\n", i, why,
		     ERR_PTR(-ENOEXEC));
	return -ENOEXEC;
}

/* NUL-terminated inside its array, and not empty if @need */
static bool klpc_record_str_ok(const char *s, size_t len, bool need)
{
	return memchr(s, '\0', len) && (!need || s[0]);
}

static int klpc_check_entry(struct klpc_patch *patch,
			    const struct klpc_record_entry *e, unsigned int i)
{
	const char *obj;

	if (!klpc_record_str_ok(e->object, sizeof(e->object), true))
		return klpc_record_error(patch, "?", i,
					 "object name not NUL-terminated or empty");
	obj = e->object;
	if (!klpc_record_str_ok(e->name, sizeof(e->name), false))
		return klpc_record_error(patch, obj, i,
					 "function name not NUL-terminated");
	switch (e->type) {
	case KLPC_REC_BUILD_ID:
		if (!e->id_len || e->id_len > KLPC_RECORD_ID_LEN)
			return klpc_record_error(patch, obj, i,
						 "build ID length not within 1..64");
		if (e->name[0] || e->sympos || e->size)
			return klpc_record_error(patch, obj, i,
						 "build ID entry with function fields");
		return 0;
	case KLPC_REC_FUNC_SIZE:
		if (!e->name[0] || e->id_len)
			return klpc_record_error(patch, obj, i,
						 "function size entry without a name, or with an ID");
		return 0;
	default:
		return klpc_record_error(patch, obj, i, "unknown entry type");
	}
}

/* Find the record section; Return: 0 and *hdr, NULL if there is none. */
static int klpc_find_record_section(struct klpc_patch *patch,
				    const struct klpc_record_hdr **hdr)
{
	const struct klpc_record_hdr *h;
	struct klpc_elf elf;
	const struct elf64_shdr *s;
	unsigned int i;

	*hdr = NULL;
	if (!klpc_elf_get(patch->mod, &elf)) {
		pr_notice("patch '%s' was not checked against the running kernel: no \"livepatch\" modinfo, hence no build record\n",
			  klpc_name(patch));
		return 0;
	}
	for (i = 1; i < elf.shnum; i++)
		if (!strcmp(klpc_elf_secname(&elf, i), KLPC_RECORD_SECTION))
			break;
	if (i == elf.shnum) {
		pr_notice("patch '%s' was not checked against the running kernel: it has no %s section\n",
			  klpc_name(patch), KLPC_RECORD_SECTION);
		return 0;
	}
	s = &elf.sechdrs[i];
	h = (const struct klpc_record_hdr *)s->sh_addr;
	if (!(s->sh_flags & SHF_ALLOC) || !h || s->sh_size < sizeof(*h))
		return klpc_record_error(patch, "-", 0,
					 "section not allocated or shorter than its header");
	if (h->magic != KLPC_RECORD_MAGIC || h->version != KLPC_RECORD_VERSION)
		return klpc_record_error(patch, "-", 0,
					 "unknown magic or version");
	if (s->sh_size != sizeof(*h) + (size_t)h->nr *
			  sizeof(struct klpc_record_entry))
		return klpc_record_error(patch, "-", 0,
					 "section size does not match its entry count");
	*hdr = h;
	return 0;
}

static const struct klpc_record_entry *
klpc_record_entries(const struct klpc_record_hdr *hdr)
{
	return (const struct klpc_record_entry *)(hdr + 1);
}

/*
 * A GNU build ID note (NT_GNU_BUILD_ID, name "GNU") in [@start, @end),
 * at any 4-byte aligned place: notes are 4-byte aligned.
 */
static const u8 *klpc_find_build_id(const void *start, const void *end,
				    unsigned int *len)
{
	const void *p = PTR_ALIGN(start, 4);
	const struct elf_note *n;

	for (; p + sizeof(*n) + 4 <= end; p += 4) {
		n = p;
		if (n->n_type != KLPC_NT_GNU_BUILD_ID || n->n_namesz != 4 ||
		    memcmp(n + 1, "GNU", 4) || !n->n_descsz ||
		    n->n_descsz > KLPC_RECORD_ID_LEN ||
		    (void *)(n + 1) + 4 + n->n_descsz > end)
			continue;
		*len = n->n_descsz;
		return (const u8 *)(n + 1) + 4;
	}
	return NULL;
}

/*
 * vmlinux's build ID, from its notes (__start_notes..__stop_notes, which
 * kallsyms lists on Debian, KALLSYMS_ALL); else vmlinux_build_id, which
 * holds no length: a SHA-1's 20 bytes (BUILD_ID_SIZE_MAX).
 */
static const u8 *klpc_vmlinux_build_id(unsigned int *len)
{
	unsigned long start = klpc_ksyms.lookup_name("__start_notes");
	unsigned long end = klpc_ksyms.lookup_name("__stop_notes");
	const u8 *id = NULL;

	if (start && end > start)
		id = klpc_find_build_id((void *)start, (void *)end, len);
	if (!id) {
		id = (const u8 *)klpc_ksyms.lookup_name("vmlinux_build_id");
		*len = 20;
	}
	return id;
}

/*
 * A module's build ID.  6.1 keeps none in struct module without
 * CONFIG_STACKTRACE_BUILD_ID (Debian: not set), and the sysfs notes are
 * made only after the COMING notifiers; the note itself is loaded though
 * (SHF_ALLOC, read-only data), between the module's text and the end of
 * its read-only part.
 */
static const u8 *klpc_module_build_id(struct module *mod, unsigned int *len)
{
	const void *start, *end;

	klpc_module_rodata(mod, &start, &end);
	return klpc_find_build_id(start, end, len);
}

static int klpc_check_build_id(struct klpc_patch *patch,
			       const struct klpc_record_entry *e,
			       struct module *mod)
{
	unsigned int len = 0;
	const u8 *id;

	id = mod ? klpc_module_build_id(mod, &len) :
		   klpc_vmlinux_build_id(&len);
	if (!id) {
		klpc_obj_err(patch, e->object,
			     "build ID %*phN recorded, but the running one cannot be found (%pe)\n",
			     e->id_len, e->id, ERR_PTR(-ENOENT));
		return -ENOENT;
	}
	if (len == e->id_len && !memcmp(id, e->id, len))
		return 0;
	klpc_obj_err(patch, e->object,
		     "built for build ID %*phN, running %*phN (%pe)\n",
		     e->id_len, e->id, len, id, ERR_PTR(-EINVAL));
	return -EINVAL;
}

static int klpc_check_func_size(struct klpc_patch *patch,
				const struct klpc_record_entry *e,
				struct module *mod)
{
	unsigned long addr, size, offset;
	int ret;

	ret = klpc_find_symbol(mod ? mod->name : NULL, e->name, e->sympos,
			       &addr);
	if (ret) {
		klpc_obj_err(patch, e->object,
			     "function '%s' (sympos %u) of the build record %s (%pe)\n",
			     e->name, e->sympos,
			     ret == -EINVAL ? "is ambiguous" : "not found",
			     ERR_PTR(ret));
		return ret;
	}
	if (!klpc_ksyms.lookup_size_offset(addr, &size, &offset))
		size = 0;
	if (size >= e->size && size - e->size < KLPC_FUNC_PAD)
		return 0;
	klpc_obj_err(patch, e->object,
		     "function '%s' was %llu bytes when the patch was built, it spans %lu now (%pe)\n",
		     e->name, (unsigned long long)e->size, size,
		     ERR_PTR(-EINVAL));
	return -EINVAL;
}

/* the entries about @objname ("vmlinux" or the module @mod's name) */
static int klpc_check_entries(struct klpc_patch *patch, const char *objname,
			      struct module *mod)
{
	const struct klpc_record_entry *e;
	unsigned int i;
	int ret = 0;

	if (!patch->record)
		return 0;
	e = klpc_record_entries(patch->record);
	for (i = 0; i < patch->record->nr && !ret; i++, e++) {
		if (strcmp(e->object, objname))
			continue;
		if (e->type == KLPC_REC_BUILD_ID)
			ret = klpc_check_build_id(patch, e, mod);
		else
			ret = klpc_check_func_size(patch, e, mod);
	}
	return ret;
}

/**
 * klpc_record_check_patch() - find, validate and check a patch's record
 * @patch:	the patch, whose module's init is running
 *
 * Sets patch->record and patch->checked.  The vmlinux entries are
 * compared here; a module's when it binds (klpc_record_check_object()).
 *
 * Return: 0, or an error with one message naming what differed.
 */
int klpc_record_check_patch(struct klpc_patch *patch)
{
	const struct klpc_record_hdr *hdr;
	unsigned int i;
	int ret;

	patch->record = NULL;
	patch->checked = false;
	ret = klpc_find_record_section(patch, &hdr);
	if (ret || !hdr)
		return ret;
	for (i = 0; i < hdr->nr; i++) {
		ret = klpc_check_entry(patch, klpc_record_entries(hdr) + i, i);
		if (ret)
			return ret;
	}
	patch->record = hdr;
	ret = klpc_check_entries(patch, KLPC_VMLINUX, NULL);
	if (ret) {
		patch->record = NULL;
		return ret;
	}
	patch->checked = true;
	return 0;
}

/**
 * klpc_record_check_object() - compare a module object's record entries
 * @patch:	the patch
 * @obj:	its object, bound (obj->mod set); vmlinux was checked when
 *		the patch registered
 *
 * Return: 0, or an error with one message naming what differed.
 */
int klpc_record_check_object(struct klpc_patch *patch, struct klpc_object *obj)
{
	if (!klpc_is_module(obj) || !obj->mod)
		return 0;
	return klpc_check_entries(patch, obj->name, obj->mod);
}
