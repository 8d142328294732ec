// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-convert - make a linked patch module (.ko) a livepatch module
 *
 * See print_usage() and klp-convert/README.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

enum mode { CONVERT, REWRITE, SHOW, BUILD_ID };

enum {
	OPT_VMLINUX = 256, OPT_VMLINUX_ID, OPT_NO_VMLINUX_ID, OPT_MODULE,
	OPT_MODULE_DIR, OPT_MODULE_ID, OPT_FUNC_SIZE, OPT_REWRITE, OPT_SHOW,
	OPT_BUILD_ID, OPT_ANNOTATED,
};

static const struct option options[] = {
	{ "symvers", required_argument, NULL, 's' },
	{ "replaces", required_argument, NULL, 'r' },
	{ "output", required_argument, NULL, 'o' },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "vmlinux-id", required_argument, NULL, OPT_VMLINUX_ID },
	{ "no-vmlinux-id", no_argument, NULL, OPT_NO_VMLINUX_ID },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "module-dir", required_argument, NULL, OPT_MODULE_DIR },
	{ "module-id", required_argument, NULL, OPT_MODULE_ID },
	{ "func-size", required_argument, NULL, OPT_FUNC_SIZE },
	{ "rewrite-record", no_argument, NULL, OPT_REWRITE },
	{ "show", no_argument, NULL, OPT_SHOW },
	{ "build-id", no_argument, NULL, OPT_BUILD_ID },
	{ "annotated", no_argument, NULL, OPT_ANNOTATED },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

static void print_usage(FILE *f)
{
	fputs("usage: klpc-convert [OPTIONS] -s SYMVERS... PATCH.ko  (in place, or -o OUT)\n"
	      "       klpc-convert --rewrite-record [RECORD OPTIONS] PATCH.ko\n"
	      "       klpc-convert --show PATCH.ko       print the build record\n"
	      "       klpc-convert --build-id ELF        print a file's GNU build ID\n"
	      "  -s, --symvers FILE       a Module.symvers: symbols exported to modules\n"
	      "  -r, --replaces OBJ:NAME[,POS]  a function the patch replaces\n"
	      "  -o, --output FILE        write here instead of over PATCH.ko\n"
	      "  --vmlinux FILE           the target's vmlinux with symbols\n"
	      "  --module FILE            a target module (.ko)\n"
	      "  --module-dir DIR         target modules, found by name under DIR\n"
	      "  --annotated              convert only KLPC_SYMBOL()s: any other\n"
	      "                           unexported symbol is an error\n"
	      "record options:\n"
	      "  --vmlinux-id HEX         vmlinux's GNU build ID\n"
	      "  --no-vmlinux-id          record none (klpc cannot check the kernel)\n"
	      "  --module-id OBJ=HEX      a module object's build ID\n"
	      "  --func-size OBJ:NAME[,POS]=SIZE  a replaced function's size\n", f);
}

static int add_id(struct conv *c, const char *object, const char *hex)
{
	struct objsym *os = objsym_add(&c->ids, &c->nr_ids);

	os->object = xstrdup(object);
	os->name = xstrdup(hex);
	return 0;
}

static int add_module_id(struct conv *c, const char *arg)
{
	char obj[KLPC_OBJ_LEN];
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(obj)) {
		fprintf(stderr, "klpc-convert: --module-id '%s': expected OBJECT=HEX\n", arg);
		return -1;
	}
	object_name(obj, arg, eq - arg + 1);
	return add_id(c, obj, eq + 1);
}

static int add_path(struct conv *c, const char *path)
{
	c->module_paths = xrealloc(c->module_paths,
				   (c->nr_module_paths + 1) * sizeof(char *));
	c->module_paths[c->nr_module_paths++] = xstrdup(path);
	return 0;
}

static int parse_opt(struct conv *c, int opt, enum mode *mode, const char **out)
{
	switch (opt) {
	case 's':
		c->have_symvers = true;
		return symvers_read(&c->exports, optarg);
	case 'r':
		return objsym_parse(objsym_add(&c->replaces, &c->nr_replaces), optarg, false);
	case 'o':
		*out = optarg;
		return 0;
	case OPT_VMLINUX:
		c->vmlinux = optarg;
		return 0;
	case OPT_ANNOTATED:
		c->annotated = true;
		return 0;
	case OPT_VMLINUX_ID:
		return add_id(c, "vmlinux", optarg);
	case OPT_NO_VMLINUX_ID:
		c->no_vmlinux_id = true;
		return 0;
	case OPT_MODULE:
		return add_path(c, optarg);
	case OPT_MODULE_DIR:
		return target_add_dir(c, optarg);
	case OPT_MODULE_ID:
		return add_module_id(c, optarg);
	case OPT_FUNC_SIZE:
		return objsym_parse(objsym_add(&c->sizes, &c->nr_sizes), optarg, true);
	case OPT_REWRITE:
		*mode = REWRITE;
		return 0;
	case OPT_SHOW:
		*mode = SHOW;
		return 0;
	case OPT_BUILD_ID:
		*mode = BUILD_ID;
		return 0;
	case 'h':
		print_usage(stdout);
		exit(0);
	}
	print_usage(stderr);
	return -1;
}

static int print_build_id(const char *path)
{
	struct telf t;
	size_t i;
	int ret = -1;

	if (telf_open(&t, path))
		goto out;
	if (!t.id_len) {
		kelf_err(path, "no GNU build ID note");
		goto out;
	}
	for (i = 0; i < t.id_len; i++)
		printf("%02x", t.id[i]);
	putchar('\n');
	ret = 0;
out:
	telf_close(&t);
	return ret;
}

static int run(struct conv *c, enum mode what, const char *in, const char *out)
{
	struct kelf k;
	int ret;

	if (kelf_read(&k, in))
		return -1;
	ret = record_read(&k, c);
	if (!ret && what == SHOW) {
		if (!kelf_find(&k, KLPC_RECORD_SECTION))
			kelf_err(in, "no %s section: not converted", KLPC_RECORD_SECTION);
		else
			record_show(c);
		ret = kelf_find(&k, KLPC_RECORD_SECTION) ? 0 : -1;
		goto out;
	}
	if (!ret && what == REWRITE && !kelf_find(&k, KLPC_RECORD_SECTION)) {
		kelf_err(in, "no %s section to rewrite: convert it first", KLPC_RECORD_SECTION);
		ret = -1;
	}
	if (!ret && what == CONVERT)
		ret = annot_read(&k, c) ?: klp_convert(&k, c) ?:
		      modinfo_livepatch(&k) ?: record_build(c);
	ret = ret ?: record_apply_options(c) ?: record_put(&k, c) ?:
	      kelf_remove_dropped(&k) ?: kelf_sort_symbols(&k) ?:
	      kelf_write(&k, out ? out : in);
out:
	kelf_free(&k);
	return ret;
}

int main(int argc, char **argv)
{
	struct conv c = { 0 };
	enum mode mode = CONVERT;
	const char *out = NULL;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "s:r:o:h", options, NULL)) != -1)
		if (parse_opt(&c, opt, &mode, &out))
			return 2;
	if (optind != argc - 1) {
		print_usage(stderr);
		return 2;
	}
	c.in = argv[optind];
	if (mode == BUILD_ID)
		return print_build_id(c.in) ? 1 : 0;
	if (mode == CONVERT && !c.have_symvers) {
		fputs("klpc-convert: give the target's Module.symvers (-s): ", stderr);
		fputs("what is exported is never guessed\n", stderr);
		return 2;
	}
	ret = run(&c, mode, c.in, out);
	target_free(&c);
	symvers_free(&c.exports);
	objsym_free(c.annots, c.nr_annots);
	objsym_free(c.replaces, c.nr_replaces);
	objsym_free(c.sizes, c.nr_sizes);
	objsym_free(c.ids, c.nr_ids);
	free(c.rec);
	return ret ? 1 : 0;
}
