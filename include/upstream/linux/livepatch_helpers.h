/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/livepatch_helpers.h> - Linux 6.19's patch-author macros, for
 * klpc build on kernels that lack the header (6.1)
 *
 * klpc build searches this directory after the kernel's own include path,
 * so a kernel that has the header uses its own.  Here:
 *
 * - KLP_PRE_PATCH_CALLBACK(fn) and its three siblings make fn that
 *   callback of the unit's klpc_object (vmlinux, or the unit's module),
 *   as kpatch-macros.h's do.  fn takes a struct klp_object *, which is
 *   klpc's struct klpc_object: <klpc-compat.h> maps the klp_ names of the
 *   patch-author API (the object, the shadow variables, the states) to
 *   klpc's.  A unit that got the kernel's <linux/livepatch.h> first
 *   (kernel/fork.c, through <linux/init_task.h>) keeps the kernel's
 *   struct klp_object, whose fields past .callbacks lie elsewhere than
 *   klpc's: the callback macros stop its compile instead.  Its
 *   klp_shadow_*() calls still reach klpc's (klpc-emit renames them).
 * - KLP_SYSCALL_DEFINEn is SYSCALL_DEFINEn: klpc build compares the
 *   syscall's metadata and leaves the running kernel's in place
 *   (kpatch-syscall.h says why).
 * - KLP_STATIC_CALL(name) calls what the static call points to now.
 */
#ifndef _LINUX_LIVEPATCH_HELPERS_H
#define _LINUX_LIVEPATCH_HELPERS_H

#include <linux/build_bug.h>
#include <linux/static_call.h>
#include <linux/syscalls.h>

#ifndef _LINUX_LIVEPATCH_H_
#include <klpc-compat.h>
#define __KLPC_HELPERS_OBJECT 1
#endif
#include <klpc-build-macros.h>

#ifdef MODULE
#define KLP_OBJNAME __KBUILD_MODNAME
#else
#define KLP_OBJNAME vmlinux
#endif

#ifdef __KLPC_HELPERS_OBJECT
typedef int (*klp_pre_patch_t)(struct klp_object *obj);
typedef void (*klp_post_patch_t)(struct klp_object *obj);
typedef void (*klp_pre_unpatch_t)(struct klp_object *obj);
typedef void (*klp_post_unpatch_t)(struct klp_object *obj);

#define __KLP_CALLBACK(kind, fn)	__KLPC_CALLBACK(kind, fn)
#else
#define __KLP_CALLBACK(kind, fn)					\
	static_assert(0, "klpc build: include <linux/livepatch_helpers.h> " \
		      "before <linux/livepatch.h> for KLP_*_CALLBACK()")
#endif

#define KLP_PRE_PATCH_CALLBACK(fn)	__KLP_CALLBACK(pre_patch, fn)
#define KLP_POST_PATCH_CALLBACK(fn)	__KLP_CALLBACK(post_patch, fn)
#define KLP_PRE_UNPATCH_CALLBACK(fn)	__KLP_CALLBACK(pre_unpatch, fn)
#define KLP_POST_UNPATCH_CALLBACK(fn)	__KLP_CALLBACK(post_unpatch, fn)

/* STATIC_CALL_TRAMP(name) and STATIC_CALL_KEY(name), spelled out */
#define KLP_STATIC_CALL(name)						\
	((typeof(__SCT__##name) *)READ_ONCE(__SCK__##name.func))

#define KLP_SYSCALL_DEFINE1(name, ...)	SYSCALL_DEFINE1(name, __VA_ARGS__)
#define KLP_SYSCALL_DEFINE2(name, ...)	SYSCALL_DEFINE2(name, __VA_ARGS__)
#define KLP_SYSCALL_DEFINE3(name, ...)	SYSCALL_DEFINE3(name, __VA_ARGS__)
#define KLP_SYSCALL_DEFINE4(name, ...)	SYSCALL_DEFINE4(name, __VA_ARGS__)
#define KLP_SYSCALL_DEFINE5(name, ...)	SYSCALL_DEFINE5(name, __VA_ARGS__)
#define KLP_SYSCALL_DEFINE6(name, ...)	SYSCALL_DEFINE6(name, __VA_ARGS__)

#endif /* _LINUX_LIVEPATCH_HELPERS_H */
