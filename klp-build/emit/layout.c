// SPDX-License-Identifier: GPL-2.0
/*
 * layout.c - the target's entry size of each special section
 *
 * Taken from the target's own headers: for each section special.c knows,
 * a probe file holds one array as large as one entry,
 *
 *	const char klpc_layout[sizeof(struct alt_instr)]
 *		__attribute__((section(".klpc_layout..altinstructions")));
 *
 * which Kbuild compiles against the target's headers (klp-build/emit.sh:
 * emit_layout(), make -k: a type the target does not have fails alone,
 * and its section then has no size); the probe sections' sizes are the
 * layout, "NAME SIZE" lines, which --layout reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "util.h"

static struct {
	char **name;
	size_t *size;
	size_t nr;
} layout;

/**
 * emit_read_layout() - read the target's layout
 * @path:	"NAME SIZE" lines; '#' starts a comment line
 *
 * Return: 0, or -1 after a message.
 */
int emit_read_layout(const char *path)
{
	char line[512], name[256];
	unsigned long long size;
	size_t lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%255s %lli", name, (long long *)&size) != 2 ||
		    !size) {
			kelf_err(path, "line %zu: not a \"SECTION SIZE\" line", lineno);
			fclose(f);
			return -1;
		}
		layout.name = xrealloc(layout.name, (layout.nr + 1) * sizeof(char *));
		layout.size = xrealloc(layout.size, (layout.nr + 1) * sizeof(size_t));
		layout.name[layout.nr] = xstrdup(name);
		layout.size[layout.nr++] = size;
	}
	fclose(f);
	return 0;
}

/**
 * emit_layout_size() - the target's entry size of section @name
 * @name:	a special section
 *
 * Return: the size the layout gives, 0 if none.
 */
size_t emit_layout_size(const char *name)
{
	size_t i;

	for (i = 0; i < layout.nr; i++)
		if (!strcmp(layout.name[i], name))
			return layout.size[i];
	return 0;
}

/* DIR/klpc_layout_N.c, the probe of the N-th special section */
static int write_probe(const char *dir, size_t n, const struct emit_special *sp)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/klpc_layout_%zu.c", dir, n);
	f = fopen(path, "w");
	if (!f) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	fprintf(f, "/* klpc-emit --layout-probe: the size of an entry of %s */\n"
		"#include <linux/kernel.h>\n#include <%s>\n\n"
		"const char klpc_layout[sizeof(%s)]\n"
		"\t__attribute__((section(\".klpc_layout.%s\"), used));\n",
		sp->name, sp->header, sp->type, sp->name);
	return fclose(f) ? -1 : 0;
}

/**
 * emit_layout_probe() - write the layout's probe into @dir
 * @dir:	an existing directory, Kbuild's M=
 *
 * DIR/klpc_layout_N.c for each special section, and DIR/Kbuild; prints
 * the objects to make, one a line.
 *
 * Return: 0, or -1 after a message.
 */
int emit_layout_probe(const char *dir)
{
	const struct emit_special *sp;
	char path[4096];
	FILE *kbuild;
	size_t n;

	snprintf(path, sizeof(path), "%s/Kbuild", dir);
	kbuild = fopen(path, "w");
	if (!kbuild) {
		kelf_err(path, "%s", strerror(errno));
		return -1;
	}
	fputs("# klpc-emit --layout-probe: objects, never linked\n", kbuild);
	for (sp = emit_specials, n = 0; sp->name; sp++, n++) {
		if (write_probe(dir, n, sp)) {
			fclose(kbuild);
			return -1;
		}
		fprintf(kbuild, "obj-m += klpc_layout_%zu.o\n", n);
		printf("klpc_layout_%zu.o\n", n);
	}
	return fclose(kbuild) ? -1 : 0;
}
