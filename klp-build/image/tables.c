// SPDX-License-Identifier: GPL-2.0
/*
 * tables.c - scripts/kallsyms.c's tables, found in a stripped vmlinux
 *
 * scripts/kallsyms.c writes, each at an 8-byte aligned label of .rodata:
 *
 *	kallsyms_offsets	an s32 per symbol (CONFIG_KALLSYMS_BASE_RELATIVE)
 *	kallsyms_relative_base	the address they count from
 *	kallsyms_num_syms	a u32, N
 *	kallsyms_names		N names: a length (one byte, or two with the
 *				high bit of the first set), then that many
 *				bytes, each one token's number
 *	kallsyms_markers	a u32 per 256 names: where each 256th starts
 *	kallsyms_seqs_of_names	3 bytes per name (6.2, and 6.1.y since)
 *	kallsyms_token_table	256 NUL-terminated strings
 *	kallsyms_token_index	256 u16: where each one starts
 *
 * and since 6.4 kallsyms_offsets and kallsyms_relative_base (and the
 * seqs) come after the token index instead.  A name expands to its type
 * letter and the symbol's name; the symbols are sorted by address.
 *
 * Nothing points at these tables in a stripped vmlinux, so they are found
 * by their shape, as vmlinux-to-elf does, and taken only when every part
 * agrees with the others: the token index with the strings before it, the
 * names' lengths with the markers and with where the token table starts,
 * the addresses with their order.  What does not agree is refused rather
 * than guessed.
 */
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "util.h"

/* an x86-64 kernel image (text to .rodata) spans less than this */
#define MAX_IMAGE_SPAN		0x40000000ULL

/* align_up() - the first offset at or after @pos whose address is 8-aligned */
static size_t align_up(const struct kimage *img, size_t pos)
{
	return pos + (-(img->ro_addr + pos) & 7);
}

/* align_down() - the last offset at or before @pos whose address is */
static size_t align_down(const struct kimage *img, size_t pos)
{
	return pos - ((img->ro_addr + pos) & 7);
}

/* printable() - the bytes [@s, @e) could be part of a symbol's name */
static bool printable(const unsigned char *ro, size_t s, size_t e)
{
	for (; s < e; s++)
		if (ro[s] <= ' ' || ro[s] > '~')
			return false;
	return true;
}

/**
 * read_index() - 256 u16 at @p that could be kallsyms_token_index
 * @img:	the image
 * @p:		where
 * @idx:	set to them
 *
 * Return: they start at 0 and grow by 2 to KSYMS_NAME_LEN + 1 each (a
 * token of one character or more and its NUL).
 */
static bool read_index(const struct kimage *img, size_t p, uint16_t *idx)
{
	int i;

	idx[0] = get_le16(img->ro + p);
	if (idx[0])
		return false;
	for (i = 1; i < KSYMS_TOKENS; i++) {
		idx[i] = get_le16(img->ro + p + 2 * i);
		if (idx[i] < idx[i - 1] + 2 ||
		    idx[i] > idx[i - 1] + KSYMS_NAME_LEN + 1)
			return false;
	}
	return true;
}

/**
 * tokens_at() - whether kallsyms_token_table is at @t, its index at @p
 * @img:	the image
 * @t:		the table's offset
 * @p:		the index's
 * @idx:	the index
 *
 * Return: each string of the table is printable and ends exactly where
 * the next starts, and the last one's NUL is followed by nothing but the
 * zeros that align the index.
 */
static bool tokens_at(const struct kimage *img, size_t t, size_t p,
		      const uint16_t *idx)
{
	const unsigned char *ro = img->ro;
	size_t s, e;
	int i;

	for (i = 0; i < KSYMS_TOKENS - 1; i++) {
		e = t + idx[i + 1] - 1;
		if (ro[e] || !printable(ro, t + idx[i], e))
			return false;
	}
	s = t + idx[KSYMS_TOKENS - 1];
	for (e = s; e < p && ro[e]; e++)
		;
	if (e == s || e == p || !printable(ro, s, e))
		return false;
	if (align_up(img, e + 1) != p)
		return false;
	for (e++; e < p; e++)
		if (ro[e])
			return false;
	return true;
}

/**
 * find_tokens() - kallsyms_token_table and kallsyms_token_index
 * @img:	the image
 * @k:		token_table, token_index and token[] are set
 *
 * Every 8-aligned place of .rodata that could be the index is tried with
 * every table start that would end just before it.
 *
 * Return: 0 when exactly one place fits, else -1 after a message.
 */
static int find_tokens(const struct kimage *img, struct ksyms *k)
{
	uint16_t idx[KSYMS_TOKENS];
	size_t p, t, last;
	int found = 0, i;

	for (p = align_up(img, 0); p + 2 * KSYMS_TOKENS <= img->ro_size;
	     p += 8) {
		if (!read_index(img, p, idx))
			continue;
		last = idx[KSYMS_TOKENS - 1];
		if (p < last + 2)
			continue;
		/* the last token: 1 to KSYMS_NAME_LEN characters, its NUL
		 * and up to 7 zeros to align the index
		 */
		for (t = align_down(img, p - last - 2);
		     t + last + KSYMS_NAME_LEN + 8 >= p; t -= 8) {
			if (tokens_at(img, t, p, idx)) {
				found++;
				k->token_table = t;
				k->token_index = p;
			}
			if (t < 8)
				break;
		}
	}
	if (!found) {
		ksyms_err(img, "no kallsyms token table (256 strings, then their 256 offsets) in .rodata: no CONFIG_KALLSYMS, or a damaged image");
		return -1;
	}
	if (found > 1) {
		ksyms_err(img, "%d places of .rodata look like the kallsyms token table: refusing to guess",
			  found);
		return -1;
	}
	for (i = 0; i < KSYMS_TOKENS; i++)
		k->token[i] = (const char *)img->ro + k->token_table +
			get_le16(img->ro + k->token_index + 2 * i);
	return 0;
}

/**
 * names_end() - where N compressed names starting at @pos end
 * @img:	the image
 * @pos:	the first one's offset
 * @n:		N
 * @limit:	they must end before this offset
 *
 * Return: the offset after the last one, or 0 when a length is 0 (no
 * name is empty) or they run past @limit.
 */
static size_t names_end(const struct kimage *img, size_t pos, uint32_t n,
			size_t limit)
{
	const unsigned char *ro = img->ro;
	size_t len;

	while (n--) {
		if (pos + 2 > limit)
			return 0;
		len = ro[pos++];
		if (len & 0x80)
			len = (len & 0x7f) | ro[pos++] << 7;
		if (!len)
			return 0;
		pos += len;
	}
	return pos > limit ? 0 : pos;
}

/**
 * markers_agree() - kallsyms_markers at @m has each 256th name's offset
 * @img:	the image
 * @k:		names and nr are those of the candidate
 * @m:		the markers' offset
 *
 * Return: it does.
 */
static bool markers_agree(const struct kimage *img, const struct ksyms *k,
			  size_t m)
{
	const unsigned char *ro = img->ro;
	size_t pos = k->names;
	uint32_t i;

	for (i = 0; i < k->nr; i++) {
		if (!(i & 0xff) && get_le32(ro + m + 4 * (i >> 8)) != pos - k->names)
			return false;
		pos += ro[pos] & 0x80 ? 2 + ((ro[pos] & 0x7f) | ro[pos + 1] << 7)
				      : 1 + ro[pos];
	}
	return true;
}

/**
 * seqs_agree() - kallsyms_seqs_of_names at @s is an order of the names
 * @img:	the image
 * @k:		nr is that of the candidate
 * @s:		its offset
 *
 * Return: each of its 3-byte big-endian numbers names a symbol, and none
 * twice.
 */
static bool seqs_agree(const struct kimage *img, const struct ksyms *k,
		       size_t s)
{
	const unsigned char *p = img->ro + s;
	unsigned char *seen = xcalloc(k->nr, 1);
	bool ok = true;
	uint32_t i, seq;

	for (i = 0; ok && i < k->nr; i++, p += 3) {
		seq = (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
		ok = seq < k->nr && !seen[seq];
		if (ok)
			seen[seq] = 1;
	}
	free(seen);
	return ok;
}

/**
 * names_at() - whether kallsyms_num_syms is at @q
 * @img:	the image
 * @k:		token_table is known; nr, num_syms, names, names_size,
 *		markers and seqs are set
 * @q:		the candidate's offset
 *
 * Return: a count at @q, that many names after it, the markers of those
 * names after them, and (when the kernel has them) an order of those
 * names after that, end exactly where the token table starts.
 */
static bool names_at(const struct kimage *img, struct ksyms *k, size_t q)
{
	const unsigned char *ro = img->ro;
	size_t end, m, after, t = k->token_table;
	uint32_t n = get_le32(ro + q);

	/* a u32 count, then the zeros that align the names */
	if (!n || n >= KSYMS_MAX_SYMS || get_le32(ro + q + 4) ||
	    align_up(img, q + 4) != q + 8 || (t - q - 8) / 2 < n)
		return false;
	end = names_end(img, q + 8, n, t);
	if (!end)
		return false;
	m = align_up(img, end);
	after = align_up(img, m + 4 * ((n + 255) / 256));
	k->nr = n;
	k->num_syms = q;
	k->names = q + 8;
	k->names_size = end - k->names;
	k->markers = m;
	if (after == t)
		k->seqs = 0;
	else if (after < t && align_up(img, after + 3 * (size_t)n) == t)
		k->seqs = after;
	else
		return false;
	return markers_agree(img, k, m) && (!k->seqs || seqs_agree(img, k, k->seqs));
}

/**
 * find_names() - kallsyms_num_syms, kallsyms_names, kallsyms_markers and
 * kallsyms_seqs_of_names: the nearest place before the token table where
 * they fit it
 * @img:	the image
 * @k:		token_table is known; names_at()'s fields are set
 *
 * Return: 0, or -1 after a message.
 */
static int find_names(const struct kimage *img, struct ksyms *k)
{
	size_t q;

	for (q = align_down(img, k->token_table); q >= 8;) {
		q -= 8;
		if (names_at(img, k, q))
			return 0;
	}
	ksyms_err(img, "no kallsyms_num_syms, kallsyms_names and kallsyms_markers before the token table agree with it: a damaged image, or a layout klpc does not know");
	return -1;
}

/**
 * offsets_at() - whether kallsyms_offsets is at @off and
 * kallsyms_relative_base at @rb
 * @img:	the image
 * @k:		nr is known; base and absolute_percpu are set
 * @off:	the candidate offsets
 * @rb:		the candidate base
 *
 * With CONFIG_KALLSYMS_ABSOLUTE_PERCPU an offset >= 0 is an absolute
 * address (a per-CPU symbol), one < 0 is base - 1 - offset; without,
 * every one is an unsigned offset from base, which no x86-64 kernel's
 * reaches 2 GB: so a negative offset tells which.
 *
 * Return: the addresses they give are sorted, as scripts/kallsyms.c
 * sorts them, and the lowest not absolute is the base, which is an
 * address in the kernel image, at most 1 GB before .rodata.
 */
static bool offsets_at(const struct kimage *img, struct ksyms *k, size_t off,
		       size_t rb)
{
	uint64_t addr, prev = 0, lowest = UINT64_MAX;
	uint32_t i;

	if (off > img->ro_size || rb + 8 > img->ro_size ||
	    off + 4 * (size_t)k->nr > rb)
		return false;
	k->base = get_le64(img->ro + rb);
	if (k->base > img->ro_addr || img->ro_addr - k->base >= MAX_IMAGE_SPAN)
		return false;
	k->offsets = off;
	k->relative_base = rb;
	k->absolute_percpu = false;
	for (i = 0; i < k->nr; i++)
		if ((int32_t)get_le32(img->ro + off + 4 * i) < 0)
			k->absolute_percpu = true;
	for (i = 0; i < k->nr; i++) {
		addr = ksyms_address(img, k, i);
		if (addr < prev)
			return false;
		if (!k->absolute_percpu ||
		    (int32_t)get_le32(img->ro + off + 4 * i) < 0)
			lowest = addr < lowest ? addr : lowest;
		prev = addr;
	}
	return lowest == k->base;
}

/**
 * find_offsets() - kallsyms_offsets and kallsyms_relative_base: before
 * kallsyms_num_syms (up to 6.3) or after the token index (6.4 on)
 * @img:	the image
 * @k:		nr, num_syms and token_index are known; offsets_at()'s
 *		fields are set
 *
 * Return: 0 when exactly one of the two places fits, else -1 after a
 * message.
 */
static int find_offsets(const struct kimage *img, struct ksyms *k)
{
	size_t size = 4 * (size_t)k->nr, rb, after;
	struct ksyms before = *k;
	bool old = false, new;

	if (k->num_syms >= 8 + size) {
		rb = k->num_syms - 8;
		old = offsets_at(img, &before, align_down(img, rb - size), rb);
	}
	after = align_up(img, k->token_index + 2 * KSYMS_TOKENS);
	new = offsets_at(img, k, after, align_up(img, after + size));
	if (old && new) {
		ksyms_err(img, "kallsyms_offsets fits both before kallsyms_num_syms and after the token index: refusing to guess");
		return -1;
	}
	if (old)
		*k = before;
	if (!old && !new) {
		ksyms_err(img, "no kallsyms_offsets and kallsyms_relative_base next to the tables give sorted addresses: a damaged image, or no CONFIG_KALLSYMS_BASE_RELATIVE");
		return -1;
	}
	return 0;
}

/**
 * ksyms_find() - the kallsyms tables of a vmlinux
 * @img:	the vmlinux
 * @k:		set
 *
 * Return: 0, or -1 after a message.
 */
int ksyms_find(const struct kimage *img, struct ksyms *k)
{
	memset(k, 0, sizeof(*k));
	if (find_tokens(img, k) || find_names(img, k) || find_offsets(img, k))
		return -1;
	return 0;
}

/**
 * ksyms_address() - symbol @i's address, as kernel/kallsyms.c computes
 * it, before KASLR moves the kernel
 * @img:	the vmlinux
 * @k:		its tables
 * @i:		the symbol's number
 *
 * Return: the address.
 */
uint64_t ksyms_address(const struct kimage *img, const struct ksyms *k,
		       uint32_t i)
{
	int32_t off = (int32_t)get_le32(img->ro + k->offsets + 4 * (size_t)i);

	if (!k->absolute_percpu)
		return k->base + (uint32_t)off;
	if (off >= 0)
		return off;
	return k->base - 1 - (int64_t)off;
}

/**
 * ksyms_expand() - a compressed name, expanded
 * @img:	the vmlinux
 * @k:		its tables
 * @pos:	the name's offset in .rodata (find_names() checked that it
 *		and the ones after it fit)
 * @buf:	KSYMS_NAME_LEN + 1 bytes: set to the type letter and the
 *		name, cut as the kernel cuts them
 *
 * Return: the offset of the next name.
 */
size_t ksyms_expand(const struct kimage *img, const struct ksyms *k,
		    size_t pos, char *buf)
{
	const unsigned char *d = img->ro + pos;
	size_t len = *d++, out = 0;
	const char *t;

	if (len & 0x80)
		len = (len & 0x7f) | *d++ << 7;
	pos = d - img->ro + len;
	while (len--)
		for (t = k->token[*d++]; *t && out < KSYMS_NAME_LEN; t++)
			buf[out++] = *t;
	buf[out] = '\0';
	return pos;
}
