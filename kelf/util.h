/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - allocation that cannot fail (it exits) and small helpers */
#ifndef KLPC_UTIL_H
#define KLPC_UTIL_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t size);
void *xcalloc(size_t nr, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

#endif /* KLPC_UTIL_H */
