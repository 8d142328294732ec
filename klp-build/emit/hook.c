// SPDX-License-Identifier: GPL-2.0
/*
 * hook.c - the patch's tables, for the fixed hook module
 *
 * klp-build/hook/klpc-hook.c is the same source for every patch; what
 * differs is written here into klpc-hook.h, which it includes:
 * - the declarations of the replacements and callbacks (the units');
 * - klpc_funcs_N[], object N's klpc_func table, for each object (vmlinux
 *   and the modules, in name order), and klpc_objs[], with the objects'
 *   callbacks;
 * - a KLPC_SYMBOL() for each unexported symbol the patch's code uses
 *   (place.c), which klpc-convert --annotated follows;
 * - KLPC_HOOK_REPLACE, the description and the CVEs.
 * And into "replaces", the functions klpc-convert records as replaced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "elf-file.h"
#include "util.h"

void patch_add_func(struct patch *p, const char *object, const char *kname,
		    const char *alias, size_t unit)
{
	struct patch_func *f;

	p->funcs = xrealloc(p->funcs, (p->nfuncs + 1) * sizeof(*p->funcs));
	f = &p->funcs[p->nfuncs++];
	f->object = xstrdup(object);
	f->kname = xstrdup(kname);
	f->alias = xstrdup(alias);
	f->pos = 0;
	f->unit = unit;
}

void patch_add_callback(struct patch *p, const char *object,
			const char *kind, const char *alias)
{
	struct patch_callback *c;

	p->cbs = xrealloc(p->cbs, (p->ncbs + 1) * sizeof(*p->cbs));
	c = &p->cbs[p->ncbs++];
	c->object = xstrdup(object);
	c->kind = kind;
	c->alias = xstrdup(alias);
}

void patch_free(struct patch *p)
{
	size_t i;

	for (i = 0; i < p->nfuncs; i++) {
		free(p->funcs[i].object);
		free(p->funcs[i].kname);
		free(p->funcs[i].alias);
	}
	for (i = 0; i < p->ncbs; i++) {
		free(p->cbs[i].object);
		free(p->cbs[i].alias);
	}
	for (i = 0; i < p->nsyms; i++) {
		free(p->syms[i].object);
		free(p->syms[i].name);
		free(p->syms[i].unit);
	}
	free(p->funcs);
	free(p->cbs);
	free(p->syms);
	symvers_free(&p->exports);
	symvers_free(&p->vmlinux_exports);
	symvers_free(&p->defined);
	ksyms_free(&p->ksyms);
}

/* @s as a C string literal (a newline becomes a blank) */
static void c_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* the objects the patch has functions or callbacks for, sorted, once */
static size_t hook_objects(const struct patch *p, const char ***out)
{
	const char **o = xcalloc(p->nfuncs + p->ncbs + 1, sizeof(*o));
	size_t i, n = 0, u = 0;

	for (i = 0; i < p->nfuncs; i++)
		o[n++] = p->funcs[i].object;
	for (i = 0; i < p->ncbs; i++)
		o[n++] = p->cbs[i].object;
	qsort(o, n, sizeof(*o), by_name);
	for (i = 0; i < n; i++)
		if (!u || strcmp(o[u - 1], o[i]))
			o[u++] = o[i];
	*out = o;
	return u;
}

/* object @n's (@obj's) klpc_func table */
static void hook_funcs(FILE *f, const struct patch *p, const char *obj,
		       size_t n)
{
	size_t i;

	fprintf(f, "\nstatic struct klpc_func klpc_funcs_%zu[] = {\n", n);
	for (i = 0; i < p->nfuncs; i++) {
		const struct patch_func *fn = &p->funcs[i];

		if (strcmp(fn->object, obj))
			continue;
		fputs("\t{ .old_name = ", f);
		c_string(f, fn->kname);
		fprintf(f, ", .new_func = %s, .old_sympos = %ld },\n",
			fn->alias, fn->pos);
	}
	fputs("\t{ }\n};\n", f);
}

/* object @n's (@obj's) entry of klpc_objs[] */
static void hook_object(FILE *f, const struct patch *p, const char *obj,
			size_t n)
{
	size_t i;

	fputs("\t{\n\t\t.name = ", f);
	if (strcmp(obj, "vmlinux"))
		c_string(f, obj);
	else
		fputs("NULL", f);
	fprintf(f, ",\n\t\t.funcs = klpc_funcs_%zu,\n", n);
	for (i = 0; i < p->ncbs; i++)
		if (!strcmp(p->cbs[i].object, obj))
			fprintf(f, "\t\t.callbacks.%s = %s,\n", p->cbs[i].kind,
				p->cbs[i].alias);
	fputs("\t},\n", f);
}

static void hook_declarations(FILE *f, const struct patch *p)
{
	size_t i;

	for (i = 0; i < p->nfuncs; i++)
		fprintf(f, "void %s(void);\n", p->funcs[i].alias);
	for (i = 0; i < p->ncbs; i++)
		fprintf(f, "%s %s(struct klpc_object *obj);\n",
			strcmp(p->cbs[i].kind, "pre_patch") ? "void" : "int",
			p->cbs[i].alias);
	for (i = 0; i < p->nsyms; i++) {
		fprintf(f, "KLPC_SYMBOL(%s, ", p->syms[i].name);
		c_string(f, p->syms[i].object);
		fprintf(f, ", %ld);\n", p->syms[i].pos);
	}
}

static void hook_info(FILE *f, const struct patch *p)
{
	const char *desc = p->desc ? p->desc : "";
	size_t i;

	fprintf(f, "\n#define KLPC_HOOK_REPLACE %s\n\n",
		p->replace ? "true" : "false");
	fputs("MODULE_DESCRIPTION(\"klpc build: \" ", f);
	c_string(f, desc);
	fputs(");\nKLPC_PATCH_DESC(", f);
	c_string(f, desc);
	fputs(");\n", f);
	for (i = 0; i < p->ncves; i++) {
		fputs("KLPC_PATCH_CVE(", f);
		c_string(f, p->cves[i]);
		fputs(");\n", f);
	}
}

static void hook_tables(FILE *f, const struct patch *p)
{
	const char **objs;
	size_t i, n = hook_objects(p, &objs);

	fputs("/* made by klpc-emit for klpc-hook.c, from ", f);
	fputs(p->label ? p->label : "a diff", f);
	fputs(" */\n", f);
	hook_declarations(f, p);
	for (i = 0; i < n; i++)
		hook_funcs(f, p, objs[i], i);
	fputs("\nstatic struct klpc_object klpc_objs[] = {\n", f);
	for (i = 0; i < n; i++)
		hook_object(f, p, objs[i], i);
	fputs("\t{ }\n};\n", f);
	hook_info(f, p);
	free(objs);
}

static FILE *open_in(const char *dir, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		kelf_err(path, "%s", strerror(errno));
	return f;
}

/**
 * hook_write() - write the hook's tables and the replaced functions
 * @p:		the patch, placed and checked
 * @dir:	where: klpc-hook.h, and "replaces" (one OBJECT:NAME[,POS] a
 *		line, klpc-convert's -r)
 *
 * Return: 0, or -1 after a message.
 */
int hook_write(const struct patch *p, const char *dir)
{
	char path[4096];
	FILE *f = open_in(dir, "klpc-hook.h", path, sizeof(path));
	size_t i;

	if (!f)
		return -1;
	hook_tables(f, p);
	if (fclose(f)) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	f = open_in(dir, "replaces", path, sizeof(path));
	if (!f)
		return -1;
	for (i = 0; i < p->nfuncs; i++) {
		fprintf(f, "%s:%s", p->funcs[i].object, p->funcs[i].kname);
		if (p->funcs[i].pos)
			fprintf(f, ",%ld", p->funcs[i].pos);
		fputc('\n', f);
	}
	if (fclose(f)) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	return 0;
}
