// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - each unit's patched object cut down to what a live patch
 * carries: the functions the comparison named (changed, copied, new), the
 * new data, the callbacks, and the closure of what they need
 * (closure.c, special.c); written by output.c as OUT_DIR/uN.o_shipped
 * with a global alias klpc_new_uN_M for each replacement and callback,
 * which the patch (patch.h) gathers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

int emit_err(struct emit *e, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "klpc-emit: %s: ", e->elf.path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* the defined function or object named @name, 0 if none */
static size_t find_sym(const struct emit *e, const char *name)
{
	size_t nr, i;
	const Elf64_Sym *syms = kelf_syms(&e->elf, &nr);

	for (i = 1; i < nr; i++) {
		unsigned int type = ELF64_ST_TYPE(syms[i].st_info);

		if ((type == STT_FUNC || type == STT_OBJECT) &&
		    syms[i].st_shndx != SHN_UNDEF &&
		    !strcmp(kelf_sym_name(&e->elf, &syms[i]), name))
			return i;
	}
	return 0;
}

/* the patched symbol whose kernel name (twin) is @kname */
static size_t find_by_kname(const struct emit *e, const char *kname)
{
	size_t i;

	for (i = 1; i < e->nsyms; i++)
		if (e->kname[i] && !strcmp(e->kname[i], kname))
			return i;
	return find_sym(e, kname);
}

static int one_change(struct emit *e, const char *what, const char *name,
		      const char *orig)
{
	size_t idx;

	if (!strcmp(what, "twin")) {
		idx = find_sym(e, name);
		if (idx && orig)
			e->kname[idx] = xstrdup(orig);
		return 0;
	}
	idx = strcmp(what, "changed") ? find_sym(e, name) : find_by_kname(e, name);
	if (!idx)
		return emit_err(e, "%s %s: no such symbol", what, name);
	if (!strcmp(what, "changed"))
		e->patched[idx] = true;
	return emit_keep_symbol(e, idx);
}

/*
 * unit @unit's lines of @ch, twin lines first: "changed" names the
 * kernel's symbol
 */
static int apply_changes(struct emit *e, const struct emit_changes *ch,
			 const char *unit)
{
	size_t pass, i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ch->nr; i++) {
			const struct emit_change *c = &ch->lines[i];

			if (strcmp(c->unit, unit) ||
			    !pass != !strcmp(c->what, "twin"))
				continue;
			if (one_change(e, c->what, c->name, c->orig))
				return -1;
		}
	return 0;
}

static void emit_init(struct emit *e)
{
	kelf_syms(&e->elf, &e->nsyms);
	e->keep = xcalloc(e->elf.nsec, sizeof(*e->keep));
	e->fate = xcalloc(e->nsyms, sizeof(*e->fate));
	e->kname = xcalloc(e->nsyms, sizeof(*e->kname));
	e->patched = xcalloc(e->nsyms, sizeof(*e->patched));
	e->callback = xcalloc(e->nsyms, sizeof(*e->callback));
}

static void emit_free(struct emit *e)
{
	size_t i;

	for (i = 0; i < e->nsyms; i++)
		free(e->kname[i]);
	free(e->kname);
	free(e->fate);
	free(e->patched);
	free(e->callback);
	free(e->keep);
	kelf_free(&e->elf);
}

/* cut unit @unit (the @n-th) into @out */
static int emit_unit(struct patch *p, const struct emit_changes *ch,
		     const char *unit, size_t n, const char *patched,
		     const char *out)
{
	struct emit e = { .patch = p, .unit = n };
	char prefix[32];
	int ret = -1;

	if (kelf_read(&e.elf, patched))
		return -1;
	e.object = emit_unit_object(ch, unit);
	emit_init(&e);
	if (apply_changes(&e, ch, unit) || emit_callbacks(&e))
		goto out;
	do {
		if (emit_closure(&e))
			goto out;
		e.changed = false;
		if (emit_special_sections(&e))
			goto out;
	} while (e.changed);
	snprintf(prefix, sizeof(prefix), "klpc_new_u%zu", n);
	ret = emit_output(&e, prefix, out);
out:
	emit_free(&e);
	return ret;
}

static char *path_in(const char *dir, const char *name)
{
	char *path = xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(path, "%s/%s", dir, name);
	return path;
}

/**
 * emit_units() - cut every unit of @ch and place its names
 * @p:		the patch: gathers the units' functions and callbacks
 * @ch:		klpc-compare's lines for every unit
 * @orig:	the directory of the objects before the diff
 * @patched:	the directory of the objects after it
 * @out:	where uN.o_shipped is written for the N-th unit
 *
 * Return: 0, or -1 after a message.
 */
int emit_units(struct patch *p, const struct emit_changes *ch,
	       const char *orig, const char *patched, const char *out)
{
	const char **units;
	size_t n = emit_unit_names(ch, &units), i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		char name[32], src[4096], *o, *pa, *cut;

		snprintf(name, sizeof(name), "u%zu.o_shipped", i);
		o = path_in(orig, units[i]);
		pa = path_in(patched, units[i]);
		cut = path_in(out, name);
		/* the unit's source, for messages: fs/proc/cmdline.c */
		snprintf(src, sizeof(src), "%.*s.c", (int)strlen(units[i]) - 2,
			 units[i]);
		ret = emit_unit(p, ch, units[i], i, pa, cut) ||
		      place_unit(p, src, emit_unit_object(ch, units[i]), i, o, cut);
		free(o);
		free(pa);
		free(cut);
	}
	free(units);
	return ret ? -1 : 0;
}
