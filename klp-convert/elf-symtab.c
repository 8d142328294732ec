// SPDX-License-Identifier: GPL-2.0
/*
 * elf-symtab.c - read-only view of a target's symbol table and build ID
 *
 * Same-named local symbols are told apart by their position (sympos, from
 * 1) in the order kallsyms lists them in, which is the order the kernel's
 * klp_find_object_symbol() and klpc count: symbol table order for a
 * module (its kallsyms is its symbol table), address order for vmlinux
 * (scripts/kallsyms sorts by address), so a vmlinux is reordered with
 * telf_sort_by_address().  Only symbols kallsyms would list are kept
 * (defined, not sections or files).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf-file.h"
#include "elf-symtab.h"
#include "util.h"

static void read_build_id(struct telf *t, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + name_off, "GNU", 4) ||
		    nh.n_descsz > TELF_ID_MAX)
			continue;
		memcpy(t->id, (char *)d->d_buf + desc_off, nh.n_descsz);
		t->id_len = nh.n_descsz;
		return;
	}
}

static int read_symtab(struct telf *t, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, nr = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	t->syms = xcalloc(nr, sizeof(*t->syms));
	for (i = 1; d && i < nr; i++) {
		const char *name;

		if (!gelf_getsym(d, i, &sym))
			return -1;
		if (sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
		    GELF_ST_TYPE(sym.st_info) == STT_FILE)
			continue;
		name = elf_strptr(t->e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		t->syms[t->nr].name = name;
		t->syms[t->nr].addr = sym.st_value;
		t->syms[t->nr].size = sym.st_size;
		t->syms[t->nr++].index = i;
	}
	return 0;
}

static int read_sections(struct telf *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(t->e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -1;
		if (sh.sh_type == SHT_NOTE && !t->id_len)
			read_build_id(t, scn);
		if (sh.sh_type == SHT_SYMTAB && !t->syms &&
		    read_symtab(t, scn, &sh))
			return -1;
	}
	return 0;
}

int telf_open(struct telf *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	elf_version(EV_CURRENT);
	t->fd = open(path, O_RDONLY);
	if (t->fd < 0) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	t->e = elf_begin(t->fd, ELF_C_READ_MMAP, NULL);
	if (!t->e || elf_kind(t->e) != ELF_K_ELF) {
		kelf_err(path, "not an ELF file");
		return -1;
	}
	if (read_sections(t)) {
		kelf_err(path, "%s", elf_errmsg(-1));
		return -1;
	}
	return 0;
}

void telf_close(struct telf *t)
{
	if (t->e)
		elf_end(t->e);
	if (t->fd > 0)
		close(t->fd);
	free(t->syms);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

static int by_address(const void *a, const void *b)
{
	const struct telf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* qsort() is not stable: symbol table order among equal addresses */
	return x->index < y->index ? -1 : x->index > y->index;
}

/* vmlinux: kallsyms (so sympos) orders its symbols by address */
void telf_sort_by_address(struct telf *t)
{
	qsort(t->syms, t->nr, sizeof(*t->syms), by_address);
}

size_t telf_count(const struct telf *t, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr; i++)
		n += !strcmp(t->syms[i].name, name);
	return n;
}

/* The @pos'th symbol named @name (pos 0: the only one), or NULL. */
const struct telf_sym *telf_find(const struct telf *t, const char *name,
				 unsigned long pos)
{
	size_t i, n = 0;

	if (!pos && telf_count(t, name) != 1)
		return NULL;
	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, name) && ++n >= pos)
			return &t->syms[i];
	return NULL;
}
