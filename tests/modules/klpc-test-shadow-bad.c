// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-shadow-bad.c - shadow variable calls that must fail cleanly
 *
 * Run from init: a duplicate klpc_shadow_alloc() returns NULL and leaves
 * the existing variable alone (klpc logs one line naming the id), a
 * constructor that fails makes alloc and get_or_alloc return NULL and
 * leaves no entry, freeing what does not exist calls no destructor.  The
 * load fails with -EINVAL if any check fails, naming it in a "FAIL:" line.
 *
 * leak=N attaches N more variables (id 0x1eaf) that the module never
 * frees, so that the test can see klpc.ko report them when it unloads.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/irqflags.h>
#include <klpc.h>

#define ID_DUP		0x5a5a
#define ID_CTOR_FAIL	0xbad1
#define ID_CTOR_FAIL2	0xbad2
#define ID_NONE		0x7777
#define ID_ZERO		0x2e80
#define ID_ATOMIC	0xa70
#define ID_LEAK		0x1eaf

static uint leak;
module_param(leak, uint, 0444);
MODULE_PARM_DESC(leak, "number of shadow variables never to free");

static int parent;			/* the parent object of most checks */
static int leak_parents[16];
static int failures;
static int ctor_calls, dtor_calls;
static void *dtor_obj, *dtor_data;

#define check(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			pr_err("FAIL: " fmt "\n", ##__VA_ARGS__);	\
			failures++;					\
		}							\
	} while (0)

/* ctor_data is the value to store; the data must arrive zeroed */
static int good_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	unsigned long *v = shadow_data;

	ctor_calls++;
	if (*v)
		return -EFAULT;
	*v = (unsigned long)ctor_data;
	return 0;
}

/* ctor_data is the error to return */
static int failing_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	ctor_calls++;
	return (int)(long)ctor_data;
}

static void counting_dtor(void *obj, void *shadow_data)
{
	dtor_calls++;
	dtor_obj = obj;
	dtor_data = shadow_data;
}

static void check_duplicate(void)
{
	unsigned long *first, *again;

	first = klpc_shadow_alloc(&parent, ID_DUP, sizeof(*first), GFP_KERNEL,
				  good_ctor, (void *)1UL);
	check(first && *first == 1 && ctor_calls == 1, "first alloc of 0x%x",
	      ID_DUP);
	pr_info("duplicate alloc of id 0x%x follows\n", ID_DUP);
	again = klpc_shadow_alloc(&parent, ID_DUP, sizeof(*again), GFP_KERNEL,
				  good_ctor, (void *)2UL);
	check(!again, "duplicate alloc returned %p", again);
	check(ctor_calls == 1, "duplicate alloc called the constructor");
	check(klpc_shadow_get(&parent, ID_DUP) == first && *first == 1,
	      "duplicate alloc changed the existing variable");
	again = klpc_shadow_get_or_alloc(&parent, ID_DUP, sizeof(*again),
					 GFP_KERNEL, good_ctor, (void *)3UL);
	check(again == first && *first == 1 && ctor_calls == 1,
	      "get_or_alloc did not return the existing variable untouched");
	pr_info("duplicate: alloc returned NULL, get_or_alloc the original\n");
}

static void check_failing_ctor(void)
{
	void *sv;

	ctor_calls = 0;
	pr_info("failing constructor for id 0x%x follows\n", ID_CTOR_FAIL);
	sv = klpc_shadow_alloc(&parent, ID_CTOR_FAIL, 8, GFP_KERNEL,
			       failing_ctor, (void *)(long)-EIO);
	check(!sv, "alloc with a failing constructor returned %p", sv);
	check(!klpc_shadow_get(&parent, ID_CTOR_FAIL),
	      "a failed alloc left an entry");
	pr_info("failing constructor for id 0x%x follows\n", ID_CTOR_FAIL2);
	sv = klpc_shadow_get_or_alloc(&parent, ID_CTOR_FAIL2, 8, GFP_KERNEL,
				      failing_ctor, (void *)(long)-ENOSPC);
	check(!sv, "get_or_alloc with a failing constructor returned %p", sv);
	check(!klpc_shadow_get(&parent, ID_CTOR_FAIL2),
	      "a failed get_or_alloc left an entry");
	check(ctor_calls == 2, "%d constructor calls, expected 2", ctor_calls);

	/* the id is free again: a working constructor succeeds */
	sv = klpc_shadow_alloc(&parent, ID_CTOR_FAIL, sizeof(long), GFP_KERNEL,
			       good_ctor, (void *)4UL);
	check(sv && klpc_shadow_get(&parent, ID_CTOR_FAIL) == sv,
	      "alloc after a failed constructor");
	pr_info("failing constructors: NULL, no entry left\n");
}

static void check_free_missing(void)
{
	dtor_calls = 0;
	klpc_shadow_free(&parent, ID_NONE, counting_dtor);
	klpc_shadow_free(&leak_parents[0], ID_DUP, counting_dtor);
	klpc_shadow_free_all(ID_NONE, counting_dtor);
	check(dtor_calls == 0, "freeing nothing called the destructor");
	check(klpc_shadow_get(&parent, ID_DUP), "an unrelated free removed 0x%x",
	      ID_DUP);
	pr_info("free of missing variables: no destructor call\n");
}

/* no constructor: zeroed data; and a writer with interrupts off */
static void check_zero_and_atomic(void)
{
	unsigned long flags;
	u8 *data;
	void *sv;
	int i;

	data = klpc_shadow_alloc(&parent, ID_ZERO, 64, GFP_KERNEL, NULL, NULL);
	check(data, "alloc without a constructor");
	for (i = 0; data && i < 64; i++)
		check(!data[i], "byte %d of new data is 0x%x", i, data[i]);

	local_irq_save(flags);
	sv = klpc_shadow_get_or_alloc(&parent, ID_ATOMIC, 8, GFP_ATOMIC,
				      good_ctor, (void *)5UL);
	klpc_shadow_free(&parent, ID_ATOMIC, counting_dtor);
	local_irq_restore(flags);
	check(sv && dtor_calls == 1 && dtor_data == sv && dtor_obj == &parent,
	      "alloc and free with interrupts off");
	pr_info("zeroed data without constructor, atomic alloc and free\n");
}

static void check_free_dtor(void)
{
	void *sv = klpc_shadow_get(&parent, ID_DUP);

	dtor_calls = 0;
	klpc_shadow_free(&parent, ID_DUP, counting_dtor);
	check(dtor_calls == 1 && dtor_obj == &parent && dtor_data == sv,
	      "free: %d destructor calls", dtor_calls);
	check(!klpc_shadow_get(&parent, ID_DUP), "free left the variable");
	pr_info("free: destructor called once\n");
}

static int __init klpc_test_shadow_bad_init(void)
{
	uint i;

	if (leak > ARRAY_SIZE(leak_parents))
		return -EINVAL;
	check_duplicate();
	check_failing_ctor();
	check_free_missing();
	check_zero_and_atomic();
	check_free_dtor();
	klpc_shadow_free_all(ID_DUP, NULL);
	klpc_shadow_free_all(ID_CTOR_FAIL, NULL);
	klpc_shadow_free_all(ID_ZERO, NULL);
	if (failures) {
		pr_err("%d check(s) failed\n", failures);
		return -EINVAL;
	}
	for (i = 0; i < leak; i++) {
		if (!klpc_shadow_alloc(&leak_parents[i], ID_LEAK, 32,
				       GFP_KERNEL, NULL, NULL)) {
			klpc_shadow_free_all(ID_LEAK, NULL);
			return -ENOMEM;
		}
	}
	pr_info("all checks passed; %u variable(s) left behind\n", leak);
	return 0;
}

static void __exit klpc_test_shadow_bad_exit(void)
{
}

module_init(klpc_test_shadow_bad_init);
module_exit(klpc_test_shadow_bad_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: shadow variable calls that must fail cleanly");
