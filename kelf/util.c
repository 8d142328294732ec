// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - allocation that cannot fail: the tools are short-lived, and
 * out of memory there is nothing better to do than to stop (the output is
 * written to a temporary file, so nothing half-written is left behind).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void *check(void *p)
{
	if (!p) {
		fputs("klpc-convert: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check(malloc(size ? size : 1));
}

void *xcalloc(size_t nr, size_t size)
{
	return check(calloc(nr ? nr : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check(strdup(s));
}
