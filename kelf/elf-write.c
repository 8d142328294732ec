// SPDX-License-Identifier: GPL-2.0
/*
 * elf-write.c - write a struct kelf out as a new file
 *
 * The output goes to a temporary file next to @path, renamed over @path
 * only once complete: a failed run leaves no output (and an input
 * converted in place intact).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-file.h"
#include "util.h"

/* Section names may have changed or been added: lay .shstrtab out anew. */
static void build_shstrtab(struct kelf *k)
{
	size_t i, size = 1, idx = k->eh.e_shstrndx;
	unsigned char *buf;

	for (i = 1; i < k->nsec; i++)
		size += strlen(k->secs[i].name) + 1;
	buf = xcalloc(1, size);
	size = 1;
	for (i = 1; i < k->nsec; i++) {
		size_t len = strlen(k->secs[i].name) + 1;

		memcpy(buf + size, k->secs[i].name, len);
		k->secs[i].sh.sh_name = size;
		size += len;
	}
	kelf_set_data(k, idx, buf, size);
}

static int add_sections(struct kelf *k, Elf *e)
{
	size_t i;

	for (i = 1; i < k->nsec; i++) {
		struct kelf_sec *s = &k->secs[i];
		Elf_Scn *scn = elf_newscn(e);
		Elf_Data *d;

		if (!scn || !gelf_update_shdr(scn, &s->sh))
			return -1;
		d = elf_newdata(scn);
		if (!d)
			return -1;
		d->d_buf = s->data;
		d->d_size = s->size;
		d->d_type = ELF_T_BYTE;
		d->d_off = 0;
		d->d_align = s->sh.sh_addralign ? s->sh.sh_addralign : 1;
		d->d_version = EV_CURRENT;
	}
	return 0;
}

static int write_fd(struct kelf *k, int fd)
{
	GElf_Ehdr eh = k->eh;
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	int ret = -1;

	if (!e || !gelf_newehdr(e, ELFCLASS64))
		goto out;
	eh.e_shoff = 0;
	eh.e_phoff = 0;
	eh.e_phnum = 0;
	if (add_sections(k, e) || !gelf_update_ehdr(e, &eh))
		goto out;
	if (elf_update(e, ELF_C_WRITE) < 0)
		goto out;
	ret = 0;
out:
	if (ret)
		kelf_err(k->path, "writing: %s", elf_errmsg(-1));
	elf_end(e);
	return ret;
}

int kelf_write(struct kelf *k, const char *path)
{
	size_t len = strlen(path) + 16;
	char *tmp = xmalloc(len);
	int fd, ret;

	build_shstrtab(k);
	snprintf(tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		kelf_err(path, "cannot create a temporary file: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	ret = write_fd(k, fd);
	if (!ret && fchmod(fd, 0644))
		ret = -1;
	if (close(fd))
		ret = -1;
	if (!ret && rename(tmp, path)) {
		kelf_err(path, "%s", strerror(errno));
		ret = -1;
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
