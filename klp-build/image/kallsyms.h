/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms.h - a kernel's symbol table read from its image alone
 *
 * A Debian kernel image (vmlinuz) holds a stripped vmlinux: no symbol
 * table, but the compressed one the kernel keeps for /proc/kallsyms
 * (scripts/kallsyms.c writes it into .rodata, kernel/kallsyms.c reads
 * it).  That table has no symbol pointing at it either, so it is found
 * by its shape and every part of it is checked against the others.
 */
#ifndef KLPC_KALLSYMS_H
#define KLPC_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the program's name, for its messages */
#define KSYMS_PROG "klpc-kallsyms"

/**
 * struct kimage - the ELF vmlinux of a kernel image, and its .rodata
 * @path:	the file named on the command line, for messages
 * @data:	the vmlinux (a bzImage's payload, unpacked)
 * @size:	its size
 * @ro:		its .rodata section's bytes (within @data)
 * @ro_size:	their size
 * @ro_addr:	the section's link-time address
 * @ro_off:	its offset in @data
 */
struct kimage {
	const char *path;
	unsigned char *data;
	size_t size;
	const unsigned char *ro;
	size_t ro_size;
	uint64_t ro_addr;
	size_t ro_off;
};

/* no kallsyms_* table, not even the name stream, is near 16M symbols */
#define KSYMS_MAX_SYMS		0x1000000U
/* KSYM_NAME_LEN: no token, no symbol is longer */
#define KSYMS_NAME_LEN		512
#define KSYMS_TOKENS		256

/**
 * struct ksyms - where scripts/kallsyms.c's tables are, in .rodata
 * @nr:			kallsyms_num_syms
 * @num_syms:		the offset in .rodata of kallsyms_num_syms
 * @names:		of kallsyms_names, the compressed names
 * @names_size:		its size
 * @markers:		of kallsyms_markers, every 256th name's offset
 * @seqs:		of kallsyms_seqs_of_names (the names' sorted order),
 *			or 0 when the kernel has none (before 6.2)
 * @token_table:	of kallsyms_token_table, 256 strings
 * @token_index:	of kallsyms_token_index, their 256 offsets
 * @offsets:		of kallsyms_offsets, one s32 per symbol
 * @relative_base:	of kallsyms_relative_base
 * @base:		its value, the lowest address not absolute
 * @absolute_percpu:	offsets >= 0 are absolute addresses (per-CPU
 *			symbols), those < 0 count down from @base
 * @token:		the 256 tokens (pointers into .rodata)
 */
struct ksyms {
	uint32_t nr;
	size_t num_syms;
	size_t names;
	size_t names_size;
	size_t markers;
	size_t seqs;
	size_t token_table;
	size_t token_index;
	size_t offsets;
	size_t relative_base;
	uint64_t base;
	bool absolute_percpu;
	const char *token[KSYMS_TOKENS];
};

int image_load(struct kimage *img, const char *path);
int image_write(const struct kimage *img, const char *path);
int ksyms_find(const struct kimage *img, struct ksyms *k);
uint64_t ksyms_address(const struct kimage *img, const struct ksyms *k,
		       uint32_t i);
size_t ksyms_expand(const struct kimage *img, const struct ksyms *k,
		    size_t pos, char *buf);
void ksyms_err(const struct kimage *img, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline uint16_t get_le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static inline uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)get_le16(p) | (uint32_t)get_le16(p + 2) << 16;
}

static inline uint64_t get_le64(const unsigned char *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

#endif /* KLPC_KALLSYMS_H */
