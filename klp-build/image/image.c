// SPDX-License-Identifier: GPL-2.0
/*
 * image.c - the ELF vmlinux inside a kernel image, and its .rodata
 *
 * A bzImage (Documentation/x86/boot.rst) is a real-mode setup, the
 * decompressor, and the vmlinux compressed: its setup header says where
 * that payload is and how long (boot protocol 2.08 and later), and the
 * payload's last four bytes are the unpacked size (gzip's trailer, or the
 * size arch/x86/boot/compressed appends to the others).  The payload is
 * unpacked by the compressor's own command-line tool, through a pipe:
 * Debian 12's 6.1 is xz-compressed, its 6.12 and Debian 13's zstd.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kallsyms.h"
#include "util.h"

/* the setup header's fields (Documentation/x86/boot.rst) */
#define BZ_SETUP_SECTS		0x1f1
#define BZ_HEADER		0x202
#define BZ_VERSION		0x206
#define BZ_PAYLOAD_OFFSET	0x248
#define BZ_PAYLOAD_LENGTH	0x24c
#define BZ_MIN_SIZE		0x250

/* a vmlinux unpacked to more than this is not one */
#define MAX_VMLINUX		0x80000000UL

void ksyms_err(const struct kimage *img, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", KSYMS_PROG, img->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * struct unpacker - a compressor a kernel image's payload may use
 * @name:	its name, for messages
 * @magic:	the bytes its streams start with
 * @len:	how many
 * @argv:	the command that unpacks stdin to stdout
 * @trailer:	the payload's last four bytes (the size) are not part of
 *		the stream, and must not be given to the command
 * @package:	the Debian package that has the command
 */
struct unpacker {
	const char *name;
	const char *magic;
	size_t len;
	const char *const argv[4];
	bool trailer;
	const char *package;
};

static const struct unpacker unpackers[] = {
	{ "xz", "\xfd\x37\x7a\x58\x5a", 6, { "xz", "-dcq", NULL }, true, "xz-utils" },
	{ "zstd", "\x28\xb5\x2f\xfd", 4, { "zstd", "-dcq", NULL }, true, "zstd" },
	{ "gzip", "\x1f\x8b", 2, { "gzip", "-dcq", NULL }, false, "gzip" },
};

static const struct unpacker *find_unpacker(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unpackers); i++)
		if (len >= unpackers[i].len &&
		    !memcmp(p, unpackers[i].magic, unpackers[i].len))
			return &unpackers[i];
	return NULL;
}

/**
 * read_file() - a whole file into memory
 * @img:	its path, for messages
 * @path:	the file
 * @size:	set to its size
 *
 * Return: the bytes (malloc'ed), or NULL after a message.
 */
static unsigned char *read_file(const struct kimage *img, const char *path,
				size_t *size)
{
	unsigned char *buf;
	struct stat st;
	size_t done = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ksyms_err(img, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = xmalloc(st.st_size + 1);
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, st.st_size - done);

		if (n <= 0) {
			ksyms_err(img, "read: %s", n ? strerror(errno) : "short");
			free(buf);
			close(fd);
			return NULL;
		}
		done += n;
	}
	close(fd);
	*size = done;
	return buf;
}

/**
 * spawn() - run a command with its stdin and stdout on descriptors
 * @argv:	the command
 * @in:		its stdin
 * @out:	its stdout
 * @shut:	a descriptor the child must not keep open (else the pipe it
 *		belongs to never ends), or -1
 *
 * Return: the child's pid, or -1.
 */
static pid_t spawn(const char *const argv[], int in, int out, int shut)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* its own complaint, if any, is said in one line by unpack() */
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
	    !freopen("/dev/null", "w", stderr))
		_exit(126);
	close(in);
	close(out);
	if (shut >= 0)
		close(shut);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

/* feed() - a child that writes @len bytes of @p to @fd and exits */
static pid_t feed(const unsigned char *p, size_t len, int fd, int shut)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	close(shut);
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			_exit(1);
		p += n;
		len -= n;
	}
	_exit(0);
}

/*
 * slurp() - what @fd gives until its end, up to one byte more than @max
 * (then the stream is not the one the trailer describes); *@len is set
 * to how many bytes
 */
static unsigned char *slurp(int fd, size_t max, size_t *len)
{
	unsigned char *buf = xmalloc(max + 1);
	size_t done = 0;
	ssize_t n;

	while (done < max + 1) {
		n = read(fd, buf + done, max + 1 - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	*len = done;
	return buf;
}

/**
 * unpack() - a compressed stream, unpacked by its command
 * @img:	for messages
 * @u:		the compressor
 * @p:		the stream
 * @len:	its length
 * @want:	the size it unpacks to (the payload's trailer)
 *
 * Return: the unpacked bytes, exactly @want of them, or NULL after a
 * message: a damaged payload is refused here, by its own checksums.
 */
static unsigned char *unpack(const struct kimage *img,
			     const struct unpacker *u, const unsigned char *p,
			     size_t len, size_t want)
{
	int in[2], out[2], st_unpack = 0, st_feed = 0;
	unsigned char *buf;
	pid_t cmd, writer;
	size_t got;

	if (pipe(in) || pipe(out)) {
		ksyms_err(img, "pipe: %s", strerror(errno));
		return NULL;
	}
	cmd = spawn(u->argv, in[0], out[1], in[1]);
	close(in[0]);
	close(out[1]);
	writer = cmd < 0 ? -1 : feed(p, len, in[1], out[0]);
	close(in[1]);
	if (cmd < 0 || writer < 0) {
		ksyms_err(img, "fork: %s", strerror(errno));
		return NULL;
	}
	buf = slurp(out[0], want, &got);
	close(out[0]);
	waitpid(writer, &st_feed, 0);
	waitpid(cmd, &st_unpack, 0);
	if (WIFEXITED(st_unpack) && WEXITSTATUS(st_unpack) == 127) {
		ksyms_err(img, "compressed with %s: cannot run '%s' (apt-get install %s)",
			  u->name, u->argv[0], u->package);
	} else if (!WIFEXITED(st_unpack) || WEXITSTATUS(st_unpack)) {
		ksyms_err(img, "%s fails on its payload: the image is damaged",
			  u->name);
	} else if (got != want) {
		ksyms_err(img, "its %s payload unpacks to %s bytes, its trailer says %zu: the image is damaged",
			  u->name, got > want ? "more" : "fewer", want);
	} else {
		return buf;
	}
	free(buf);
	return NULL;
}

/**
 * unpack_bzimage() - the vmlinux inside a bzImage
 * @img:	img->data is the bzImage; replaced by the vmlinux
 *
 * Return: 0, or -1 after a message.
 */
static int unpack_bzimage(struct kimage *img)
{
	const unsigned char *d = img->data, *payload;
	const struct unpacker *u;
	size_t setup, off, len, want;
	unsigned char *vmlinux;

	if (img->size < BZ_MIN_SIZE || memcmp(d + BZ_HEADER, "HdrS", 4)) {
		ksyms_err(img, "neither an ELF vmlinux nor a bzImage");
		return -1;
	}
	if (get_le16(d + BZ_VERSION) < 0x208) {
		ksyms_err(img, "boot protocol %#x: before 2.08, no payload to read",
			  get_le16(d + BZ_VERSION));
		return -1;
	}
	setup = d[BZ_SETUP_SECTS] ? d[BZ_SETUP_SECTS] : 4;
	off = (setup + 1) * 512 + get_le32(d + BZ_PAYLOAD_OFFSET);
	len = get_le32(d + BZ_PAYLOAD_LENGTH);
	if (len < 8 || off > img->size || len > img->size - off) {
		ksyms_err(img, "its payload (%zu bytes at %zu) is not in the file: the image is truncated",
			  len, off);
		return -1;
	}
	payload = d + off;
	u = find_unpacker(payload, len);
	if (!u) {
		ksyms_err(img, "its payload is compressed with neither xz, zstd nor gzip (magic %02x %02x %02x %02x)",
			  payload[0], payload[1], payload[2], payload[3]);
		return -1;
	}
	want = get_le32(payload + len - 4);
	if (want > MAX_VMLINUX) {
		ksyms_err(img, "its payload claims %zu bytes: the image is damaged", want);
		return -1;
	}
	vmlinux = unpack(img, u, payload, u->trailer ? len - 4 : len, want);
	if (!vmlinux)
		return -1;
	free(img->data);
	img->data = vmlinux;
	img->size = want;
	return 0;
}

/**
 * find_rodata() - the vmlinux's .rodata, where scripts/kallsyms.c puts
 * every table
 * @img:	its data and size are the vmlinux; ro* are set
 *
 * Return: 0, or -1 after a message.
 */
static int find_rodata(struct kimage *img)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf *e;
	int ret = -1;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)img->data, img->size);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getshdrstrndx(e, &shstrndx)) {
		ksyms_err(img, "not a readable ELF file: %s", elf_errmsg(-1));
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64) {
		ksyms_err(img, "not an x86-64 vmlinux");
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			break;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata") || sh.sh_type != SHT_PROGBITS)
			continue;
		if (sh.sh_offset > img->size ||
		    sh.sh_size > img->size - sh.sh_offset) {
			ksyms_err(img, ".rodata is not in the file: the vmlinux is truncated");
			goto out;
		}
		img->ro = img->data + sh.sh_offset;
		img->ro_size = sh.sh_size;
		img->ro_addr = sh.sh_addr;
		img->ro_off = sh.sh_offset;
		ret = 0;
		goto out;
	}
	ksyms_err(img, "the vmlinux has no .rodata section");
out:
	if (e)
		elf_end(e);
	return ret;
}

/**
 * image_load() - the vmlinux of a kernel image
 * @img:	filled in
 * @path:	a bzImage (vmlinuz) or an ELF vmlinux
 *
 * Return: 0, or -1 after a message.
 */
int image_load(struct kimage *img, const char *path)
{
	memset(img, 0, sizeof(*img));
	img->path = path;
	img->data = read_file(img, path, &img->size);
	if (!img->data)
		return -1;
	if ((img->size < 4 || memcmp(img->data, ELFMAG, SELFMAG)) &&
	    unpack_bzimage(img))
		return -1;
	return find_rodata(img);
}

/**
 * image_write() - the vmlinux into a file (--vmlinux)
 * @img:	the image
 * @path:	the file, written anew
 *
 * Return: 0, or -1 after a message.
 */
int image_write(const struct kimage *img, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(img->data, 1, img->size, f) != img->size ||
	    fclose(f)) {
		ksyms_err(img, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
