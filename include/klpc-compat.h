/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klpc-compat.h - build an upstream-style live patch module against klpc
 *
 * A patch module written for the kernel's own livepatch (6.1 API) builds
 * and runs on klpc when it includes this header in place of
 * <linux/livepatch.h>: every klp_ name of the patch-author API maps to its
 * klpc_ twin, which has the same fields and the same meaning.  Nothing
 * else changes; MODULE_INFO(livepatch, "Y") may stay (the kernel then
 * only taints itself as it does for any live patch).
 *
 * Both headers cannot be used in one file: their names would clash.
 */

#ifndef _KLPC_COMPAT_H_
#define _KLPC_COMPAT_H_

#ifdef _LINUX_LIVEPATCH_H_
#error "klpc-compat.h replaces <linux/livepatch.h>; include only one of them"
#endif
/* and keep any later #include <linux/livepatch.h> from declaring klp_ */
#define _LINUX_LIVEPATCH_H_

#include <klpc.h>

#define KLP_UNDEFINED			KLPC_UNDEFINED
#define KLP_UNPATCHED			KLPC_UNPATCHED
#define KLP_PATCHED			KLPC_PATCHED

#define klp_func			klpc_func
#define klp_callbacks			klpc_callbacks
#define klp_object			klpc_object
#define klp_state			klpc_state
#define klp_patch			klpc_patch

#define klp_for_each_object		klpc_for_each_object
#define klp_for_each_object_safe	klpc_for_each_object_safe
#define klp_for_each_func		klpc_for_each_func
#define klp_for_each_func_safe		klpc_for_each_func_safe

#define klp_enable_patch		klpc_enable_patch
#define klp_get_state			klpc_get_state
#define klp_get_prev_state		klpc_get_prev_state

#define klp_shadow_ctor_t		klpc_shadow_ctor_t
#define klp_shadow_dtor_t		klpc_shadow_dtor_t
#define klp_shadow_get			klpc_shadow_get
#define klp_shadow_alloc		klpc_shadow_alloc
#define klp_shadow_get_or_alloc		klpc_shadow_get_or_alloc
#define klp_shadow_free			klpc_shadow_free
#define klp_shadow_free_all		klpc_shadow_free_all

#endif /* _KLPC_COMPAT_H_ */
