// SPDX-License-Identifier: GPL-2.0
/*
 * symvers.c - the symbols a kernel exports to modules
 *
 * Read from Module.symvers files (the target headers' one, and any extra
 * one: klpc.ko's exports), lines of "CRC<TAB>NAME<TAB>MODULE<TAB>EXPORT
 * <TAB>NAMESPACE".  Only the names matter: a symbol listed there is one the
 * loader resolves by itself; anything else must become a livepatch
 * relocation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf-file.h"
#include "symvers.h"
#include "util.h"

/**
 * symvers_add() - add a name to a set
 * @sv:		the set
 * @name:	the name, copied
 */
void symvers_add(struct symvers *sv, const char *name)
{
	if (sv->nr == sv->alloc) {
		sv->alloc = sv->alloc ? 2 * sv->alloc : 4096;
		sv->names = xrealloc(sv->names, sv->alloc * sizeof(*sv->names));
	}
	sv->names[sv->nr++] = xstrdup(name);
	sv->sorted = false;
}

int symvers_read(struct symvers *sv, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *name, *end;
	size_t cap = 0, lineno = 0;
	int ret = 0;

	if (!f) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		name = strchr(line, '\t');
		end = name ? strchr(name + 1, '\t') : NULL;
		if (strncmp(line, "0x", 2) || !end || end == name + 1) {
			kelf_err(path, "line %zu: not a Module.symvers line", lineno);
			ret = -1;
			break;
		}
		*end = '\0';
		symvers_add(sv, name + 1);
	}
	free(line);
	fclose(f);
	return ret;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

bool symvers_has(struct symvers *sv, const char *name)
{
	if (!sv->sorted) {
		qsort(sv->names, sv->nr, sizeof(*sv->names), cmp);
		sv->sorted = true;
	}
	return bsearch(&name, sv->names, sv->nr, sizeof(*sv->names), cmp);
}

void symvers_free(struct symvers *sv)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		free(sv->names[i]);
	free(sv->names);
	memset(sv, 0, sizeof(*sv));
}
