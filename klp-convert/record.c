// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - the build record (include/klpc-record.h) a patch carries
 *
 * What klpc compares with the running kernel before the patch goes live:
 * the GNU build IDs of vmlinux and of the module objects the patch
 * touches, and the size each replaced function has in the target.  Built
 * from the target's files, then overridden by explicit options, which is
 * also how an existing record is rewritten (--rewrite-record).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

static struct klpc_record_entry *find(struct conv *c, __u16 type,
				      const char *object, const char *name,
				      unsigned long pos)
{
	size_t i;

	for (i = 0; i < c->nr_rec; i++) {
		struct klpc_record_entry *e = &c->rec[i];

		if (e->type == type && !strcmp(e->object, object) &&
		    (type == KLPC_REC_BUILD_ID ||
		     (!strcmp(e->name, name) && e->sympos == pos)))
			return e;
	}
	return NULL;
}

/* The entry for (type, object[, name, pos]), added if new. */
static struct klpc_record_entry *entry(struct conv *c, __u16 type,
				       const char *object, const char *name,
				       unsigned long pos)
{
	struct klpc_record_entry *e = find(c, type, object, name, pos);

	if (e)
		return e;
	c->rec = xrealloc(c->rec, (c->nr_rec + 1) * sizeof(*e));
	e = &c->rec[c->nr_rec++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->sympos = pos;
	snprintf(e->object, sizeof(e->object), "%s", object);
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
	return e;
}

static void set_id(struct conv *c, const char *object,
		   const unsigned char *id, size_t len)
{
	struct klpc_record_entry *e = entry(c, KLPC_REC_BUILD_ID, object, NULL, 0);

	e->id_len = len;
	memset(e->id, 0, sizeof(e->id));
	memcpy(e->id, id, len);
}

/* A target file's build ID; a file without one cannot be checked. */
static int add_file_id(struct conv *c, const char *object)
{
	struct telf *t;

	if (target_get(c, object, &t))
		return -1;
	if (!t || find(c, KLPC_REC_BUILD_ID, object, NULL, 0))
		return 0;
	if (!t->id_len) {
		kelf_err(t->path, "no GNU build ID note");
		return -1;
	}
	set_id(c, object, t->id, t->id_len);
	return 0;
}

static int add_func_size(struct conv *c, const struct objsym *f)
{
	const struct telf_sym *s;
	unsigned long pos = f->pos;
	struct telf *t;

	if (target_sympos(c, f->object, f->name, &pos) ||
	    target_get(c, f->object, &t))
		return -1;
	if (!t)
		return 0;
	s = telf_find(t, f->name, f->pos);
	entry(c, KLPC_REC_FUNC_SIZE, f->object, f->name, f->pos)->size = s->size;
	return add_file_id(c, f->object);
}

int record_build(struct conv *c)
{
	size_t i;

	if (c->vmlinux && add_file_id(c, "vmlinux"))
		return -1;
	for (i = 0; i < c->nr_annots; i++)
		if (strcmp(c->annots[i].object, "vmlinux") &&
		    add_file_id(c, c->annots[i].object))
			return -1;
	for (i = 0; i < c->nr_replaces; i++)
		if (add_func_size(c, &c->replaces[i]))
			return -1;
	return 0;
}

int record_apply_options(struct conv *c)
{
	unsigned char id[KLPC_RECORD_ID_LEN];
	size_t i;
	int len;

	for (i = 0; i < c->nr_ids; i++) {
		len = hex_parse(c->ids[i].name, id, sizeof(id));
		if (len < 0) {
			fprintf(stderr, "klpc-convert: %s: build ID '%s' %s (%d bytes at most)\n",
				c->ids[i].object, c->ids[i].name, "is not hex",
				KLPC_RECORD_ID_LEN);
			return -1;
		}
		set_id(c, c->ids[i].object, id, len);
	}
	for (i = 0; i < c->nr_sizes; i++) {
		struct objsym *f = &c->sizes[i];

		entry(c, KLPC_REC_FUNC_SIZE, f->object, f->name, f->pos)->size = f->size;
	}
	if (!c->no_vmlinux_id && !find(c, KLPC_REC_BUILD_ID, "vmlinux", NULL, 0)) {
		kelf_err(c->in, "no vmlinux build ID: %s",
			 "give --vmlinux-id, --vmlinux or --no-vmlinux-id");
		return -1;
	}
	return 0;
}
