/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_TEST_DIRECT_H
#define _KLPC_TEST_DIRECT_H

/*
 * The direct-call trampoline of klpc-test-direct, written in assembly in
 * klpc-test-direct.c: only ftrace calls it, from a function's entry.
 */
void klpc_direct_tramp(void);

#endif /* _KLPC_TEST_DIRECT_H */
