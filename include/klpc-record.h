/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klpc-record.h - what a patch module records of the kernel it was built for
 *
 * klpc-convert (user space) writes this record into a patch module; klpc
 * (the kernel) compares it with the running kernel before the patch goes
 * live and refuses a mismatch.  One definition for both sides, so it uses
 * only fixed-width types and no kernel-only headers.
 *
 * The record is an SHF_ALLOC section named KLPC_RECORD_SECTION: a
 * struct klpc_record_hdr followed by hdr.nr struct klpc_record_entry, all
 * little-endian, packed as declared (every field is naturally aligned).
 * Being allocated, the section stays in the patch module's memory after
 * load; klpc finds it through the module's kept ELF section headers
 * (mod->klp_info), which the loader keeps because a converted module
 * carries MODULE_INFO(livepatch, "Y").
 *
 * Strings are NUL-terminated inside their arrays; klpc refuses a record
 * whose string fills its array, whose magic or version it does not know,
 * or whose size does not match hdr.nr.
 */

#ifndef _KLPC_RECORD_H_
#define _KLPC_RECORD_H_

#include <linux/types.h>

#define KLPC_RECORD_SECTION	".klpc.record"
#define KLPC_RECORD_MAGIC	0x63706c6bU	/* "klpc" in memory order */
#define KLPC_RECORD_VERSION	1

#define KLPC_RECORD_NAME_LEN	128	/* object and symbol names */
#define KLPC_RECORD_ID_LEN	64	/* a GNU build ID (usually 20 bytes) */

/**
 * enum klpc_record_type - what one entry states about the target
 * @KLPC_REC_BUILD_ID:	@object ("vmlinux" or a module's name) has the
 *			GNU build ID @id (@id_len bytes)
 * @KLPC_REC_FUNC_SIZE:	function @name (position @sympos, 0 if unique) of
 *			@object is @size bytes long in the target's symbol
 *			table (st_size)
 */
enum klpc_record_type {
	KLPC_REC_BUILD_ID = 1,
	KLPC_REC_FUNC_SIZE = 2,
};

/**
 * struct klpc_record_hdr - the head of the record section
 * @magic:	KLPC_RECORD_MAGIC
 * @version:	KLPC_RECORD_VERSION
 * @nr:		the number of entries that follow
 */
struct klpc_record_hdr {
	__u32 magic;
	__u16 version;
	__u16 nr;
};

/**
 * struct klpc_record_entry - one fact about the target kernel
 * @type:	enum klpc_record_type
 * @id_len:	KLPC_REC_BUILD_ID: bytes used in @id; else 0
 * @sympos:	KLPC_REC_FUNC_SIZE: the symbol's position; else 0
 * @size:	KLPC_REC_FUNC_SIZE: the function's st_size; else 0
 * @object:	"vmlinux" or the module's name
 * @name:	KLPC_REC_FUNC_SIZE: the function's name; else empty
 * @id:		KLPC_REC_BUILD_ID: the build ID's bytes
 */
struct klpc_record_entry {
	__u16 type;
	__u16 id_len;
	__u32 sympos;
	__u64 size;
	char object[KLPC_RECORD_NAME_LEN];
	char name[KLPC_RECORD_NAME_LEN];
	__u8 id[KLPC_RECORD_ID_LEN];
};

#endif /* _KLPC_RECORD_H_ */
