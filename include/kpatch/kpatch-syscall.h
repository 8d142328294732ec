/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpatch-syscall.h - kpatch-build's KPATCH_SYSCALL_DEFINEn, for klpc build
 *
 * kpatch-build needs its own syscall definitions because it carries the
 * whole patched unit's syscall metadata and error-injection entries into
 * the patch.  klpc build compares the objects function by function and
 * carries only what changed: the metadata of an existing syscall compares
 * equal and stays the running kernel's, so the kernel's own SYSCALL_DEFINE
 * is the right definition, and the changed __do_sys_ and __x64_sys_
 * functions are patched like any other.
 */
#ifndef _KLPC_KPATCH_SYSCALL_H_
#define _KLPC_KPATCH_SYSCALL_H_

#include <linux/syscalls.h>

#define KPATCH_SYSCALL_DEFINE1(name, ...) SYSCALL_DEFINE1(name, __VA_ARGS__)
#define KPATCH_SYSCALL_DEFINE2(name, ...) SYSCALL_DEFINE2(name, __VA_ARGS__)
#define KPATCH_SYSCALL_DEFINE3(name, ...) SYSCALL_DEFINE3(name, __VA_ARGS__)
#define KPATCH_SYSCALL_DEFINE4(name, ...) SYSCALL_DEFINE4(name, __VA_ARGS__)
#define KPATCH_SYSCALL_DEFINE5(name, ...) SYSCALL_DEFINE5(name, __VA_ARGS__)
#define KPATCH_SYSCALL_DEFINE6(name, ...) SYSCALL_DEFINE6(name, __VA_ARGS__)

#endif /* _KLPC_KPATCH_SYSCALL_H_ */
