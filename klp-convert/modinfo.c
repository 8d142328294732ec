// SPDX-License-Identifier: GPL-2.0
/*
 * modinfo.c - mark the module a livepatch module: livepatch=Y in .modinfo
 *
 * The loader keeps a livepatch module's ELF section headers and full
 * symbol table (mod->klp_info), which the .klp.rela sections of module
 * objects and klpc's reading of the record need after the load.
 */
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

#define LIVEPATCH_TAG "livepatch=Y"

int modinfo_livepatch(struct kelf *k)
{
	size_t idx = kelf_find(k, ".modinfo"), off = 0, len;
	struct kelf_sec *s;
	unsigned char *buf;

	if (!idx) {
		kelf_err(k->path, "no .modinfo section: not a kernel module");
		return -1;
	}
	s = &k->secs[idx];
	while (off < s->size) {
		const char *p = (const char *)s->data + off;

		len = strnlen(p, s->size - off);
		if (!strncmp(p, "livepatch=", 10) && len == 11 && p[10] == 'Y')
			return 0;
		if (!strncmp(p, "livepatch=", 10)) {
			kelf_err(k->path, ".modinfo has '%.*s', not %s", (int)len, p,
				 LIVEPATCH_TAG);
			return -1;
		}
		off += len + 1;
	}
	len = sizeof(LIVEPATCH_TAG);
	buf = xmalloc(s->size + len);
	memcpy(buf, s->data, s->size);
	memcpy(buf + s->size, LIVEPATCH_TAG, len);
	kelf_set_data(k, idx, buf, s->size + len);
	return 0;
}
