// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-hook.c - the hook of every patch module klpc build makes
 *
 * The same source for every patch.  What differs from one patch to the
 * next is klpc-emit's (klp-build/emit/hook.c), in klpc-hook.h: the
 * replacements' and callbacks' declarations, klpc_objs[] with each
 * object's klpc_func table and callbacks, the KLPC_SYMBOL() places of the
 * unexported symbols the patch's code uses, KLPC_HOOK_REPLACE, and the
 * description and CVEs `klpc list` shows.
 */
#include <linux/module.h>
#include <klpc.h>

#include "klpc-hook.h"

static struct klpc_patch klpc_patch = {
	.mod = THIS_MODULE,
	.objs = klpc_objs,
	/* cumulative unless --no-replace: it retires the patches before */
	.replace = KLPC_HOOK_REPLACE,
};

static int __init klpc_build_init(void)
{
	return klpc_enable_patch(&klpc_patch);
}

static void __exit klpc_build_exit(void)
{
}

module_init(klpc_build_init);
module_exit(klpc_build_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
