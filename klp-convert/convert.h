/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert.h - what klpc-convert is asked to do, shared by its steps
 */
#ifndef KLPC_CONVERT_H
#define KLPC_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf-file.h"
#include "elf-symtab.h"
#include "symvers.h"
#include "klpc-record.h"

#ifndef SHF_RELA_LIVEPATCH
#define SHF_RELA_LIVEPATCH	0x00100000
#endif
#ifndef SHN_LIVEPATCH
#define SHN_LIVEPATCH		0xff20
#endif

#define KLPC_ANNOT_SECTION	".note.klpc.syms"
#define KLPC_OBJ_LEN		56	/* the kernel's sscanf field width + 1 */

/* A symbol's object and position (a KLPC_SYMBOL() annotation, --replaces) */
struct objsym {
	char *object;		/* "vmlinux" or a module name ('-' as '_') */
	char *name;
	unsigned long pos;
	uint64_t size;		/* --func-size only */
	bool used;
};

/* A target object whose ELF file was given or found (vmlinux, a .ko). */
struct target {
	char *object;
	struct telf elf;
};

struct conv {
	const char *in;			/* the patch module, for messages */
	struct symvers exports;
	bool have_symvers;
	bool annotated;			/* --annotated: only KLPC_SYMBOL()s */
	struct objsym *annots, *replaces, *sizes;
	size_t nr_annots, nr_replaces, nr_sizes;
	char **module_paths;		/* --module, then --module-dir's */
	size_t nr_module_paths;
	const char *vmlinux;		/* --vmlinux */
	struct objsym *ids;		/* --vmlinux-id, --module-id: name = hex */
	size_t nr_ids;
	bool no_vmlinux_id;
	struct target *targets;
	size_t nr_targets;
	struct klpc_record_entry *rec;
	size_t nr_rec;
};

/* objsym.c */
int objsym_parse(struct objsym *os, const char *arg, bool want_size);
struct objsym *objsym_add(struct objsym **arr, size_t *nr);
struct objsym *objsym_find(struct objsym *arr, size_t nr, const char *object,
			   const char *name);
void objsym_free(struct objsym *arr, size_t nr);
void object_name(char *dst, const char *src, size_t len);
int hex_parse(const char *hex, unsigned char *out, size_t max);

/* annot.c */
int annot_read(struct kelf *k, struct conv *c);

/* target.c */
int target_add_dir(struct conv *c, const char *dir);
int target_get(struct conv *c, const char *object, struct telf **t);
int target_sympos(struct conv *c, const char *object, const char *name,
		  unsigned long *pos);
void target_free(struct conv *c);

/* klp-rela.c */
int klp_convert(struct kelf *k, struct conv *c);

/* modinfo.c */
int modinfo_livepatch(struct kelf *k);

/* record.c */
int record_build(struct conv *c);
int record_read(struct kelf *k, struct conv *c);
int record_apply_options(struct conv *c);
int record_put(struct kelf *k, struct conv *c);
void record_show(const struct conv *c);

#endif /* KLPC_CONVERT_H */
