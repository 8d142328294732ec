// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-syms.c - a patch whose new code uses a klpc_sym table entry
 *
 *	insmod klpc-test-syms.ko sym=klpc_target_dup sympos=2
 *
 * replaces klpc_target_message() of module klpc_target with a function
 * that calls the symbol, resolved in klpc_target, as int (*)(void) and
 * returns "sym=<its value>"; with data=1 the symbol is an int variable
 * and is read instead.  Tests that expect a failure may name anything.
 * With state=V the patch declares system state 2 at version V, so that
 * one patch has a klpc_sym table and states (the fault sweep).
 */

#include <linux/module.h>
#include <klpc.h>

static char *sym = "klpc_target_dup";
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "symbol of klpc_target to use");

static ulong sympos;
module_param(sympos, ulong, 0444);
MODULE_PARM_DESC(sympos, "sympos of the symbol");

static bool data;
module_param(data, bool, 0444);
MODULE_PARM_DESC(data, "the symbol is an int variable, not a function");

static uint state;
module_param(state, uint, 0444);
MODULE_PARM_DESC(state, "version of system state 2 (0: no state)");

static void *klpc_test_sym_addr;
static char klpc_test_buf[32];

static const char *klpc_test_syms_message(void)
{
	int (*fn)(void) = klpc_test_sym_addr;
	int val = data ? READ_ONCE(*(int *)klpc_test_sym_addr) : fn();

	snprintf(klpc_test_buf, sizeof(klpc_test_buf), "sym=%d", val);
	return klpc_test_buf;
}

static struct klpc_func funcs[] = {
	{
		.old_name = "klpc_target_message",
		.new_func = klpc_test_syms_message,
	}, { }
};

static struct klpc_sym syms[2];

static struct klpc_object objs[] = {
	{
		.name = "klpc_target",
		.funcs = funcs,
		.syms = syms,
	}, { }
};

static struct klpc_state states[2];

static struct klpc_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpc_test_syms_init(void)
{
	syms[0].name = sym;
	syms[0].sympos = sympos;
	syms[0].addr = &klpc_test_sym_addr;
	if (state) {
		states[0].id = 2;
		states[0].version = state;
		patch.states = states;
	}
	return klpc_enable_patch(&patch);
}

static void __exit klpc_test_syms_exit(void)
{
}

module_init(klpc_test_syms_init);
module_exit(klpc_test_syms_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: new code using an unexported symbol");
