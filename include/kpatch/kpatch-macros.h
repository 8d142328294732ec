/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpatch-macros.h - kpatch-build's patch-author macros, for klpc build
 *
 * A diff written for kpatch-build includes "kpatch-macros.h"; klpc build
 * puts this directory on the patched units' include path, so the same
 * diff builds unchanged.  The callbacks are klpc's: each macro leaves a
 * struct klpc_callbacks with that one callback set in a section
 * .klpc.callbacks.KIND, which klpc-emit turns into that callback of the
 * klpc_object the unit belongs to (vmlinux, or the unit's module), one of
 * each kind per object.
 *
 * kpatch's annotations that only steer kpatch-build's own comparison
 * (KPATCH_IGNORE_SECTION, KPATCH_IGNORE_FUNCTION, KPATCH_FORCE_UNSAFE)
 * stop the compile rather than being silently ignored: klpc build has no
 * way to honour them yet.
 */
#ifndef _KLPC_KPATCH_MACROS_H_
#define _KLPC_KPATCH_MACROS_H_

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/printk.h>
#include <klpc.h>

/* kpatch's name for the object a callback is called for */
#define patch_object struct klpc_object

#define __KLPC_CALLBACK(kind, fn)					\
	static const struct klpc_callbacks __klpc_callback_##kind	\
	__used __section(".klpc.callbacks." #kind) = { .kind = fn }

#define KPATCH_PRE_PATCH_CALLBACK(fn)	__KLPC_CALLBACK(pre_patch, fn)
#define KPATCH_POST_PATCH_CALLBACK(fn)	__KLPC_CALLBACK(post_patch, fn)
#define KPATCH_PRE_UNPATCH_CALLBACK(fn)	__KLPC_CALLBACK(pre_unpatch, fn)
#define KPATCH_POST_UNPATCH_CALLBACK(fn) __KLPC_CALLBACK(post_unpatch, fn)

#define KPATCH_IGNORE_SECTION(sec) \
	static_assert(0, "klpc build: KPATCH_IGNORE_SECTION is not supported")
#define KPATCH_IGNORE_FUNCTION(fn) \
	static_assert(0, "klpc build: KPATCH_IGNORE_FUNCTION is not supported")
#define KPATCH_FORCE_UNSAFE(fn) \
	static_assert(0, "klpc build: KPATCH_FORCE_UNSAFE is not supported")

/* kpatch's debugging printk: a plain one, tagged */
#define KPATCH_PRINTK(fmt, ...)	pr_info("klpc: " fmt, ##__VA_ARGS__)

#endif /* _KLPC_KPATCH_MACROS_H_ */
