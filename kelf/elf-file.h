/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf-file.h - read, edit and write a relocatable ELF file (a .ko)
 *
 * Shared by the host tools (klpc-convert, klpc-compare, klpc-emit,
 * klpc-kallsyms): the whole file is read into memory, one malloc'd buffer
 * per section, edited there, and written out by libelf, which lays the
 * sections out again.  64-bit little-endian only (the
 * x86_64 kernel), so symbols and relocations are used in place as
 * Elf64_Sym and Elf64_Rela.
 */
#ifndef KLPC_ELF_FILE_H
#define KLPC_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <gelf.h>

struct kelf_sec {
	char *name;
	GElf_Shdr sh;		/* sh_size follows size; sh_offset unused */
	unsigned char *data;	/* size bytes; NULL for SHT_NOBITS */
	size_t size;
	bool drop;		/* left out by kelf_remove_dropped() */
};

struct kelf {
	const char *path;	/* for messages */
	GElf_Ehdr eh;
	struct kelf_sec *secs;	/* secs[0] is the null section */
	size_t nsec;
	size_t symtab;		/* section index, 0 if none */
	size_t strtab;		/* the symbol string table's index */
};

/* Error reporting: "PROG: FILE: message" on stderr (PROG: kelf_prog). */
extern const char *kelf_prog;
void kelf_err(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int kelf_read(struct kelf *k, const char *path);
void kelf_free(struct kelf *k);
int kelf_write(struct kelf *k, const char *path);

size_t kelf_find(const struct kelf *k, const char *name);
size_t kelf_add_sec(struct kelf *k, const char *name, GElf_Word type,
		    GElf_Xword flags, void *data, size_t size);
int kelf_set_data(struct kelf *k, size_t idx, void *data, size_t size);
size_t kelf_str_add(struct kelf *k, size_t strsec, const char *s);

Elf64_Sym *kelf_syms(const struct kelf *k, size_t *nr);
const char *kelf_sym_name(const struct kelf *k, const Elf64_Sym *sym);
bool kelf_is_rela(const struct kelf_sec *s);
size_t kelf_rela_sec(const struct kelf *k, size_t sec);
const Elf64_Rela *kelf_relas_of(const struct kelf *k, size_t sec, size_t *nr);
bool kelf_sec_writable(const struct kelf *k, size_t sec);
long long kelf_rela_target(const struct kelf *k, size_t sec,
			   const Elf64_Rela *r);

int kelf_remove_dropped(struct kelf *k);
int kelf_sort_symbols(struct kelf *k);
int kelf_remove_symbols(struct kelf *k, const bool *remove);

#endif /* KLPC_ELF_FILE_H */
