/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_TARGET_H
#define _KLPC_TARGET_H

/*
 * noipa: the functions below are live patched, so each call must really
 * reach them; no inlining, cloning or propagation of their return values.
 */
#define KLPC_TARGET_FUNC __attribute__((__noipa__))

const char *klpc_target_message(void);
int klpc_target_dup_b(void);

#endif /* _KLPC_TARGET_H */
