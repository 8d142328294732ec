/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klpc-test-cb.h - what the callback demo patches print
 *
 * Every callback of klpc-test-cb-demo and klpc-test-cb-demo2 prints one
 * line, "<callback>: vmlinux" or "<callback>: <module> -> <module state>",
 * and the tests of tests/callbacks/ compare the order of these lines with the order
 * upstream livepatch documents.  The includer defines pr_fmt.
 */

#ifndef _KLPC_TEST_CB_H
#define _KLPC_TEST_CB_H

#include <linux/module.h>
#include <linux/printk.h>
#include <klpc.h>

/*
 * The state of the module a module object stands for.  klpc runs the
 * callbacks of a module object only while that module is there, so "not
 * loaded" in a test's output is a klpc bug.
 */
static inline const char *klpc_test_cb_state(struct klpc_object *obj)
{
	if (!obj->mod)
		return "not loaded";
	switch (obj->mod->state) {
	case MODULE_STATE_LIVE:
		return "live";
	case MODULE_STATE_COMING:
		return "coming";
	case MODULE_STATE_GOING:
		return "going";
	case MODULE_STATE_UNFORMED:
		return "unformed";
	}
	return "unknown";
}

static inline void klpc_test_cb_report(const char *callback,
				       struct klpc_object *obj)
{
	if (obj->name)
		pr_info("%s: %s -> %s\n", callback, obj->name,
			klpc_test_cb_state(obj));
	else
		pr_info("%s: vmlinux\n", callback);
}

#endif /* _KLPC_TEST_CB_H */
