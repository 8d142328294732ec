/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_SAMPLE_ELF_MOD_H
#define _KLPC_SAMPLE_ELF_MOD_H

/*
 * What klpc-sample-elf-mod uses by name and cannot link against:
 * klpc-convert turns each reference into a livepatch relocation
 * (KLPC_SYMBOL() in the .c file says where a symbol lives).
 */

/* static in klpc_target, twice: the second returns 2 */
int klpc_target_dup(void);
/* static data of klpc_target */
extern int klpc_target_secret;
/* not exported by 6.1, unique in vmlinux: no annotation needed */
int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *size,
				unsigned long *offset);

#endif /* _KLPC_SAMPLE_ELF_MOD_H */
