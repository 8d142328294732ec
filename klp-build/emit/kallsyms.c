// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - where a unit's symbols are in the running vmlinux
 *
 * The target's symbol list is /proc/kallsyms as the image gives it
 * (klp-build/image/: "ADDRESS TYPE NAME", address order; a module's lines
 * have a fourth field and are not read).  A name vmlinux has several of
 * (a static function or variable in several units) is told apart by its
 * rank among them in address order, the sympos of a livepatch relocation
 * and of klpc_func.old_sympos.  Which of them is the unit's: the one whose
 * nearest neighbour of a unique name, before or after it, the unit
 * defines (a unit's code and data are contiguous in vmlinux).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

static void ksyms_add(struct ksyms *ks, unsigned long long addr,
		      const char *name)
{
	if (ks->nr == ks->alloc) {
		ks->alloc = ks->alloc ? 2 * ks->alloc : 65536;
		ks->name = xrealloc(ks->name, ks->alloc * sizeof(*ks->name));
		ks->addr = xrealloc(ks->addr, ks->alloc * sizeof(*ks->addr));
	}
	ks->name[ks->nr] = xstrdup(name);
	ks->addr[ks->nr++] = addr;
}

static const struct ksyms *sort_ks;

/* by name, then address order: a name's entries are adjacent and ranked */
static int by_name(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_ks->name[x], sort_ks->name[y]);

	return c ? c : (x > y) - (x < y);
}

static void ksyms_index(struct ksyms *ks)
{
	size_t i, j, k;

	ks->by_name = xcalloc(ks->nr + 1, sizeof(*ks->by_name));
	ks->count = xcalloc(ks->nr + 1, sizeof(*ks->count));
	for (i = 0; i < ks->nr; i++)
		ks->by_name[i] = i;
	sort_ks = ks;
	qsort(ks->by_name, ks->nr, sizeof(*ks->by_name), by_name);
	for (i = 0; i < ks->nr; i = j) {
		const char *name = ks->name[ks->by_name[i]];

		for (j = i + 1; j < ks->nr &&
		     !strcmp(ks->name[ks->by_name[j]], name); j++)
			;
		for (k = i; k < j; k++)
			ks->count[ks->by_name[k]] = j - i;
	}
}

/**
 * ksyms_read() - read the target's symbols
 * @ks:		filled
 * @path:	the kallsyms file
 *
 * Return: 0, or -1 after a message.
 */
int ksyms_read(struct ksyms *ks, const char *path)
{
	char *line = NULL, name[512], type[8], extra[2];
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "%llx %7s %511s %1s", &addr, type, name, extra) == 3)
			ksyms_add(ks, addr, name);
	free(line);
	fclose(f);
	if (!ks->nr) {
		kelf_err(path, "no vmlinux symbols");
		return -1;
	}
	ksyms_index(ks);
	return 0;
}

void ksyms_free(struct ksyms *ks)
{
	size_t i;

	for (i = 0; i < ks->nr; i++)
		free(ks->name[i]);
	free(ks->name);
	free(ks->addr);
	free(ks->by_name);
	free(ks->count);
	memset(ks, 0, sizeof(*ks));
}

/* the first of @name's entries in by_name, or nr */
static size_t first_of(const struct ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->name[ks->by_name[mid]], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ks->nr && !strcmp(ks->name[ks->by_name[lo]], name))
		return lo;
	return ks->nr;
}

/* is entry @k the unit's: is its nearest uniquely named neighbour? */
static bool is_units(const struct ksyms *ks, size_t k, struct symvers *defined)
{
	size_t j;

	for (j = k; j-- > 0;)
		if (ks->count[j] == 1)
			return symvers_has(defined, ks->name[j]);
	for (j = k + 1; j < ks->nr; j++)
		if (ks->count[j] == 1)
			return symvers_has(defined, ks->name[j]);
	return false;
}

/* the bytes from entry @k to the next higher address, or -1 */
static long long gap_after(const struct ksyms *ks, size_t k)
{
	size_t j;

	for (j = k + 1; j < ks->nr && ks->addr[j] == ks->addr[k]; j++)
		;
	return j < ks->nr ? (long long)(ks->addr[j] - ks->addr[k]) : -1;
}

/**
 * ksyms_place() - where the unit's symbol of a name is in vmlinux
 * @ks:		the target's symbols
 * @name:	the name
 * @defined:	the names the unit (its object before the diff) defines
 * @p:		filled: how many vmlinux has (0: none), the unit's one's
 *		sympos (0 when unique, -1 when which is the unit's cannot be
 *		told) and the bytes to the next symbol (-1 when not told)
 */
void ksyms_place(const struct ksyms *ks, const char *name,
		 struct symvers *defined, struct ksym_place *p)
{
	size_t i = first_of(ks, name), rank, hits = 0;

	p->count = i < ks->nr ? ks->count[ks->by_name[i]] : 0;
	p->pos = -1;
	p->gap = -1;
	for (rank = 1; rank <= p->count; rank++, i++) {
		size_t k = ks->by_name[i];

		if (p->count > 1 && !is_units(ks, k, defined))
			continue;
		hits++;
		p->pos = p->count == 1 ? 0 : (long)rank;
		p->gap = gap_after(ks, k);
	}
	if (hits != 1) {
		p->pos = -1;
		p->gap = -1;
	}
}
