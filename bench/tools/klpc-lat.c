// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-lat - wake-up latency of SCHED_FIFO threads, as cyclictest measures
 * it, for the guest benchmarks (bench/run.sh, group latency)
 *
 *	klpc-lat run READYFILE WINDOWS [MAX_SECONDS]
 *		on every CPU the process may run on, a thread pinned to it,
 *		SCHED_FIFO priority 50, sleeps with clock_nanosleep(
 *		TIMER_ABSTIME) to the next 1 ms period and records how late
 *		it woke; a period missed altogether is skipped, as cyclictest
 *		does, so that a stall counts once, with its whole length.
 *		Once every thread runs, READYFILE is created.  On SIGTERM or
 *		SIGINT the threads stop, and for each line
 *		"SCENARIO IMPL REP T0 T1" of the file WINDOWS (T0, T1 in
 *		CLOCK_MONOTONIC nanoseconds, as 'klpc-lat now' prints them)
 *		the samples whose period fell in [T0, T1] are summed up:
 *
 *	BENCH,latmax,IMPL,SCENARIO,REP,<worst, ms>,ms
 *	BENCH,lat999,IMPL,SCENARIO,REP,<99.9th percentile, ms>,ms
 *	BENCH,latown,IMPL,SCENARIO,REP,<worst stall of its own CPU, ms>,ms
 *	BENCH-LATN,SCENARIO,IMPL,REP,<samples>,<worst cpu>
 *	BENCH-HIST,SCENARIO,IMPL,REP,<bin low edge, us>,<count>
 *	BENCH-WORST,SCENARIO,IMPL,REP,<cpu>,<period, ns>,<latency, ns>,
 *		<latency of the other CPUs meanwhile, ns>
 *
 *		(histogram bins: 10 a decade from 1 us; the worst 3 samples,
 *		with when they were due, to find what ran meanwhile, and the
 *		worst lateness of another CPU's wake-up whose stall overlapped:
 *		as large, the whole guest stood still, e.g. the host did not
 *		run it; small, the stall was that CPU's own).  latown is the
 *		worst of each wake-up's lateness less that of the other CPUs
 *		meanwhile: what held its own CPU, without the stalls of the
 *		whole guest (mostly the host not running it).  Up to
 *		MAX_SECONDS (default 3600) of samples are kept, in memory
 *		locked and touched beforehand, so that recording one never
 *		faults.
 *	klpc-lat now
 *		prints CLOCK_MONOTONIC in nanoseconds
 *
 * Exit status 1 on any failure, with a message on stderr.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS	1000000LL
#define FIFO_PRIO	50
#define MAX_CPUS	64
#define WORST_NR	3
#define HIST_BINS	80
/* 10^(1/10): the ratio of two histogram bin edges */
#define HIST_STEP	1.2589254117941673
#define LINE_MAX_LEN	512

/* one wake-up: when it was due, from the start, and how late it came */
struct sample {
	uint32_t due_us;
	uint32_t late_ns;
};

struct lat_cpu {
	pthread_t thread;
	int cpu;
	size_t nr;
	size_t max;
	int overflow;
	uint32_t max_late_us;
	struct sample *s;
};

static struct lat_cpu cpus[MAX_CPUS];
static int nr_cpus;
static long long base_ns;
/* set once, read by the threads: __atomic accesses */
static int stopping;

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int fail(const char *what, const char *arg, int err)
{
	fprintf(stderr, "klpc-lat: %s %s: %s\n", what, arg, strerror(err));
	return 1;
}

static void *lat_thread(void *arg)
{
	struct lat_cpu *c = arg;
	long long next = mono_ns(), now, late;
	struct timespec ts;

	while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
		next += PERIOD_NS;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			continue;
		now = mono_ns();
		late = now - next;
		if (late > UINT32_MAX)
			late = UINT32_MAX;
		if (c->nr < c->max) {
			c->s[c->nr].due_us = (next - base_ns) / 1000;
			c->s[c->nr].late_ns = late;
			c->nr++;
		} else {
			c->overflow = 1;
		}
		/* skip the periods missed: a stall is one late wake-up */
		while (next + PERIOD_NS <= now)
			next += PERIOD_NS;
	}
	return NULL;
}

static int start_threads(long max_seconds)
{
	struct sched_param sp = { .sched_priority = FIFO_PRIO };
	cpu_set_t allowed, one;
	pthread_attr_t attr;
	int cpu, err;
	size_t bytes;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return fail("sched_getaffinity", "", errno);
	for (cpu = 0; cpu < CPU_SETSIZE && nr_cpus < MAX_CPUS; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		cpus[nr_cpus].cpu = cpu;
		cpus[nr_cpus].max = (size_t)max_seconds * (1000000000LL / PERIOD_NS);
		bytes = cpus[nr_cpus].max * sizeof(struct sample);
		cpus[nr_cpus].s = malloc(bytes);
		if (!cpus[nr_cpus].s)
			return fail("malloc", "", ENOMEM);
		/* fault every page in now (they stay: mlockall) */
		memset(cpus[nr_cpus].s, 0, bytes);
		nr_cpus++;
	}
	base_ns = mono_ns();
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		pthread_attr_init(&attr);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		CPU_ZERO(&one);
		CPU_SET(cpus[cpu].cpu, &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		err = pthread_create(&cpus[cpu].thread, &attr, lat_thread,
				     &cpus[cpu]);
		pthread_attr_destroy(&attr);
		if (err)
			return fail("pthread_create", "SCHED_FIFO", err);
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct worst {
	int cpu;
	long long due_ns;
	uint32_t late_ns;
};

/* keep the WORST_NR latest-waking samples, worst first */
static void worst_add(struct worst *w, int cpu, long long due_ns,
		      uint32_t late_ns)
{
	int i, j;

	for (i = 0; i < WORST_NR; i++)
		if (w[i].cpu < 0 || late_ns > w[i].late_ns)
			break;
	if (i == WORST_NR)
		return;
	for (j = WORST_NR - 1; j > i; j--)
		w[j] = w[j - 1];
	w[i].cpu = cpu;
	w[i].due_ns = due_ns;
	w[i].late_ns = late_ns;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* the index of the first sample of @c due at or after @due_us */
static size_t first_due(const struct lat_cpu *c, long long due_us)
{
	size_t lo = 0, hi = c->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->s[mid].due_us < due_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the latest wake-up of a CPU but @cpu whose stall overlapped [from, to] */
static uint32_t others_late(int cpu, long long from, long long to)
{
	const struct lat_cpu *o;
	uint32_t late = 0;
	long long due;
	size_t i;
	int c;

	for (c = 0; c < nr_cpus; c++) {
		o = &cpus[c];
		if (o->cpu == cpu)
			continue;
		/* samples due earlier did not last until @from */
		i = first_due(o, (from - base_ns) / 1000 - o->max_late_us - 1);
		for (; i < o->nr; i++) {
			due = base_ns + o->s[i].due_us * 1000LL;
			if (due > to)
				break;
			if (due + o->s[i].late_ns >= from && o->s[i].late_ns > late)
				late = o->s[i].late_ns;
		}
	}
	return late;
}

/*
 * A wake-up's stall of its own CPU: its lateness less the other CPUs'
 * meanwhile.  It is never more than @late, so a caller after the worst
 * need not ask for a sample no later than the worst so far.
 */
static uint32_t own_late(int cpu, long long due, uint32_t late)
{
	return late - min_u32(late, others_late(cpu, due, due + late));
}

static int hist_bin(double us, const double *edge)
{
	int b = 0;

	while (b + 1 < HIST_BINS && us >= edge[b + 1])
		b++;
	return b;
}

/* the summary of one window; labels is "SCENARIO,IMPL,REP" */
static int window(const char *scen, const char *impl, const char *rep,
		  long long t0, long long t1, uint32_t *buf)
{
	struct worst w[WORST_NR];
	unsigned long hist[HIST_BINS] = { 0 };
	double edge[HIST_BINS];
	uint32_t late, own = 0;
	long long due;
	size_t n = 0, i;
	int c, b;

	for (b = 0; b < WORST_NR; b++)
		w[b].cpu = -1;
	edge[0] = 1.0;
	for (b = 1; b < HIST_BINS; b++)
		edge[b] = edge[b - 1] * HIST_STEP;
	for (c = 0; c < nr_cpus; c++) {
		for (i = 0; i < cpus[c].nr; i++) {
			due = base_ns + cpus[c].s[i].due_us * 1000LL;
			if (due < t0 || due > t1)
				continue;
			late = cpus[c].s[i].late_ns;
			buf[n++] = late;
			worst_add(w, cpus[c].cpu, due, late);
			hist[hist_bin(late / 1e3, edge)]++;
			if (late > own)
				own = max_u32(own, own_late(cpus[c].cpu, due, late));
		}
	}
	if (!n) {
		fprintf(stderr, "klpc-lat: no samples from %s %s %s\n",
			scen, impl, rep);
		return 0;
	}
	qsort(buf, n, sizeof(*buf), cmp_u32);
	printf("BENCH,latmax,%s,%s,%s,%.3f,ms\n", impl, scen, rep,
	       buf[n - 1] / 1e6);
	/* the smallest value at least 99.9% of the samples do not exceed */
	i = (n * 999 + 999) / 1000;
	printf("BENCH,lat999,%s,%s,%s,%.3f,ms\n", impl, scen, rep,
	       buf[i - 1] / 1e6);
	printf("BENCH,latown,%s,%s,%s,%.3f,ms\n", impl, scen, rep, own / 1e6);
	printf("BENCH-LATN,%s,%s,%s,%zu,%d\n", scen, impl, rep, n, w[0].cpu);
	for (b = 0; b < HIST_BINS; b++)
		if (hist[b])
			printf("BENCH-HIST,%s,%s,%s,%.5g,%lu\n", scen, impl, rep,
			       edge[b], hist[b]);
	for (b = 0; b < WORST_NR && w[b].cpu >= 0; b++)
		printf("BENCH-WORST,%s,%s,%s,%d,%lld,%u,%u\n", scen, impl, rep,
		       w[b].cpu, w[b].due_ns, w[b].late_ns,
		       others_late(w[b].cpu, w[b].due_ns,
				   w[b].due_ns + w[b].late_ns));
	return 0;
}

static int report(const char *file)
{
	char line[LINE_MAX_LEN], scen[128], impl[64], rep[32];
	long long t0, t1;
	size_t total = 0, i;
	uint32_t *buf;
	FILE *f;
	int c;

	for (c = 0; c < nr_cpus; c++) {
		total += cpus[c].nr;
		for (i = 0; i < cpus[c].nr; i++)
			if (cpus[c].s[i].late_ns / 1000 > cpus[c].max_late_us)
				cpus[c].max_late_us = cpus[c].s[i].late_ns / 1000;
		if (cpus[c].overflow)
			fprintf(stderr, "klpc-lat: CPU %d: samples dropped (MAX_SECONDS)\n",
				cpus[c].cpu);
	}
	buf = malloc((total + 1) * sizeof(*buf));
	if (!buf)
		return fail("malloc", "", ENOMEM);
	f = fopen(file, "r");
	if (!f)
		return fail("open", file, errno);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %63s %31s %lld %lld", scen, impl, rep,
			   &t0, &t1) != 5)
			continue;
		window(scen, impl, rep, t0, t1, buf);
	}
	fclose(f);
	free(buf);
	fflush(stdout);
	return 0;
}

/* SIGTERM and SIGINT are blocked in every thread and taken by sigwait() */
static int do_run(const char *ready, const char *windows, long max_seconds)
{
	sigset_t set;
	int sig, fd, c;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		return fail("mlockall", "", errno);
	if (start_threads(max_seconds))
		return 1;
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create", ready, errno);
	close(fd);
	sigwait(&set, &sig);
	__atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
	for (c = 0; c < nr_cpus; c++)
		pthread_join(cpus[c].thread, NULL);
	return report(windows);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", mono_ns());
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "run"))
		return do_run(argv[2], argv[3], argc == 5 ? atol(argv[4]) : 3600);
	fprintf(stderr, "usage: see the comment at the top of klpc-lat.c\n");
	return 2;
}
