// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-refuse.c - a module notifier that refuses a module's load
 *
 *	insmod klpc-test-refuse.ko target=klpc_target count=1
 *
 * fails the MODULE_STATE_COMING notification of module @target with
 * -EBUSY, @count times, from a notifier of priority 0: after klpc's
 * (INT_MAX), so klpc has patched the module already when the load fails.
 * /sys/module/klpc_test_refuse/parameters/refused counts the refusals.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/string.h>

static char *target;
module_param(target, charp, 0444);
MODULE_PARM_DESC(target, "name of the module whose load to refuse");

static int count = 1;
module_param(count, int, 0444);
MODULE_PARM_DESC(count, "how many of its loads to refuse");

static atomic_t klpc_refused = ATOMIC_INIT(0);

static int klpc_refused_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&klpc_refused));
}

static const struct kernel_param_ops klpc_refused_ops = {
	.get	= klpc_refused_get,
};

module_param_cb(refused, &klpc_refused_ops, NULL, 0444);
MODULE_PARM_DESC(refused, "loads refused so far");

static int klpc_refuse_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct module *mod = data;

	if (action != MODULE_STATE_COMING || !target ||
	    strcmp(mod->name, target))
		return NOTIFY_DONE;
	if (atomic_inc_return(&klpc_refused) > count) {
		atomic_dec(&klpc_refused);
		return NOTIFY_DONE;
	}
	pr_info("refusing module '%s'\n", mod->name);
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block klpc_refuse_nb = {
	.notifier_call	= klpc_refuse_notify,
	.priority	= 0,
};

static int __init klpc_refuse_init(void)
{
	return register_module_notifier(&klpc_refuse_nb);
}

static void __exit klpc_refuse_exit(void)
{
	unregister_module_notifier(&klpc_refuse_nb);
}

module_init(klpc_refuse_init);
module_exit(klpc_refuse_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: refuse a module's load from a later COMING notifier");
