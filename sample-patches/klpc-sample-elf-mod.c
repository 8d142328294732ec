// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-sample-elf-mod.c - patch a module's static function with code that
 * calls another static function of that module by name
 *
 * The target is klpc_target (klpc-target.c): it has two static functions
 * named klpc_target_dup() (target-main.c's returns 1, target-dup.c's 2),
 * and /proc/klpc_target shows "dup=<first>,<second>".  This patch replaces
 * the first (old_sympos 1) with a function that calls the second by name
 * and reads the module's static klpc_target_secret (7): "dup=27,2" while
 * the patch is on.  Each is declared as if it were exported;
 * KLPC_SYMBOL() says which module, and which of the two same-named
 * functions, and klpc-convert turns the references into
 * .klp.rela.klpc_target.* relocations.  klpc writes them each time
 * klpc_target loads, before or after the patch, and clears them when it
 * goes (the declarations are in klpc-sample-elf-mod.h).  The patch also
 * keeps the address of a vmlinux function, a .klp.rela.vmlinux.*
 * relocation that the module loader writes, and shows it as 1 in its
 * 'vmlinux' parameter.  The guest tests elf/module-object-relocations,
 * elf/bad-relocations-refused and elf/build-record use it.
 *	insmod klpc-target.ko; insmod klpc-sample-elf-mod.ko
 *	grep dup /proc/klpc_target	# dup=27,2
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/module.h>
#include <klpc.h>

#include "klpc-sample-elf-mod.h"

KLPC_SYMBOL(klpc_target_dup, "klpc_target", 2);
KLPC_SYMBOL(klpc_target_secret, "klpc_target", 0);

static int klpc_sample_elf_mod_dup(void)
{
	return klpc_target_dup() * 10 + READ_ONCE(klpc_target_secret);
}

/* a data relocation: the loader writes the address here */
static void *klpc_sample_elf_mod_vmlinux_fn = kallsyms_lookup_size_offset;

static int vmlinux_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!READ_ONCE(klpc_sample_elf_mod_vmlinux_fn));
}

static const struct kernel_param_ops vmlinux_ops = {
	.get = vmlinux_get,
};
module_param_cb(vmlinux, &vmlinux_ops, NULL, 0444);
MODULE_PARM_DESC(vmlinux, "1 if the vmlinux relocation was applied");

static struct klpc_func funcs[] = {
	{
		.old_name = "klpc_target_dup",
		.new_func = klpc_sample_elf_mod_dup,
		.old_sympos = 1,
	}, { }
};

static struct klpc_object objs[] = {
	{
		.name = "klpc_target",
		.funcs = funcs,
	}, { }
};

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_sample_elf_mod_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_sample_elf_mod_exit(void)
{
}

module_init(klpc_sample_elf_mod_init);
module_exit(klpc_sample_elf_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc sample: a module's static function calling another by name");
KLPC_PATCH_DESC("klpc_target's first klpc_target_dup() through its second (klpc-convert)");
