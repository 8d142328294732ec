/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klpc-build-macros.h - what a diff given to klpc build can tell it
 *
 * The patch-author macros of kpatch ("kpatch-macros.h") and of Linux 6.19
 * (<linux/livepatch_helpers.h>, in ../upstream/) are spelled with these.
 * klpc build puts this directory on the patched units' include path (it
 * is installed with kpatch-macros.h, which every kpatch diff includes);
 * nothing here is compiled into a kernel.
 *
 * Callbacks: a struct klpc_callbacks with one callback set, in a section
 * .klpc.callbacks.KIND.  klpc-emit keeps the function, and the patch's
 * hook sets it as that callback of the unit's klpc_object (vmlinux, or
 * the unit's module); one of each kind per object.
 *
 * Annotations: a name as a string, in a section .discard.klpc.KIND that
 * klpc-compare reads (klp-build/compare/annotate.c).  A string rather
 * than the function's address: taking the address would make gcc keep an
 * out-of-line copy of a function it otherwise inlines or clones, which is
 * a change of its own.  .discard.* is left out of the comparison and never reaches
 * the patch module.
 */
#ifndef _KLPC_BUILD_MACROS_H_
#define _KLPC_BUILD_MACROS_H_

#include <linux/compiler.h>
#include <klpc.h>

#define __KLPC_CALLBACK(kind, fn)					\
	static const struct klpc_callbacks __klpc_callback_##kind	\
	__used __section(".klpc.callbacks." #kind) = { .kind = fn }

#define __KLPC_ANNOTATE(kind, text, check)				\
	static const char __UNIQUE_ID(klpc_##kind)[sizeof(text) + 0 * (check)] \
	__used __aligned(1) __section(".discard.klpc." #kind) = text

/*
 * a function's name, checked to be declared: by the size of a pointer to
 * it, which refers to no symbol
 */
#define __KLPC_ANNOTATE_FUNC(kind, fn)					\
	__KLPC_ANNOTATE(kind, #fn, sizeof(typeof(fn) *))

/* the section's changes neither make a function patched nor refuse it */
#define KLPC_IGNORE_SECTION(name)	__KLPC_ANNOTATE(ignore_section, name, 0)
/* the function's change is not patched (the running code stays) */
#define KLPC_IGNORE_FUNCTION(fn)	__KLPC_ANNOTATE_FUNC(ignore_function, fn)
/* patched even where the change looks unsafe (docs/design.md) */
#define KLPC_FORCE_UNSAFE(fn)		__KLPC_ANNOTATE_FUNC(force, fn)

#endif /* _KLPC_BUILD_MACROS_H_ */
