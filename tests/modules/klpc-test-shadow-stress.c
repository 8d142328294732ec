// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-shadow-stress.c - shadow variables used from everywhere at once
 *
 * Run from init for secs= seconds: threads= kernel threads, a timer
 * (softirq) and a hard-irq hrtimer call klpc_shadow_get_or_alloc(),
 * klpc_shadow_get() and klpc_shadow_free() at random on a few shared
 * parent objects, and each thread also allocates, finds and frees
 * variables on parents of its own, where it knows what must exist.
 *
 * What is checked:
 *  - no duplicate: the constructor runs under klpc's lock and marks its
 *    parent live; finding it live already means a second <obj, id> was
 *    about to be published ("dup");
 *  - nothing wrong handed out: data found or freed belong to the parent
 *    asked for and are live or being freed, never garbage ("bad"; also
 *    counted if a timer callback does not run in the context it should);
 *  - nothing lost: afterwards a variable exists exactly for the live
 *    parents and for the private parents that should have one, and the
 *    constructor and destructor counts match ("lost").
 * The result is one "result:" line; the load fails with -EINVAL unless
 * every count of problems is 0 and every context made calls.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/preempt.h>
#include <linux/timer.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <klpc.h>

#define ID_SHARED	0x5ade
#define ID_PRIV		0x9217
#define NSHARED		8
#define NPRIV		32
#define MAX_THREADS	16
#define MAGIC_LIVE	0x11fe11fe11fe11feUL
#define MAGIC_DEAD	0xdeaddeaddeaddeadUL

static uint threads = 4;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "number of kernel threads (1-16)");

static uint secs = 3;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "how long to run");

/* a parent object; live is changed only by ctor/dtor, under klpc's lock */
struct parent {
	int live;
};

struct sdata {
	struct parent *obj;
	unsigned long magic;
};

struct worker {
	struct task_struct *task;
	struct parent priv[NPRIV];
	struct sdata *have[NPRIV];	/* what must exist for priv[i] */
	unsigned long ops;
};

static struct parent shared[NSHARED];
static struct worker *workers;
static bool stopping;
static atomic_long_t ctors, dtors, dups, bads, timer_ops, hardirq_ops;
static struct timer_list soft_timer;
static struct hrtimer hard_timer;

static int sd_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	struct parent *p = obj;
	struct sdata *d = shadow_data;

	if (p->live || d->obj || d->magic)
		atomic_long_inc(&dups);
	WRITE_ONCE(p->live, 1);
	d->obj = p;
	d->magic = MAGIC_LIVE;
	atomic_long_inc(&ctors);
	return 0;
}

static void sd_dtor(void *obj, void *shadow_data)
{
	struct parent *p = obj;
	struct sdata *d = shadow_data;

	if (!p->live || d->obj != p || d->magic != MAGIC_LIVE)
		atomic_long_inc(&bads);
	WRITE_ONCE(p->live, 0);
	WRITE_ONCE(d->magic, MAGIC_DEAD);
	atomic_long_inc(&dtors);
}

/* Data found for @p, inside the RCU section it was found in. */
static void validate(struct parent *p, struct sdata *d)
{
	unsigned long magic;

	if (!d)
		return;
	magic = READ_ONCE(d->magic);
	if (d->obj != p || (magic != MAGIC_LIVE && magic != MAGIC_DEAD))
		atomic_long_inc(&bads);
}

/*
 * One random call on a shared parent, from any context.  get_or_alloc
 * fails only for memory (GFP_ATOMIC), which is no error here.
 */
static void shared_op(u32 r, gfp_t gfp)
{
	struct parent *p = &shared[r % NSHARED];

	switch ((r / NSHARED) % 3) {
	case 0:
		rcu_read_lock();
		validate(p, klpc_shadow_get_or_alloc(p, ID_SHARED,
						     sizeof(struct sdata), gfp,
						     sd_ctor, NULL));
		rcu_read_unlock();
		break;
	case 1:
		rcu_read_lock();
		validate(p, klpc_shadow_get(p, ID_SHARED));
		rcu_read_unlock();
		break;
	default:
		klpc_shadow_free(p, ID_SHARED, sd_dtor);
		break;
	}
}

/* One call on a private parent, whose state this thread knows. */
static void private_op(struct worker *w, u32 r)
{
	unsigned int i = r % NPRIV;
	struct parent *p = &w->priv[i];
	struct sdata *d;

	d = klpc_shadow_get(p, ID_PRIV);
	if (d != w->have[i] || (d && (d->obj != p || d->magic != MAGIC_LIVE)))
		atomic_long_inc(&bads);
	if (!w->have[i]) {
		d = klpc_shadow_alloc(p, ID_PRIV, sizeof(*d), GFP_KERNEL,
				      sd_ctor, NULL);
		if (!d)
			atomic_long_inc(&bads);
		w->have[i] = d;
	} else if ((r / NPRIV) % 2) {
		klpc_shadow_free(p, ID_PRIV, sd_dtor);
		w->have[i] = NULL;
	}
}

static int worker_fn(void *arg)
{
	struct worker *w = arg;
	u32 r;

	while (!kthread_should_stop()) {
		r = get_random_u32();
		if (r & 1) {
			private_op(w, r >> 1);
		} else if (r & 2) {
			/* the sleeping allocation path: no RCU section */
			if (!klpc_shadow_get_or_alloc(&shared[(r >> 2) % NSHARED],
						      ID_SHARED,
						      sizeof(struct sdata),
						      GFP_KERNEL, sd_ctor, NULL))
				atomic_long_inc(&bads);
		} else {
			shared_op(r >> 2, GFP_ATOMIC);
		}
		if (!(++w->ops % 64))
			cond_resched();
	}
	return 0;
}

static void soft_timer_fn(struct timer_list *t)
{
	int i;

	if (!in_serving_softirq())
		atomic_long_inc(&bads);
	for (i = 0; i < 4; i++)
		shared_op(get_random_u32(), GFP_ATOMIC);
	atomic_long_add(4, &timer_ops);
	if (!READ_ONCE(stopping))
		mod_timer(&soft_timer, jiffies + 1);
}

static enum hrtimer_restart hard_timer_fn(struct hrtimer *t)
{
	if (!in_hardirq())
		atomic_long_inc(&bads);
	shared_op(get_random_u32(), GFP_ATOMIC);
	atomic_long_inc(&hardirq_ops);
	if (READ_ONCE(stopping))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ms_to_ktime(2));
	return HRTIMER_RESTART;
}

static int start_all(void)
{
	unsigned int i;

	timer_setup(&soft_timer, soft_timer_fn, 0);
	mod_timer(&soft_timer, jiffies + 1);
	hrtimer_init(&hard_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hard_timer.function = hard_timer_fn;
	hrtimer_start(&hard_timer, ms_to_ktime(2), HRTIMER_MODE_REL_HARD);
	for (i = 0; i < threads; i++) {
		workers[i].task = kthread_run(worker_fn, &workers[i],
					      "klpc-shadow/%u", i);
		if (IS_ERR(workers[i].task)) {
			int ret = PTR_ERR(workers[i].task);

			workers[i].task = NULL;
			return ret;
		}
	}
	return 0;
}

/* Returns how many threads had not run at all (kthread_stop: -EINTR). */
static int stop_all(void)
{
	unsigned int i;
	int idle = 0;

	WRITE_ONCE(stopping, true);
	for (i = 0; i < threads; i++) {
		if (workers[i].task && kthread_stop(workers[i].task))
			idle++;
	}
	timer_shutdown_sync(&soft_timer);
	hrtimer_cancel(&hard_timer);
	return idle;
}

/* After the run: a variable must exist exactly where one should. */
static long count_lost(void)
{
	long lost = 0, present = 0;
	struct sdata *d;
	unsigned int i, j;

	for (i = 0; i < NSHARED; i++) {
		d = klpc_shadow_get(&shared[i], ID_SHARED);
		present += !!d;
		if (!d != !READ_ONCE(shared[i].live))
			lost++;
	}
	for (i = 0; i < threads; i++) {
		for (j = 0; j < NPRIV; j++) {
			d = klpc_shadow_get(&workers[i].priv[j], ID_PRIV);
			present += !!d;
			if (d != workers[i].have[j])
				lost++;
		}
	}
	if (atomic_long_read(&ctors) - atomic_long_read(&dtors) != present)
		lost++;
	klpc_shadow_free_all(ID_SHARED, sd_dtor);
	klpc_shadow_free_all(ID_PRIV, sd_dtor);
	if (atomic_long_read(&ctors) != atomic_long_read(&dtors))
		lost++;
	for (i = 0; i < NSHARED; i++)
		lost += !!klpc_shadow_get(&shared[i], ID_SHARED);
	return lost;
}

static int report(long lost, int idle)
{
	unsigned long ops = 0;
	unsigned int i;

	for (i = 0; i < threads; i++)
		ops += workers[i].ops;
	pr_info("result: threads=%u secs=%u thread_ops=%lu timer_ops=%ld hardirq_ops=%ld ctors=%ld dtors=%ld dup=%ld bad=%ld lost=%ld idle=%d\n",
		threads, secs, ops, atomic_long_read(&timer_ops),
		atomic_long_read(&hardirq_ops), atomic_long_read(&ctors),
		atomic_long_read(&dtors), atomic_long_read(&dups),
		atomic_long_read(&bads), lost, idle);
	if (atomic_long_read(&dups) || atomic_long_read(&bads) || lost ||
	    idle || !ops || !atomic_long_read(&timer_ops) ||
	    !atomic_long_read(&hardirq_ops))
		return -EINVAL;
	return 0;
}

static int __init klpc_test_shadow_stress_init(void)
{
	int ret, idle;

	if (!threads || threads > MAX_THREADS || !secs)
		return -EINVAL;
	workers = kcalloc(threads, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	ret = start_all();
	if (!ret)
		ssleep(secs);
	idle = stop_all();
	if (!ret)
		ret = report(count_lost(), idle);
	else
		count_lost();
	kfree(workers);
	return ret;
}

static void __exit klpc_test_shadow_stress_exit(void)
{
}

module_init(klpc_test_shadow_stress_init);
module_exit(klpc_test_shadow_stress_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klpc test: shadow variables from threads and interrupts");
