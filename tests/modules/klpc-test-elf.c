// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-elf.c - a patch in the livepatch ELF format for module
 * klpc_target, converted by klpc-convert (tests/modules/klpc-convert.list)
 *
 * The first klpc_target_dup() (static, in target-main.c) is replaced with
 * a function that calls the second one (static, in target-dup.c: it
 * returns 2) by name and reads the static klpc_target_secret (7), so
 * /proc/klpc_target shows "dup=27,2" while the patch is on.  Both are
 * reached through .klp.rela.klpc_target.* relocations, which klpc writes
 * each time klpc_target comes and clears when it goes.  The patch also
 * keeps the address of a vmlinux function (a .klp.rela.vmlinux.*
 * relocation, which the module loader writes), shown in its 'vmlinux'
 * parameter as 1 when it is set.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/module.h>
#include <klpc.h>

#include "klpc-test-elf.h"

KLPC_SYMBOL(klpc_target_dup, "klpc_target", 2);
KLPC_SYMBOL(klpc_target_secret, "klpc_target", 0);
KLPC_SYMBOL(kallsyms_lookup_size_offset, "vmlinux", 0);

static int klpc_test_elf_dup(void)
{
	return klpc_target_dup() * 10 + READ_ONCE(klpc_target_secret);
}

/* a data relocation: the loader writes the address here */
static void *klpc_test_elf_vmlinux_fn = kallsyms_lookup_size_offset;

static int vmlinux_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!READ_ONCE(klpc_test_elf_vmlinux_fn));
}

static const struct kernel_param_ops vmlinux_ops = {
	.get = vmlinux_get,
};
module_param_cb(vmlinux, &vmlinux_ops, NULL, 0444);
MODULE_PARM_DESC(vmlinux, "1 if the vmlinux relocation was applied");

static struct klpc_func funcs[] = {
	{
		.old_name = "klpc_target_dup",
		.new_func = klpc_test_elf_dup,
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

static int __init klpc_test_elf_init(void)
{
	return klpc_enable_patch(&patch);
}

static void __exit klpc_test_elf_exit(void)
{
}

module_init(klpc_test_elf_init);
module_exit(klpc_test_elf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: a patch of a module in the livepatch ELF format");
