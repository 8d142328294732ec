// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-bench-target.c - 1000 trivial traceable functions to patch
 *
 * klpc_bench_fn_000() ... klpc_bench_fn_999() each return their argument
 * plus a constant of their own (so no two are identical and the compiler
 * cannot fold them); the replacements add KLPC_BENCH_NEW_DELTA instead.
 *
 *	/proc/klpc_bench_target	"redirected N": how many of the 1000 call
 *				a replacement now (a check that a patch of
 *				N functions really redirects N)
 *	/proc/klpc_bench_hold	a read sleeps in klpc_bench_hold() until a
 *				write releases every sleeper; a patch that
 *				includes klpc_bench_hold() stays in
 *				transition meanwhile
 */

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/wait.h>

#include "klpc-bench.h"

/*
 * Ten functions klpc_bench_fn_<p>0 ... klpc_bench_fn_<p>9.  They are static
 * but address-taken (klpc_bench_fns below), so the compiler neither drops,
 * renames nor clones them, and patches find them by name.
 */
#define KLPC_BENCH_DEFINE10(p)						\
	static noinline int klpc_bench_fn_##p##0(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##1(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##2(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##3(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##4(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##5(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##6(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##7(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##8(int x)			\
	{ return x + __COUNTER__; }					\
	static noinline int klpc_bench_fn_##p##9(int x)			\
	{ return x + __COUNTER__; }

/* the first one is called by the per-call timer, another module */
noinline int klpc_bench_fn_000(int x)
{
	return x + __COUNTER__;
}
EXPORT_SYMBOL_GPL(klpc_bench_fn_000);

#define KLPC_BENCH_DEFINE1(n)						\
	static noinline int klpc_bench_fn_##n(int x)			\
	{ return x + __COUNTER__; }

KLPC_BENCH_DEFINE1(001) KLPC_BENCH_DEFINE1(002) KLPC_BENCH_DEFINE1(003)
KLPC_BENCH_DEFINE1(004) KLPC_BENCH_DEFINE1(005) KLPC_BENCH_DEFINE1(006)
KLPC_BENCH_DEFINE1(007) KLPC_BENCH_DEFINE1(008) KLPC_BENCH_DEFINE1(009)
KLPC_BENCH_DEFINE10(01) KLPC_BENCH_DEFINE10(02) KLPC_BENCH_DEFINE10(03)
KLPC_BENCH_DEFINE10(04) KLPC_BENCH_DEFINE10(05) KLPC_BENCH_DEFINE10(06) KLPC_BENCH_DEFINE10(07)
KLPC_BENCH_DEFINE10(08) KLPC_BENCH_DEFINE10(09) KLPC_BENCH_DEFINE10(10) KLPC_BENCH_DEFINE10(11)
KLPC_BENCH_DEFINE10(12) KLPC_BENCH_DEFINE10(13) KLPC_BENCH_DEFINE10(14) KLPC_BENCH_DEFINE10(15)
KLPC_BENCH_DEFINE10(16) KLPC_BENCH_DEFINE10(17) KLPC_BENCH_DEFINE10(18) KLPC_BENCH_DEFINE10(19)
KLPC_BENCH_DEFINE10(20) KLPC_BENCH_DEFINE10(21) KLPC_BENCH_DEFINE10(22) KLPC_BENCH_DEFINE10(23)
KLPC_BENCH_DEFINE10(24) KLPC_BENCH_DEFINE10(25) KLPC_BENCH_DEFINE10(26) KLPC_BENCH_DEFINE10(27)
KLPC_BENCH_DEFINE10(28) KLPC_BENCH_DEFINE10(29) KLPC_BENCH_DEFINE10(30) KLPC_BENCH_DEFINE10(31)
KLPC_BENCH_DEFINE10(32) KLPC_BENCH_DEFINE10(33) KLPC_BENCH_DEFINE10(34) KLPC_BENCH_DEFINE10(35)
KLPC_BENCH_DEFINE10(36) KLPC_BENCH_DEFINE10(37) KLPC_BENCH_DEFINE10(38) KLPC_BENCH_DEFINE10(39)
KLPC_BENCH_DEFINE10(40) KLPC_BENCH_DEFINE10(41) KLPC_BENCH_DEFINE10(42) KLPC_BENCH_DEFINE10(43)
KLPC_BENCH_DEFINE10(44) KLPC_BENCH_DEFINE10(45) KLPC_BENCH_DEFINE10(46) KLPC_BENCH_DEFINE10(47)
KLPC_BENCH_DEFINE10(48) KLPC_BENCH_DEFINE10(49) KLPC_BENCH_DEFINE10(50) KLPC_BENCH_DEFINE10(51)
KLPC_BENCH_DEFINE10(52) KLPC_BENCH_DEFINE10(53) KLPC_BENCH_DEFINE10(54) KLPC_BENCH_DEFINE10(55)
KLPC_BENCH_DEFINE10(56) KLPC_BENCH_DEFINE10(57) KLPC_BENCH_DEFINE10(58) KLPC_BENCH_DEFINE10(59)
KLPC_BENCH_DEFINE10(60) KLPC_BENCH_DEFINE10(61) KLPC_BENCH_DEFINE10(62) KLPC_BENCH_DEFINE10(63)
KLPC_BENCH_DEFINE10(64) KLPC_BENCH_DEFINE10(65) KLPC_BENCH_DEFINE10(66) KLPC_BENCH_DEFINE10(67)
KLPC_BENCH_DEFINE10(68) KLPC_BENCH_DEFINE10(69) KLPC_BENCH_DEFINE10(70) KLPC_BENCH_DEFINE10(71)
KLPC_BENCH_DEFINE10(72) KLPC_BENCH_DEFINE10(73) KLPC_BENCH_DEFINE10(74) KLPC_BENCH_DEFINE10(75)
KLPC_BENCH_DEFINE10(76) KLPC_BENCH_DEFINE10(77) KLPC_BENCH_DEFINE10(78) KLPC_BENCH_DEFINE10(79)
KLPC_BENCH_DEFINE10(80) KLPC_BENCH_DEFINE10(81) KLPC_BENCH_DEFINE10(82) KLPC_BENCH_DEFINE10(83)
KLPC_BENCH_DEFINE10(84) KLPC_BENCH_DEFINE10(85) KLPC_BENCH_DEFINE10(86) KLPC_BENCH_DEFINE10(87)
KLPC_BENCH_DEFINE10(88) KLPC_BENCH_DEFINE10(89) KLPC_BENCH_DEFINE10(90) KLPC_BENCH_DEFINE10(91)
KLPC_BENCH_DEFINE10(92) KLPC_BENCH_DEFINE10(93) KLPC_BENCH_DEFINE10(94) KLPC_BENCH_DEFINE10(95)
KLPC_BENCH_DEFINE10(96) KLPC_BENCH_DEFINE10(97) KLPC_BENCH_DEFINE10(98) KLPC_BENCH_DEFINE10(99)

#define KLPC_BENCH_ELEM(n)	klpc_bench_fn_##n

static int (* const klpc_bench_fns[10][10][10])(int) = KLPC_BENCH_TABLE;

static int klpc_bench_target_show(struct seq_file *m, void *v)
{
	unsigned int i, redirected = 0;

	for (i = 0; i < KLPC_BENCH_NR_FUNCS; i++)
		if (klpc_bench_fns[i / 100][i / 10 % 10][i % 10](0) == KLPC_BENCH_NEW_DELTA)
			redirected++;
	seq_printf(m, "redirected %u\n", redirected);
	return 0;
}

static DECLARE_WAIT_QUEUE_HEAD(klpc_bench_hold_wq);
static unsigned int klpc_bench_hold_gen;

/*
 * TASK_IDLE: the fake signals both livepatch implementations send to
 * stalled tasks must not end the hold; only a write to the file does.
 */
static noinline int klpc_bench_hold(int gen)
{
	wait_event_idle(klpc_bench_hold_wq,
			READ_ONCE(klpc_bench_hold_gen) != gen);
	return gen;
}

static int klpc_bench_hold_show(struct seq_file *m, void *v)
{
	seq_printf(m, "held %d\n",
		   klpc_bench_hold(READ_ONCE(klpc_bench_hold_gen)));
	return 0;
}

static int klpc_bench_hold_open(struct inode *inode, struct file *file)
{
	return single_open(file, klpc_bench_hold_show, NULL);
}

static ssize_t klpc_bench_hold_write(struct file *file, const char __user *buf,
				     size_t count, loff_t *ppos)
{
	WRITE_ONCE(klpc_bench_hold_gen, klpc_bench_hold_gen + 1);
	wake_up_all(&klpc_bench_hold_wq);
	return count;
}

static const struct proc_ops klpc_bench_hold_ops = {
	.proc_open	= klpc_bench_hold_open,
	.proc_read	= seq_read,
	.proc_write	= klpc_bench_hold_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init klpc_bench_target_init(void)
{
	if (!proc_create_single("klpc_bench_target", 0444, NULL,
				klpc_bench_target_show))
		return -ENOMEM;
	if (!proc_create("klpc_bench_hold", 0644, NULL, &klpc_bench_hold_ops)) {
		remove_proc_entry("klpc_bench_target", NULL);
		return -ENOMEM;
	}
	return 0;
}

static void __exit klpc_bench_target_exit(void)
{
	remove_proc_entry("klpc_bench_hold", NULL);
	remove_proc_entry("klpc_bench_target", NULL);
}

module_init(klpc_bench_target_init);
module_exit(klpc_bench_target_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc benchmark: 1000 trivial functions to patch");
