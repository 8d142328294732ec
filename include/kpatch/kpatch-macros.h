/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpatch-macros.h - kpatch-build's patch-author macros, for klpc build
 *
 * A diff written for kpatch-build includes "kpatch-macros.h"; klpc build
 * puts this directory on the patched units' include path, so the same
 * diff builds unchanged.  The callbacks are klpc's: the klpc_object the
 * unit belongs to (vmlinux, or the unit's module) gets them, one of each
 * kind per object.  The annotations that steer kpatch-build's comparison
 * steer klpc-compare's: KPATCH_IGNORE_SECTION("name") and
 * KPATCH_IGNORE_FUNCTION(fn) leave those changes out of the patch;
 * KPATCH_FORCE_UNSAFE(fn) patches fn where klpc build would refuse a
 * change only as a judgement (docs/design.md says which), never one that
 * cannot work.  klpc-build-macros.h has how.
 */
#ifndef _KLPC_KPATCH_MACROS_H_
#define _KLPC_KPATCH_MACROS_H_

#include <linux/printk.h>
#include "klpc-build-macros.h"

/* kpatch's name for the object a callback is called for */
#define patch_object struct klpc_object

#define KPATCH_PRE_PATCH_CALLBACK(fn)	__KLPC_CALLBACK(pre_patch, fn)
#define KPATCH_POST_PATCH_CALLBACK(fn)	__KLPC_CALLBACK(post_patch, fn)
#define KPATCH_PRE_UNPATCH_CALLBACK(fn)	__KLPC_CALLBACK(pre_unpatch, fn)
#define KPATCH_POST_UNPATCH_CALLBACK(fn) __KLPC_CALLBACK(post_unpatch, fn)

#define KPATCH_IGNORE_SECTION(sec)	KLPC_IGNORE_SECTION(sec)
#define KPATCH_IGNORE_FUNCTION(fn)	KLPC_IGNORE_FUNCTION(fn)
#define KPATCH_FORCE_UNSAFE(fn)		KLPC_FORCE_UNSAFE(fn)

/* kpatch's debugging printk: a plain one, tagged */
#define KPATCH_PRINTK(fmt, ...)	pr_info("klpc: " fmt, ##__VA_ARGS__)

#endif /* _KLPC_KPATCH_MACROS_H_ */
