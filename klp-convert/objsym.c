// SPDX-License-Identifier: GPL-2.0
/*
 * objsym.c - OBJECT:NAME[,POS] arguments and build ID hex strings
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

/* Module names as the kernel has them: '-' in a file name is '_'. */
void object_name(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i] == '-' ? '_' : src[i];
	dst[i] = '\0';
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* OBJECT:NAME[,POS], with want_size OBJECT:NAME[,POS]=SIZE */
int objsym_parse(struct objsym *os, const char *arg, bool want_size)
{
	char *s = xstrdup(arg), *name, *pos, *size = NULL;
	char obj[KLPC_OBJ_LEN];
	unsigned long v = 0;

	memset(os, 0, sizeof(*os));
	name = strchr(s, ':');
	if (want_size) {
		size = strrchr(s, '=');
		if (!size || parse_ulong(size + 1, &v))
			goto bad;
		*size = '\0';
		os->size = v;
	}
	if (!name || name == s || !name[1] || strlen(s) >= KLPC_OBJ_LEN)
		goto bad;
	*name++ = '\0';
	pos = strchr(name, ',');
	if (pos) {
		*pos++ = '\0';
		if (parse_ulong(pos, &os->pos))
			goto bad;
	}
	if (!*name || strlen(name) >= KLPC_RECORD_NAME_LEN)
		goto bad;
	object_name(obj, s, sizeof(obj));
	os->object = xstrdup(obj);
	os->name = xstrdup(name);
	free(s);
	return 0;
bad:
	fprintf(stderr, "klpc-convert: '%s': expected OBJECT:NAME[,POS]%s\n",
		arg, want_size ? "=SIZE" : "");
	free(s);
	return -1;
}

struct objsym *objsym_add(struct objsym **arr, size_t *nr)
{
	*arr = xrealloc(*arr, (*nr + 1) * sizeof(**arr));
	memset(&(*arr)[*nr], 0, sizeof(**arr));
	return &(*arr)[(*nr)++];
}

struct objsym *objsym_find(struct objsym *arr, size_t nr, const char *object,
			   const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if ((!object || !strcmp(arr[i].object, object)) &&
		    (!name || !strcmp(arr[i].name, name)))
			return &arr[i];
	return NULL;
}

void objsym_free(struct objsym *arr, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(arr[i].object);
		free(arr[i].name);
	}
	free(arr);
}

/* Returns the number of bytes, or -1 if @hex is no even-length hex string. */
int hex_parse(const char *hex, unsigned char *out, size_t max)
{
	size_t len = strlen(hex), i;

	if (!len || len % 2 || len / 2 > max)
		return -1;
	for (i = 0; i < len / 2; i++) {
		unsigned int b;

		if (!isxdigit((unsigned char)hex[2 * i]) ||
		    !isxdigit((unsigned char)hex[2 * i + 1]) ||
		    sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = b;
	}
	return len / 2;
}
