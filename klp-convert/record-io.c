// SPDX-License-Identifier: GPL-2.0
/*
 * record-io.c - the record section's bytes: read, write and show them
 *
 * Little-endian as the header says; this tool only runs on (and for)
 * x86_64, so the structures are copied as they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "util.h"

static bool str_ok(const char *s, size_t len)
{
	return memchr(s, '\0', len);
}

/* An existing record (a converted module's): 0 if there is none. */
int record_read(struct kelf *k, struct conv *c)
{
	size_t idx = kelf_find(k, KLPC_RECORD_SECTION), i;
	struct klpc_record_hdr hdr;
	struct kelf_sec *s;

	if (!idx)
		return 0;
	s = &k->secs[idx];
	if (s->size < sizeof(hdr))
		goto bad;
	memcpy(&hdr, s->data, sizeof(hdr));
	if (hdr.magic != KLPC_RECORD_MAGIC || hdr.version != KLPC_RECORD_VERSION ||
	    s->size != sizeof(hdr) + hdr.nr * sizeof(*c->rec))
		goto bad;
	c->rec = xcalloc(hdr.nr, sizeof(*c->rec));
	memcpy(c->rec, s->data + sizeof(hdr), hdr.nr * sizeof(*c->rec));
	c->nr_rec = hdr.nr;
	for (i = 0; i < c->nr_rec; i++)
		if (!str_ok(c->rec[i].object, KLPC_RECORD_NAME_LEN) ||
		    !str_ok(c->rec[i].name, KLPC_RECORD_NAME_LEN) ||
		    c->rec[i].id_len > KLPC_RECORD_ID_LEN)
			goto bad;
	return 0;
bad:
	kelf_err(k->path, "section %s is not a version %d record",
		 KLPC_RECORD_SECTION, KLPC_RECORD_VERSION);
	return -1;
}

/* Write the record into its section, replacing an older one. */
int record_put(struct kelf *k, struct conv *c)
{
	struct klpc_record_hdr hdr = {
		.magic = KLPC_RECORD_MAGIC,
		.version = KLPC_RECORD_VERSION,
		.nr = c->nr_rec,
	};
	size_t size = sizeof(hdr) + c->nr_rec * sizeof(*c->rec);
	size_t idx = kelf_find(k, KLPC_RECORD_SECTION);
	unsigned char *buf;

	if (c->nr_rec > 0xffff) {
		kelf_err(k->path, "%zu record entries: too many", c->nr_rec);
		return -1;
	}
	buf = xmalloc(size);
	memcpy(buf, &hdr, sizeof(hdr));
	if (c->nr_rec)
		memcpy(buf + sizeof(hdr), c->rec, c->nr_rec * sizeof(*c->rec));
	if (!idx)
		idx = kelf_add_sec(k, KLPC_RECORD_SECTION, SHT_PROGBITS,
				   SHF_ALLOC, NULL, 0);
	kelf_set_data(k, idx, buf, size);
	return 0;
}

void record_show(const struct conv *c)
{
	size_t i, j;

	for (i = 0; i < c->nr_rec; i++) {
		const struct klpc_record_entry *e = &c->rec[i];

		if (e->type == KLPC_REC_BUILD_ID) {
			printf("build-id %s ", e->object);
			for (j = 0; j < e->id_len; j++)
				printf("%02x", e->id[j]);
			putchar('\n');
		} else if (e->type == KLPC_REC_FUNC_SIZE) {
			printf("func-size %s:%s,%u %llu\n", e->object, e->name,
			       e->sympos, (unsigned long long)e->size);
		} else {
			printf("unknown-type %u\n", e->type);
		}
	}
}
