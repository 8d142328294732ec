/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symvers.h - sets of symbol names: the symbols a kernel exports to
 * modules (Module.symvers), the names an object defines
 */
#ifndef KLPC_SYMVERS_H
#define KLPC_SYMVERS_H

#include <stdbool.h>
#include <stddef.h>

struct symvers {
	char **names;		/* sorted at the first lookup after an add */
	size_t nr, alloc;
	bool sorted;
};

void symvers_add(struct symvers *sv, const char *name);
int symvers_read(struct symvers *sv, const char *path);
int symvers_read_module(struct symvers *sv, const char *path,
			const char *module);
bool symvers_has(struct symvers *sv, const char *name);
void symvers_free(struct symvers *sv);

#endif /* KLPC_SYMVERS_H */
