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

/**
 * kelf_rela_sec() - the relocation section of a section
 * @k:		the file
 * @sec:	a section's index
 *
 * Return: the index of the first SHT_RELA section that applies to @sec,
 * or 0 if none does.
 */
size_t kelf_rela_sec(const struct kelf *k, size_t sec)
{
	size_t i;

	for (i = 1; i < k->nsec; i++)
		if (k->secs[i].sh.sh_type == SHT_RELA &&
		    k->secs[i].sh.sh_info == sec)
			return i;
	return 0;
}

/**
 * kelf_relas_of() - the relocations of a section
 * @k:		the file
 * @sec:	a section's index
 * @nr:		set to their number
 *
 * Return: the first of them, or NULL (and *@nr 0) if @sec has none.
 */
const Elf64_Rela *kelf_relas_of(const struct kelf *k, size_t sec, size_t *nr)
{
	size_t rs = kelf_rela_sec(k, sec);

	*nr = rs ? k->secs[rs].size / sizeof(Elf64_Rela) : 0;
	return rs ? (const Elf64_Rela *)k->secs[rs].data : NULL;
}

/**
 * kelf_sec_writable() - is a section data the kernel writes at run time?
 * @k:		the file
 * @sec:	a section's index
 *
 * Writable data (.data, .bss and the like) is state: a patch must use the
 * running kernel's, never a copy.  Read-only data may be copied.
 *
 * Return: whether @sec is SHF_WRITE or SHT_NOBITS.
 */
bool kelf_sec_writable(const struct kelf *k, size_t sec)
{
	if (!sec || sec >= k->nsec)
		return false;
	return (k->secs[sec].sh.sh_flags & SHF_WRITE) ||
	       k->secs[sec].sh.sh_type == SHT_NOBITS;
}

/*
 * What a PC-relative relocation in code reaches.  The CPU adds the
 * displacement to the address of the next instruction, so the assembler
 * writes the target less the bytes from the displacement to the end of
 * the instruction: its 4, and those of an immediate that follows it
 * ("cmpb $0x0,flag(%rip)", 80 3d disp32 ib, has the addend flag - 5).
 * Taking every addend for the target less 4 reaches the byte after
 * a one-byte flag, or the flag next to it.
 *
 * Decoded backwards from the displacement, as far as the kernel's code
 * needs: a call, jmp or jcc (rel32, no immediate), or a ModRM byte of a
 * RIP-relative operand (mod 00, r/m 101) just before it, the opcode
 * before that, and the legacy and REX prefixes before the opcode.
 */

/* a two-byte opcode 0f @op that takes a ModRM byte and an 8-bit immediate */
static bool twobyte_ib(unsigned char op)
{
	switch (op) {
	case 0x70:	/* pshufw/pshufd */
	case 0xa4:	/* shld */
	case 0xac:	/* shrd */
	case 0xba:	/* bt, bts, btr, btc with an immediate */
	case 0xc2:	/* cmpps */
	case 0xc4:	/* pinsrw */
	case 0xc6:	/* shufps */
		return true;
	}
	return false;
}

/*
 * A two-byte opcode 0f @op whose ModRM byte may be @modrm: not a jcc, nor
 * an opcode without a memory operand, nor 0f c7's invalid /0 (so that the
 * last byte of the instruction before, when it is 0f, is not taken for
 * a prefix of "c7 05 disp32 id", a mov to memory).
 */
static bool twobyte_modrm(unsigned char op, unsigned char modrm)
{
	if ((op >= 0x80 && op <= 0x8f) || (op >= 0xc8 && op <= 0xcf) ||
	    op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 ||
	    op == 0x09 || op == 0x0b || op == 0x31 || op == 0x34 ||
	    op == 0x35 || op == 0xa0 || op == 0xa1 || op == 0xa2 ||
	    op == 0xa8 || op == 0xa9 || op == 0xaa || op == 0x77)
		return false;
	if (op == 0xc7)
		return (modrm & 0x38) != 0;
	return true;
}

/* the bytes of the 16- or 32-bit immediate of an instruction at @op */
static int imm_z(const unsigned char *d, size_t op)
{
	size_t i = op;

	/* REX.W: a 64-bit operand, whose immediate is 32 bits */
	if (i && (d[i - 1] & 0xf0) == 0x40) {
		if (d[i - 1] & 0x08)
			return 4;
		i--;
	}
	/* the legacy prefixes: an operand-size prefix makes it 16 bits */
	while (i && op - i < 4) {
		unsigned char p = d[i - 1];

		if (p == 0x66)
			return 2;
		if (p != 0xf0 && p != 0xf2 && p != 0xf3 && p != 0x2e &&
		    p != 0x36 && p != 0x3e && p != 0x26 && p != 0x64 &&
		    p != 0x65 && p != 0x67)
			break;
		i--;
	}
	return 4;
}

/* the immediate's bytes after a one-byte opcode at @op with ModRM @modrm */
static int imm_onebyte(const unsigned char *d, size_t op, unsigned char modrm)
{
	switch (d[op]) {
	case 0x6b:	/* imul Gv, Ev, Ib */
	case 0x80:	/* add ... cmp Eb, Ib */
	case 0x83:	/* add ... cmp Ev, Ib */
	case 0xc0:	/* rol ... sar Eb, Ib */
	case 0xc1:	/* rol ... sar Ev, Ib */
	case 0xc6:	/* mov Eb, Ib */
		return 1;
	case 0x69:	/* imul Gv, Ev, Iz */
	case 0x81:	/* add ... cmp Ev, Iz */
	case 0xc7:	/* mov Ev, Iz */
		return imm_z(d, op);
	case 0xf6:	/* test Eb, Ib is /0 (and /1); not, neg, mul, div have none */
		return (modrm & 0x38) <= 0x08 ? 1 : 0;
	case 0xf7:	/* test Ev, Iz */
		return (modrm & 0x38) <= 0x08 ? imm_z(d, op) : 0;
	}
	return 0;
}

/* the bytes after the displacement at @at of code @d (@size bytes) */
static int bytes_after_disp(const unsigned char *d, size_t size, size_t at)
{
	unsigned char modrm;

	if (at < 2 || at + 4 > size)
		return 0;
	/* call, jmp, jcc: the displacement ends the instruction */
	if (d[at - 1] == 0xe8 || d[at - 1] == 0xe9 ||
	    (d[at - 2] == 0x0f && (d[at - 1] & 0xf0) == 0x80))
		return 0;
	modrm = d[at - 1];
	if ((modrm & 0xc7) != 0x05)
		return 0;
	/* three-byte opcodes: 0f 3a xx all take an 8-bit immediate */
	if (at >= 4 && d[at - 4] == 0x0f && (d[at - 3] == 0x3a || d[at - 3] == 0x38))
		return d[at - 3] == 0x3a;
	if (at >= 3 && d[at - 3] == 0x0f && twobyte_modrm(d[at - 2], modrm))
		return twobyte_ib(d[at - 2]);
	return imm_onebyte(d, at - 2, modrm);
}

/**
 * kelf_rela_target() - the offset in its symbol that a relocation reaches
 * @k:		the file
 * @sec:	the section the relocation applies to
 * @r:		the relocation
 *
 * The addend, but for a PC-relative relocation in code, where the addend
 * is the target less the bytes from the displacement to the end of the
 * instruction.  A PC-relative one in data (".long sym - .": the special
 * sections' entries) reaches sym plus the addend.
 *
 * Return: the offset from the relocation's symbol.
 */
long long kelf_rela_target(const struct kelf *k, size_t sec,
			   const Elf64_Rela *r)
{
	unsigned int type = ELF64_R_TYPE(r->r_info);
	const struct kelf_sec *s;

	if (type != R_X86_64_PC32 && type != R_X86_64_PLT32)
		return r->r_addend;
	if (!sec || sec >= k->nsec)
		return r->r_addend + 4;
	s = &k->secs[sec];
	if (!(s->sh.sh_flags & SHF_EXECINSTR))
		return r->r_addend;
	if (!s->data)
		return r->r_addend + 4;
	return r->r_addend + 4 + bytes_after_disp(s->data, s->size, r->r_offset);
}
