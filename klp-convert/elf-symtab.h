/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf-symtab.h - read-only view of a target's symbol table and build ID
 *
 * For the kernel a patch is built for: its vmlinux (with symbols, from a
 * -dbg package: large, so mapped, not read) or its modules' .ko files.
 */
#ifndef KLPC_ELF_SYMTAB_H
#define KLPC_ELF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

#define TELF_ID_MAX 64

struct telf_sym {
	const char *name;	/* in the mapped file */
	uint64_t addr;
	uint64_t size;
	size_t index;		/* in the symbol table */
};

struct telf {
	char *path;
	int fd;
	Elf *e;
	struct telf_sym *syms;	/* defined symbols, in sympos order */
	size_t nr;
	unsigned char id[TELF_ID_MAX];
	size_t id_len;		/* 0: no GNU build ID note */
};

int telf_open(struct telf *t, const char *path);
void telf_close(struct telf *t);
void telf_sort_by_address(struct telf *t);
size_t telf_count(const struct telf *t, const char *name);
const struct telf_sym *telf_find(const struct telf *t, const char *name,
				 unsigned long pos);

#endif /* KLPC_ELF_SYMTAB_H */
