// SPDX-License-Identifier: GPL-2.0
/*
 * changes.c - klpc-compare's lines for every unit, as compare.sh gathers
 * them: "OBJECT UNIT.o WHAT NAME [ORIG]", WHAT one of changed, copied,
 * new, new-data, twin (klp-build/compare/compare.c)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

static void add_change(struct emit_changes *ch, char **w, int n)
{
	struct emit_change *c;

	ch->lines = xrealloc(ch->lines, (ch->nr + 1) * sizeof(*ch->lines));
	c = &ch->lines[ch->nr++];
	c->object = xstrdup(w[0]);
	c->unit = xstrdup(w[1]);
	c->what = xstrdup(w[2]);
	c->name = xstrdup(w[3]);
	c->orig = n == 5 ? xstrdup(w[4]) : NULL;
}

/**
 * emit_read_changes() - read the CHANGES file
 * @ch:		filled
 * @path:	the file
 *
 * Return: 0, or -1 after a message (a line of fewer than four words).
 */
int emit_read_changes(struct emit_changes *ch, const char *path)
{
	char *line = NULL, *w[5], *save;
	size_t cap = 0, lineno = 0;
	FILE *f = fopen(path, "r");
	int n, ret = 0;

	if (!f) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		for (n = 0; n < 5; n++) {
			w[n] = strtok_r(n ? NULL : line, " \t\n", &save);
			if (!w[n])
				break;
		}
		if (!n)
			continue;
		if (n < 4) {
			kelf_err(path, "line %zu: not OBJECT UNIT WHAT NAME", lineno);
			ret = -1;
			break;
		}
		add_change(ch, w, n);
	}
	free(line);
	fclose(f);
	return ret;
}

void emit_free_changes(struct emit_changes *ch)
{
	size_t i;

	for (i = 0; i < ch->nr; i++) {
		free(ch->lines[i].object);
		free(ch->lines[i].unit);
		free(ch->lines[i].what);
		free(ch->lines[i].name);
		free(ch->lines[i].orig);
	}
	free(ch->lines);
	memset(ch, 0, sizeof(*ch));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/**
 * emit_unit_names() - the units of @ch, in name order, each once
 * @ch:		the lines
 * @out:	set to an array the caller frees (the names are @ch's)
 *
 * Return: their number.  The N-th unit's objects are uN.
 */
size_t emit_unit_names(const struct emit_changes *ch, const char ***out)
{
	const char **u = xcalloc(ch->nr + 1, sizeof(*u));
	size_t i, n = 0;

	for (i = 0; i < ch->nr; i++)
		u[i] = ch->lines[i].unit;
	qsort(u, ch->nr, sizeof(*u), by_name);
	for (i = 0; i < ch->nr; i++)
		if (!n || strcmp(u[n - 1], u[i]))
			u[n++] = u[i];
	*out = u;
	return n;
}

/* the object unit @unit is linked into ("vmlinux" or a module) */
const char *emit_unit_object(const struct emit_changes *ch, const char *unit)
{
	size_t i;

	for (i = 0; i < ch->nr; i++)
		if (!strcmp(ch->lines[i].unit, unit))
			return ch->lines[i].object;
	return "vmlinux";
}
