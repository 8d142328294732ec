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

/*
 * Is @field (a Module.symvers line's MODULE: "vmlinux", or a module's
 * path less ".ko", "arch/x86/kvm/kvm-intel") module @module, named as
 * KBUILD_MODNAME names it ("kvm_intel")?
 */
static bool is_module(const char *field, const char *module)
{
	const char *base = strrchr(field, '/');

	for (base = base ? base + 1 : field; *base && *module; base++, module++)
		if (*base != *module && !(*base == '-' && *module == '_'))
			return false;
	return !*base && !*module;
}

/**
 * symvers_read_module() - the symbols one object exports
 * @sv:		the set, added to
 * @path:	a Module.symvers
 * @module:	"vmlinux", or a module's name; NULL: every object's
 *
 * Return: 0, or -1 after a message.
 */
int symvers_read_module(struct symvers *sv, const char *path,
			const char *module)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *name, *end, *mod;
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
		mod = end + 1;
		mod[strcspn(mod, "\t\n")] = '\0';
		if (!module || is_module(mod, module))
			symvers_add(sv, name + 1);
	}
	free(line);
	fclose(f);
	return ret;
}

/**
 * symvers_read() - the symbols a Module.symvers says are exported
 * @sv:		the set, added to
 * @path:	the file
 *
 * Return: 0, or -1 after a message.
 */
int symvers_read(struct symvers *sv, const char *path)
{
	return symvers_read_module(sv, path, NULL);
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
