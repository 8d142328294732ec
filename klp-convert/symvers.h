/* SPDX-License-Identifier: GPL-2.0 */
/* symvers.h - the symbols a kernel exports to modules (Module.symvers) */
#ifndef KLPC_SYMVERS_H
#define KLPC_SYMVERS_H

#include <stdbool.h>
#include <stddef.h>

struct symvers {
	char **names;		/* sorted once all files are read */
	size_t nr, alloc;
	bool sorted;
};

int symvers_read(struct symvers *sv, const char *path);
bool symvers_has(struct symvers *sv, const char *name);
void symvers_free(struct symvers *sv);

#endif /* KLPC_SYMVERS_H */
