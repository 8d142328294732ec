// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - the ELF files of the kernel a patch is built for
 *
 * vmlinux comes from --vmlinux (optional: only a -dbg package has one
 * with symbols); a module object from --module FILE or the first
 * OBJECT.ko found under --module-dir.  Each is opened once, on first use.
 * Without a file for an object, nothing about it can be checked: sympos
 * stays as annotated and the record says nothing of it.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

static struct conv *walk_conv;	/* nftw() takes no context pointer */

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	size_t len = strlen(path);

	(void)st;
	(void)ftw;
	if (type == FTW_F && len > 3 && !strcmp(path + len - 3, ".ko")) {
		struct conv *c = walk_conv;

		c->module_paths = xrealloc(c->module_paths,
					   (c->nr_module_paths + 1) * sizeof(char *));
		c->module_paths[c->nr_module_paths++] = xstrdup(path);
	}
	return 0;
}

int target_add_dir(struct conv *c, const char *dir)
{
	walk_conv = c;
	if (nftw(dir, walk_one, 16, FTW_PHYS)) {
		kelf_err(dir, "cannot read the module directory");
		return -1;
	}
	return 0;
}

static const char *module_path(struct conv *c, const char *object)
{
	char obj[KLPC_OBJ_LEN];
	size_t i;

	for (i = 0; i < c->nr_module_paths; i++) {
		const char *base = strrchr(c->module_paths[i], '/');

		base = base ? base + 1 : c->module_paths[i];
		object_name(obj, base, sizeof(obj));
		if (strlen(obj) == strlen(object) + 3 &&
		    !strncmp(obj, object, strlen(object)))
			return c->module_paths[i];
	}
	return NULL;
}

/* *t: the object's ELF file, or NULL if none was given; -1 on a bad file */
int target_get(struct conv *c, const char *object, struct telf **t)
{
	const char *path;
	struct target *tg;
	size_t i;

	*t = NULL;
	for (i = 0; i < c->nr_targets; i++)
		if (!strcmp(c->targets[i].object, object)) {
			*t = &c->targets[i].elf;
			return 0;
		}
	path = strcmp(object, "vmlinux") ? module_path(c, object) : c->vmlinux;
	if (!path)
		return 0;
	c->targets = xrealloc(c->targets, (c->nr_targets + 1) * sizeof(*tg));
	tg = &c->targets[c->nr_targets++];
	tg->object = xstrdup(object);
	if (telf_open(&tg->elf, path))
		return -1;
	if (!tg->elf.syms) {
		kelf_err(path, "no symbol table (for vmlinux: use the -dbg package's, or --vmlinux-id)");
		return -1;
	}
	if (!strcmp(object, "vmlinux"))
		telf_sort_by_address(&tg->elf);
	*t = &tg->elf;
	return 0;
}

/*
 * Check @name's position in @object against the target's symbol table,
 * when there is one: a name it lacks, an ambiguous name without a
 * position, a position past the last same-named symbol are refused.
 */
int target_sympos(struct conv *c, const char *object, const char *name,
		  unsigned long *pos)
{
	struct telf *t;
	size_t n;

	if (target_get(c, object, &t))
		return -1;
	if (!t)
		return 0;
	n = telf_count(t, name);
	if (!n) {
		kelf_err(c->in, "symbol %s: not in %s (%s)", name, object, t->path);
		return -1;
	}
	if (!*pos && n > 1) {
		kelf_err(c->in, "symbol %s: %zu in %s (%s): give its position, KLPC_SYMBOL(%s, \"%s\", 1..%zu)",
			 name, n, object, t->path, name, object, n);
		return -1;
	}
	if (*pos > n) {
		kelf_err(c->in, "symbol %s: position %lu, but %s has %zu (%s)",
			 name, *pos, object, n, t->path);
		return -1;
	}
	return 0;
}

void target_free(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->nr_targets; i++) {
		telf_close(&c->targets[i].elf);
		free(c->targets[i].object);
	}
	free(c->targets);
	for (i = 0; i < c->nr_module_paths; i++)
		free(c->module_paths[i]);
	free(c->module_paths);
}
