// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - klpc-kallsyms: a kernel's symbols, from its image alone
 *
 *	klpc-kallsyms IMAGE
 *	klpc-kallsyms --tables IMAGE
 *	klpc-kallsyms --vmlinux OUT IMAGE
 *
 * IMAGE is a vmlinuz (a bzImage, as Debian's linux-image packages ship
 * it) or a vmlinux.  Prints the kernel's symbols as /proc/kallsyms shows
 * them to root on that kernel booted with nokaslr, one per line, in the
 * kernel's order (by address: the order sympos counts in):
 *
 *	ffffffff81000000 T _stext
 *
 * klpc build numbers the symbols vmlinux has several of, and checks the
 * sizes of the functions it replaces, with these lines, for a kernel it
 * does not run on: Debian ships no System.map, and only the -dbg
 * package's vmlinux (858 MB) has a symbol table.
 *
 * --tables prints where the kallsyms tables are instead ("NAME ADDRESS
 * FILE-OFFSET SIZE", the offset in the vmlinux, decimal), and --vmlinux
 * writes the vmlinux inside IMAGE to OUT (tests damage copies of it).
 * A file whose tables cannot be found, or do not agree with each other,
 * is refused: exit 1, one line saying why, nothing on stdout.  Usage
 * errors exit 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

static void bad_usage(void)
{
	fputs("usage: klpc-kallsyms [--tables | --vmlinux OUT] VMLINUZ|VMLINUX\n",
	      stderr);
	exit(2);
}

/* table() - one --tables line: the table at .rodata offset @pos */
static void table(const struct kimage *img, const char *name, size_t pos,
		  size_t size)
{
	printf("%s %016" PRIx64 " %zu %zu\n", name, img->ro_addr + pos,
	       img->ro_off + pos, size);
}

static void print_tables(const struct kimage *img, const struct ksyms *k)
{
	size_t n = k->nr;

	table(img, "kallsyms_offsets", k->offsets, 4 * n);
	table(img, "kallsyms_relative_base", k->relative_base, 8);
	table(img, "kallsyms_num_syms", k->num_syms, 4);
	table(img, "kallsyms_names", k->names, k->names_size);
	table(img, "kallsyms_markers", k->markers, 4 * ((n + 255) / 256));
	if (k->seqs)
		table(img, "kallsyms_seqs_of_names", k->seqs, 3 * n);
	table(img, "kallsyms_token_table", k->token_table,
	      k->token_index - k->token_table);
	table(img, "kallsyms_token_index", k->token_index, 2 * KSYMS_TOKENS);
}

/*
 * print_symbols() - the /proc/kallsyms lines; a name the kernel would
 * show empty is left out, as its s_show() does
 */
static void print_symbols(const struct kimage *img, const struct ksyms *k)
{
	char buf[KSYMS_NAME_LEN + 1];
	size_t pos = k->names;
	uint32_t i;

	for (i = 0; i < k->nr; i++) {
		pos = ksyms_expand(img, k, pos, buf);
		if (!buf[0] || !buf[1])
			continue;
		printf("%016" PRIx64 " %c %s\n", ksyms_address(img, k, i),
		       buf[0], buf + 1);
	}
}

int main(int argc, char **argv)
{
	const char *vmlinux = NULL;
	bool tables = false;
	struct kimage img;
	struct ksyms k;

	if (argc == 3 && !strcmp(argv[1], "--tables"))
		tables = true;
	else if (argc == 4 && !strcmp(argv[1], "--vmlinux"))
		vmlinux = argv[2];
	else if (argc != 2 || argv[1][0] == '-')
		bad_usage();
	if (image_load(&img, argv[argc - 1]))
		return 1;
	if (vmlinux)
		return image_write(&img, vmlinux) ? 1 : 0;
	if (ksyms_find(&img, &k))
		return 1;
	if (tables)
		print_tables(&img, &k);
	else
		print_symbols(&img, &k);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error\n", KSYMS_PROG);
		return 1;
	}
	return 0;
}
