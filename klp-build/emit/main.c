// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - klpc-emit: the patch's objects and the hook's lists, from the
 * units' objects before and after the diff
 *
 *	klpc-emit [OPTIONS] ORIG_DIR PATCHED_DIR CHANGES OUT_DIR
 *
 * CHANGES is klpc-compare's output for every unit, each line prefixed with
 * the object the unit is linked into and the unit ("OBJECT UNIT.o WHAT
 * NAME [ORIG]"); ORIG_DIR/UNIT.o and PATCHED_DIR/UNIT.o are its objects.
 * For the N-th unit (in name order) OUT_DIR/uN.o_shipped is its patched
 * object cut down to what the patch carries (emit.c); then every name the
 * patch's code has of the running kernel is placed once (place.c), and
 * OUT_DIR/klpc-hook.h and OUT_DIR/replaces are written (hook.c).
 *
 * --layout FILE gives the target's entry size of each special section
 * ("NAME SIZE" lines: special.c, layout.c; the sizes no layout gives are
 * only those of the sections' sh_entsize); klpc-emit --layout-probe DIR
 * writes the probe that Kbuild compiles into that file.  The -s files'
 * lines of vmlinux are also the keys a module's jump labels may use
 * (keys.c).
 *
 * Exit 0; 3 when the diff changes no function the kernel calls and
 * declares no callback (nothing to patch); 1 with a message naming the
 * unit and what could not be kept or placed; 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "patch.h"
#include "util.h"

static const struct option options[] = {
	{ "kallsyms", required_argument, NULL, 'k' },
	{ "symvers", required_argument, NULL, 's' },
	{ "kver", required_argument, NULL, 'K' },
	{ "label", required_argument, NULL, 'l' },
	{ "desc", required_argument, NULL, 'd' },
	{ "cve", required_argument, NULL, 'c' },
	{ "no-replace", no_argument, NULL, 'n' },
	{ "layout", required_argument, NULL, 'L' },
	{ "layout-probe", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_usage(FILE *f)
{
	fputs("usage: klpc-emit [OPTIONS] ORIG_DIR PATCHED_DIR CHANGES OUT_DIR\n"
	      "  -k, --kallsyms FILE  the target's symbols (/proc/kallsyms as the image has them)\n"
	      "  -s, --symvers FILE   a Module.symvers: what the kernel (and klpc) exports; repeat\n"
	      "      --kver KVER      the target kernel, for messages\n"
	      "      --label TEXT     what the patch is made from, for the hook's comment\n"
	      "      --desc TEXT      the patch's description\n"
	      "      --cve ID         a CVE the patch fixes; repeat\n"
	      "      --no-replace     stack on the patches before (default: cumulative)\n"
	      "      --layout FILE    the target's special sections' entry sizes (layout.c)\n"
	      "   or: klpc-emit --layout-probe DIR  (the probe that gives them)\n",
	      f);
}

static int parse(int argc, char **argv, struct patch *p)
{
	int c;

	p->replace = true;
	p->kver = "the target";
	while ((c = getopt_long(argc, argv, "k:s:h", options, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (ksyms_read(&p->ksyms, optarg))
				return 1;
			p->have_ksyms = true;
			break;
		case 's':
			if (symvers_read(&p->exports, optarg) ||
			    symvers_read_module(&p->vmlinux_exports, optarg,
						"vmlinux"))
				return 1;
			p->symvers = xrealloc(p->symvers, (p->nsymvers + 1) *
					      sizeof(*p->symvers));
			p->symvers[p->nsymvers++] = optarg;
			break;
		case 'L':
			if (emit_read_layout(optarg))
				return 1;
			break;
		case 'P':
			exit(emit_layout_probe(optarg) ? 1 : 0);
		case 'K':
			p->kver = optarg;
			break;
		case 'l':
			p->label = optarg;
			break;
		case 'd':
			p->desc = optarg;
			break;
		case 'c':
			p->cves = xrealloc(p->cves, (p->ncves + 1) * sizeof(*p->cves));
			p->cves[p->ncves++] = optarg;
			break;
		case 'n':
			p->replace = false;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 4) {
		print_usage(stderr);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct patch p = { 0 };
	struct emit_changes ch = { 0 };
	int ret;

	kelf_prog = "klpc-emit";
	ret = parse(argc, argv, &p);
	if (ret)
		goto out;
	ret = 1;
	if (emit_read_changes(&ch, argv[optind + 2]) ||
	    emit_units(&p, &ch, argv[optind], argv[optind + 1], argv[optind + 3]) ||
	    place_check(&p))
		goto out;
	if (!p.nfuncs && !p.ncbs) {
		ret = 3;
		goto out;
	}
	if (hook_write(&p, argv[optind + 3]))
		goto out;
	ret = 0;
out:
	emit_free_changes(&ch);
	free(p.cves);
	free(p.symvers);
	patch_free(&p);
	return ret;
}
