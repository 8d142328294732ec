// SPDX-License-Identifier: GPL-2.0
/*
 * elf-file.c - read, edit and write a relocatable ELF file (a .ko)
 *
 * libelf reads the file and, on writing, lays the sections out again from
 * their data: so sections can grow, be added or dropped without any
 * offset bookkeeping here.  What libelf does not know is which fields hold
 * section or symbol indices; kelf_remove_dropped() and
 * kelf_sort_symbols() renumber those.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-file.h"
#include "util.h"

/* the program that prints kelf_err()'s messages */
const char *kelf_prog = "klpc-convert";

void kelf_err(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", kelf_prog, path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int read_sections(struct kelf *k, Elf *e)
{
	size_t shstrndx, i;
	Elf_Scn *scn;

	if (elf_getshdrnum(e, &k->nsec) || elf_getshdrstrndx(e, &shstrndx)) {
		kelf_err(k->path, "no section headers: %s", elf_errmsg(-1));
		return -1;
	}
	k->secs = xcalloc(k->nsec, sizeof(*k->secs));
	for (i = 1; i < k->nsec; i++) {
		struct kelf_sec *s = &k->secs[i];
		const char *name;
		Elf_Data *d;

		scn = elf_getscn(e, i);
		if (!scn || !gelf_getshdr(scn, &s->sh)) {
			kelf_err(k->path, "section %zu: %s", i, elf_errmsg(-1));
			return -1;
		}
		name = elf_strptr(e, shstrndx, s->sh.sh_name);
		s->name = xstrdup(name ? name : "");
		if (s->sh.sh_type == SHT_NOBITS) {
			s->size = s->sh.sh_size;
			continue;
		}
		d = elf_rawdata(scn, NULL);
		s->size = d ? d->d_size : 0;
		s->data = xmalloc(s->size + 1);
		if (s->size)
			memcpy(s->data, d->d_buf, s->size);
		if (s->sh.sh_type == SHT_SYMTAB) {
			if (k->symtab) {
				kelf_err(k->path, "more than one symbol table");
				return -1;
			}
			k->symtab = i;
			k->strtab = s->sh.sh_link;
		}
		if (s->sh.sh_type == SHT_SYMTAB_SHNDX) {
			kelf_err(k->path, "extended section indices are not supported");
			return -1;
		}
	}
	return 0;
}

/* Only what the kernel loads: an x86_64 relocatable object. */
static int check_header(struct kelf *k)
{
	const unsigned char *id = k->eh.e_ident;

	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB ||
	    k->eh.e_type != ET_REL || k->eh.e_machine != EM_X86_64) {
		kelf_err(k->path, "not an x86_64 relocatable ELF file (a .ko)");
		return -1;
	}
	return 0;
}

int kelf_read(struct kelf *k, const char *path)
{
	Elf *e;
	int fd, ret = -1;

	memset(k, 0, sizeof(*k));
	k->path = path;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &k->eh)) {
		kelf_err(path, "not an ELF file");
		goto out;
	}
	if (check_header(k) || read_sections(k, e))
		goto out;
	if (!k->symtab || k->strtab >= k->nsec) {
		kelf_err(path, "no symbol table");
		goto out;
	}
	ret = 0;
out:
	elf_end(e);
	close(fd);
	return ret;
}

void kelf_free(struct kelf *k)
{
	size_t i;

	for (i = 0; i < k->nsec; i++) {
		free(k->secs[i].name);
		free(k->secs[i].data);
	}
	free(k->secs);
	k->secs = NULL;
	k->nsec = 0;
}

size_t kelf_find(const struct kelf *k, const char *name)
{
	size_t i;

	for (i = 1; i < k->nsec; i++)
		if (!k->secs[i].drop && !strcmp(k->secs[i].name, name))
			return i;
	return 0;
}

/* Takes ownership of @data (malloc'd, or NULL for an empty section). */
size_t kelf_add_sec(struct kelf *k, const char *name, GElf_Word type,
		    GElf_Xword flags, void *data, size_t size)
{
	struct kelf_sec *s;

	k->secs = xrealloc(k->secs, (k->nsec + 1) * sizeof(*k->secs));
	s = &k->secs[k->nsec];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->sh.sh_type = type;
	s->sh.sh_flags = flags;
	s->sh.sh_addralign = 8;
	s->data = data;
	s->size = size;
	s->sh.sh_size = size;
	return k->nsec++;
}

int kelf_set_data(struct kelf *k, size_t idx, void *data, size_t size)
{
	free(k->secs[idx].data);
	k->secs[idx].data = data;
	k->secs[idx].size = size;
	k->secs[idx].sh.sh_size = size;
	return 0;
}

/* Append @s to string table @strsec; returns its offset there. */
size_t kelf_str_add(struct kelf *k, size_t strsec, const char *s)
{
	struct kelf_sec *sec = &k->secs[strsec];
	size_t off = sec->size, len = strlen(s) + 1;

	sec->data = xrealloc(sec->data, sec->size + len);
	memcpy(sec->data + off, s, len);
	sec->size += len;
	sec->sh.sh_size = sec->size;
	return off;
}

Elf64_Sym *kelf_syms(const struct kelf *k, size_t *nr)
{
	const struct kelf_sec *s = &k->secs[k->symtab];

	*nr = s->size / sizeof(Elf64_Sym);
	return (Elf64_Sym *)s->data;
}

const char *kelf_sym_name(const struct kelf *k, const Elf64_Sym *sym)
{
	const struct kelf_sec *str = &k->secs[k->strtab];

	if (sym->st_name >= str->size)
		return "";
	return (const char *)str->data + sym->st_name;
}

bool kelf_is_rela(const struct kelf_sec *s)
{
	return s->sh.sh_type == SHT_RELA && !s->drop;
}
