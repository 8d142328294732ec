// SPDX-License-Identifier: GPL-2.0
/*
 * klp-rela.c - turn references to unexported symbols into livepatch
 * relocations (Documentation/livepatch/module-elf-format.rst)
 *
 * An undefined symbol the target does not export is renamed
 * .klp.sym.OBJECT.NAME,POS and given st_shndx SHN_LIVEPATCH, so the module
 * loader leaves it alone; every relocation of an allocated section that
 * uses it moves from .rela.SEC to .klp.rela.OBJECT.SEC, which the kernel
 * resolves through kallsyms and applies: the vmlinux ones at module load,
 * a module object's when that module is there.  The symbol keeps its
 * index, so relocations elsewhere (debug info) stay valid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

struct bucket {			/* the relocations of one new section */
	const char *object;
	size_t target;		/* the section they apply to */
	Elf64_Rela *relas;
	size_t nr;
};

/* Where undefined symbol @name lives; 0: exported, nothing to do. */
static int classify(struct conv *c, const char *name, const char **object,
		    unsigned long *pos)
{
	struct objsym *a = objsym_find(c->annots, c->nr_annots, NULL, name);

	if (!a && symvers_has(&c->exports, name))
		return 0;
	/*
	 * klpc build's klpc-emit placed every unexported symbol: one it
	 * did not is not the converter's to guess.
	 */
	if (!a && c->annotated) {
		kelf_err(c->in, "%s: not exported, and no KLPC_SYMBOL() says where it is",
			 name);
		return -1;
	}
	*object = a ? a->object : "vmlinux";
	*pos = a ? a->pos : 0;
	if (a)
		a->used = true;
	if (target_sympos(c, *object, name, pos))
		return -1;
	return 1;
}

/* Rename the symbols to convert; objs[i]: symbol i's object, or NULL. */
static int convert_syms(struct kelf *k, struct conv *c, const char **objs)
{
	size_t nr, i;
	Elf64_Sym *syms = kelf_syms(k, &nr);

	for (i = 1; i < nr; i++) {
		const char *name = kelf_sym_name(k, &syms[i]);
		unsigned long pos;
		char *klpname;
		size_t len;
		int ret;

		if (syms[i].st_shndx != SHN_UNDEF || !*name)
			continue;
		ret = classify(c, name, &objs[i], &pos);
		if (ret <= 0) {
			if (ret)
				return ret;
			continue;
		}
		len = strlen(objs[i]) + strlen(name) + 32;
		klpname = xmalloc(len);
		snprintf(klpname, len, ".klp.sym.%s.%s,%lu", objs[i], name, pos);
		/* the string table may move: syms[] does not (another section) */
		syms[i].st_name = kelf_str_add(k, k->strtab, klpname);
		syms[i].st_shndx = SHN_LIVEPATCH;
		syms[i].st_info = ELF64_ST_INFO(STB_GLOBAL, ELF64_ST_TYPE(syms[i].st_info));
		free(klpname);
	}
	for (i = 0; i < c->nr_annots; i++)
		if (!c->annots[i].used) {
			kelf_err(c->in, "KLPC_SYMBOL(%s): the module has no undefined symbol of that name",
				 c->annots[i].name);
			return -1;
		}
	return 0;
}

static struct bucket *get_bucket(struct bucket **b, size_t *nr,
				 const char *object, size_t target)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if ((*b)[i].target == target && !strcmp((*b)[i].object, object))
			return &(*b)[i];
	*b = xrealloc(*b, (*nr + 1) * sizeof(**b));
	memset(&(*b)[*nr], 0, sizeof(**b));
	(*b)[*nr].object = object;
	(*b)[*nr].target = target;
	return &(*b)[(*nr)++];
}

/*
 * A module object's relocations are applied when that module loads,
 * maybe long after the patch's init code is gone.
 */
static int check_target(struct kelf *k, struct conv *c, size_t target,
			const char *object, const char *symname)
{
	const char *sec = k->secs[target].name;

	if (strcmp(object, "vmlinux") &&
	    (!strncmp(sec, ".init.", 6) || !strncmp(sec, ".exit.", 6))) {
		kelf_err(c->in, "%s: %s refers to %s's %s: not possible from init or exit code",
			 sec, symname, object, symname);
		return -1;
	}
	return 0;
}

/* Move the relocations of converted symbols out of one .rela section. */
static int split_rela(struct kelf *k, struct conv *c, size_t idx,
		      const char **objs, struct bucket **b, size_t *nb)
{
	struct kelf_sec *s = &k->secs[idx];
	size_t target = s->sh.sh_info, i, keep = 0, nsym;
	Elf64_Rela *r = (Elf64_Rela *)s->data;
	Elf64_Sym *syms = kelf_syms(k, &nsym);

	if (target >= k->nsec || !(k->secs[target].sh.sh_flags & SHF_ALLOC))
		return 0;
	for (i = 0; i < s->size / sizeof(*r); i++) {
		size_t sym = ELF64_R_SYM(r[i].r_info);
		struct bucket *bk;

		if (sym >= nsym || !objs[sym]) {
			r[keep++] = r[i];
			continue;
		}
		if (check_target(k, c, target, objs[sym],
				 kelf_sym_name(k, &syms[sym])))
			return -1;
		bk = get_bucket(b, nb, objs[sym], target);
		bk->relas = xrealloc(bk->relas, (bk->nr + 1) * sizeof(*r));
		bk->relas[bk->nr++] = r[i];
	}
	s->size = keep * sizeof(*r);
	s->sh.sh_size = s->size;
	return 0;
}

static void add_klp_rela(struct kelf *k, struct bucket *b)
{
	const char *target = k->secs[b->target].name;
	size_t len = strlen(b->object) + strlen(target) + 16, idx;
	char *name = xmalloc(len);
	struct kelf_sec *s;

	snprintf(name, len, ".klp.rela.%s.%s", b->object, target);
	idx = kelf_add_sec(k, name, SHT_RELA,
			   SHF_ALLOC | SHF_INFO_LINK | SHF_RELA_LIVEPATCH,
			   b->relas, b->nr * sizeof(Elf64_Rela));
	s = &k->secs[idx];
	s->sh.sh_link = k->symtab;
	s->sh.sh_info = b->target;
	s->sh.sh_entsize = sizeof(Elf64_Rela);
	free(name);
}

int klp_convert(struct kelf *k, struct conv *c)
{
	size_t nsym, nsec = k->nsec, nb = 0, i;
	const char **objs;
	struct bucket *b = NULL;
	int ret = -1;

	kelf_syms(k, &nsym);
	objs = xcalloc(nsym, sizeof(*objs));
	if (convert_syms(k, c, objs))
		goto out;
	for (i = 1; i < nsec; i++) {
		struct kelf_sec *s = &k->secs[i];

		if (!kelf_is_rela(s) || s->sh.sh_link != k->symtab ||
		    (s->sh.sh_flags & SHF_RELA_LIVEPATCH))
			continue;
		if (split_rela(k, c, i, objs, &b, &nb))
			goto out;
	}
	for (i = 0; i < nb; i++) {
		add_klp_rela(k, &b[i]);
		b[i].relas = NULL;
	}
	ret = 0;
out:
	for (i = 0; i < nb; i++)
		free(b[i].relas);
	free(b);
	free(objs);
	return ret;
}
