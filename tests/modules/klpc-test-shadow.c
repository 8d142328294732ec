// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-shadow.c - the shadow variable API, step by step
 *
 * The scenario of upstream's shadow variable selftest, run from this
 * module's init: three parent objects get two shadow variables each (ids
 * 0x1234 and 0x1235, both holding a pointer set by a constructor); they
 * are found again, get_or_alloc returns the existing ones without calling
 * the constructor, free removes one id with its destructor, free_all the
 * other.  Every call is logged with symbolic names instead of addresses
 * (obj0, char1, sv2...), so the test can compare the kernel log with a
 * fixed transcript; every result is also checked here, and the load fails
 * with -EINVAL and a "FAIL:" line naming the first wrong result.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <klpc.h>

#define NOBJS	3
#define ID_CHAR	0x1234
#define ID_INT	0x1235
#define MAX_SV	(2 * NOBJS)

/* the parent objects and what their shadow variables point to */
struct test_obj {
	int payload;
};

static struct test_obj objs[NOBJS];
static char chars[NOBJS];
static int ints[NOBJS];

/* shadow data pointers, named sv1, sv2... in the order they turn up */
static void *seen_sv[MAX_SV];
static int failures;

struct pname {
	char s[16];
};

static int test_ctor(void *obj, void *shadow_data, void *ctor_data);
static void test_dtor(void *obj, void *shadow_data);

static int array_index(const void *p, const void *base, size_t elem)
{
	ptrdiff_t off = (const char *)p - (const char *)base;

	if (off < 0 || off >= NOBJS * (ptrdiff_t)elem || off % elem)
		return -1;
	return off / elem;
}

static int sv_number(const void *p)
{
	int i;

	for (i = 0; i < MAX_SV; i++) {
		if (!seen_sv[i])
			seen_sv[i] = (void *)p;
		if (seen_sv[i] == p)
			return i + 1;
	}
	return 0;
}

/* A stable name for a pointer the scenario handles, for the log. */
static struct pname pn(const void *p)
{
	struct pname n;
	int i;

	if (!p)
		return (struct pname){ "NULL" };
	if (p == test_ctor)
		return (struct pname){ "ctor" };
	if (p == test_dtor)
		return (struct pname){ "dtor" };
	i = array_index(p, objs, sizeof(objs[0]));
	if (i >= 0) {
		snprintf(n.s, sizeof(n.s), "obj%d", i);
		return n;
	}
	i = array_index(p, chars, sizeof(chars[0]));
	if (i >= 0) {
		snprintf(n.s, sizeof(n.s), "char%d", i);
		return n;
	}
	i = array_index(p, ints, sizeof(ints[0]));
	if (i >= 0) {
		snprintf(n.s, sizeof(n.s), "int%d", i);
		return n;
	}
	snprintf(n.s, sizeof(n.s), "sv%d", sv_number(p));
	return n;
}

#define check(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			pr_err("FAIL: " fmt "\n", ##__VA_ARGS__);	\
			failures++;					\
		}							\
	} while (0)

/* The shadow data is one pointer, set by the constructor to ctor_data. */
static int test_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	void **sv = shadow_data;

	*sv = ctor_data;
	pr_info("ctor(%s): %s -> %s\n", pn(obj).s, pn(sv).s, pn(ctor_data).s);
	return 0;
}

static void test_dtor(void *obj, void *shadow_data)
{
	pr_info("dtor(%s, %s)\n", pn(obj).s, pn(shadow_data).s);
}

static int silent_dtor_calls;

static void silent_dtor(void *obj, void *shadow_data)
{
	silent_dtor_calls++;
}

static void **logged_get(void *obj, unsigned long id)
{
	void **sv = klpc_shadow_get(obj, id);

	pr_info("get(%s, 0x%lx) = %s\n", pn(obj).s, id, pn(sv).s);
	return sv;
}

static void **logged_alloc(void *obj, unsigned long id, void *ctor_data,
			   bool or_get)
{
	void **sv;

	if (or_get)
		sv = klpc_shadow_get_or_alloc(obj, id, sizeof(void *),
					      GFP_KERNEL, test_ctor, ctor_data);
	else
		sv = klpc_shadow_alloc(obj, id, sizeof(void *), GFP_KERNEL,
				       test_ctor, ctor_data);
	pr_info("%s(%s, 0x%lx, %zu, GFP_KERNEL, ctor, %s) = %s\n",
		or_get ? "get_or_alloc" : "alloc", pn(obj).s, id,
		sizeof(void *), pn(ctor_data).s, pn(sv).s);
	return sv;
}

/* get(obj, id) must return @want, holding @target. */
static void expect_sv(void *obj, unsigned long id, void **want, void *target)
{
	void **sv = logged_get(obj, id);

	check(sv == want, "get(%s, 0x%lx) is %s, not %s", pn(obj).s, id,
	      pn(sv).s, pn(want).s);
	if (sv && sv == want)
		check(*sv == target, "%s holds %s, not %s", pn(sv).s,
		      pn(*sv).s, pn(target).s);
}

static void **sv_char[NOBJS], **sv_int[NOBJS];

/* Two variables per object; ids alternate between the two alloc calls. */
static void step_alloc(void)
{
	int i;

	for (i = 0; i < NOBJS; i++) {
		sv_char[i] = logged_alloc(&objs[i], ID_CHAR, &chars[i],
					  !(i % 2));
		sv_int[i] = logged_alloc(&objs[i], ID_INT, &ints[i], false);
		check(sv_char[i] && sv_int[i], "allocation for %s failed",
		      pn(&objs[i]).s);
	}
}

static void step_find(void)
{
	int i;

	for (i = 0; i < NOBJS; i++) {
		expect_sv(&objs[i], ID_CHAR, sv_char[i], &chars[i]);
		expect_sv(&objs[i], ID_INT, sv_int[i], &ints[i]);
	}
}

/* get_or_alloc of an existing variable: no constructor call. */
static void step_get_existing(void)
{
	void **sv;
	int i;

	for (i = 0; i < NOBJS; i++) {
		sv = logged_alloc(&objs[i], ID_CHAR, &ints[i], true);
		check(sv == sv_char[i] && sv && *sv == &chars[i],
		      "get_or_alloc(%s) did not return the existing variable",
		      pn(&objs[i]).s);
	}
}

static void step_free(void)
{
	int i;

	for (i = 0; i < NOBJS; i++) {
		klpc_shadow_free(&objs[i], ID_CHAR, test_dtor);
		pr_info("free(%s, 0x%x, dtor)\n", pn(&objs[i]).s, ID_CHAR);
		expect_sv(&objs[i], ID_CHAR, NULL, NULL);
	}
	for (i = 0; i < NOBJS; i++)
		expect_sv(&objs[i], ID_INT, sv_int[i], &ints[i]);
}

/* free_all's order is the hash's: count the destructor calls instead. */
static void step_free_all(void)
{
	int i;

	klpc_shadow_free_all(ID_INT, silent_dtor);
	pr_info("free_all(0x%x): %d destructor calls\n", ID_INT,
		silent_dtor_calls);
	check(silent_dtor_calls == NOBJS, "free_all called the destructor %d times",
	      silent_dtor_calls);
	for (i = 0; i < NOBJS; i++)
		expect_sv(&objs[i], ID_INT, NULL, NULL);
}

static int __init klpc_test_shadow_init(void)
{
	expect_sv(&objs[0], ID_CHAR, NULL, NULL);
	step_alloc();
	if (!failures) {
		step_find();
		step_get_existing();
		step_free();
		step_free_all();
	}
	/* nothing may stay behind, whatever failed */
	klpc_shadow_free_all(ID_CHAR, NULL);
	klpc_shadow_free_all(ID_INT, NULL);
	if (failures) {
		pr_err("%d check(s) failed\n", failures);
		return -EINVAL;
	}
	pr_info("all checks passed\n");
	return 0;
}

static void __exit klpc_test_shadow_exit(void)
{
}

module_init(klpc_test_shadow_init);
module_exit(klpc_test_shadow_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: the shadow variable API scenario");
