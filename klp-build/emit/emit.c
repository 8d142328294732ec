// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - klpc-emit: a unit's patched object cut down to what a live
 * patch carries
 *
 *	klpc-emit PATCHED.o CHANGES PREFIX OUT.o
 *
 * CHANGES is klpc-compare's output for the unit (changed, copied, new,
 * new-data and twin lines).  OUT.o holds the kept code and data; for each
 * changed function it prints
 *
 *	func KERNELNAME PREFIX_N
 *
 * the function the running kernel calls, and the global symbol of its
 * replacement, for the patch's klpc_func table; for each callback the
 * unit declares (callbacks.c)
 *
 *	callback KIND PREFIX_N
 *
 * Exit 1 with a message
 * naming the file and what could not be kept.
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

/* twin lines first: "changed" names the kernel's symbol */
static int read_changes(struct emit *e, const char *path)
{
	char line[1024], what[32], name[512], orig[512];
	int pass, n;
	FILE *f;

	for (pass = 0; pass < 2; pass++) {
		f = fopen(path, "r");
		if (!f)
			return emit_err(e, "cannot read %s", path);
		while (fgets(line, sizeof(line), f)) {
			n = sscanf(line, "%31s %511s %511s", what, name, orig);
			if (n < 2 || !pass != !strcmp(what, "twin"))
				continue;
			if (one_change(e, what, name, n == 3 ? orig : NULL)) {
				fclose(f);
				return -1;
			}
		}
		fclose(f);
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

int main(int argc, char **argv)
{
	struct emit e = { 0 };
	int ret = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: klpc-emit PATCHED.o CHANGES PREFIX OUT.o\n");
		return 2;
	}
	kelf_prog = "klpc-emit";
	if (kelf_read(&e.elf, argv[1]))
		return 1;
	emit_init(&e);
	if (read_changes(&e, argv[2]) || emit_callbacks(&e))
		goto out;
	do {
		if (emit_closure(&e))
			goto out;
		e.changed = false;
		if (emit_special_sections(&e))
			goto out;
	} while (e.changed);
	if (emit_output(&e, argv[3], argv[4]))
		goto out;
	ret = 0;
out:
	emit_free(&e);
	return ret;
}
