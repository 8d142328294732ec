// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-tasks - unusual tasks for the guest tests
 *
 *	klpc-tasks execthr N	fork N children; in each, a second thread
 *				execs this program ("exit" mode) while the
 *				leader blocks, so that de_thread() swaps the
 *				pids of the two; exit 0 iff every child
 *				exited 0
 *	klpc-tasks exit		exit 0 (what execthr's threads exec)
 *	klpc-tasks threads N SECONDS
 *				start N threads that sleep SECONDS and exit
 *				(a big task table); exit 0 once all joined
 *	klpc-tasks uring-read FILE N
 *				read FILE N times (one open fd each) with
 *				io_uring, IOSQE_ASYNC, so that io-wq workers
 *				("iou-wrk-PID") do the reads; once all
 *				completed, print each result (the text, or
 *				-errno) on a line of its own, in order
 *	klpc-tasks uring-loop FILE SECONDS
 *				read FILE again and again for SECONDS through
 *				io-wq workers, 8 reads at a time; exit 1 and
 *				print the text if it ever shows
 *				"mismatches=" non-zero
 *
 * io_uring through the raw system calls (no liburing).  Exit status 2 on
 * usage or system errors.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup	425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter	426
#endif

#define BUF_SIZE	256

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *exec_thread(void *arg)
{
	char *argv[] = { "klpc-tasks", "exit", NULL };

	(void)arg;
	execve("/proc/self/exe", argv, environ);
	/* exit_group(): the whole child fails */
	perror("klpc-tasks: execve");
	_exit(3);
}

/* the child of execthr: its second thread execs, the leader waits */
static void execthr_child(void)
{
	pthread_t thr;

	if (pthread_create(&thr, NULL, exec_thread, NULL)) {
		fputs("klpc-tasks: pthread_create failed\n", stderr);
		_exit(4);
	}
	for (;;)
		pause();
}

static int do_execthr(int n)
{
	int i, status, failed = 0, started = 0;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("klpc-tasks: fork");
			failed++;
			break;
		}
		if (!pid)
			execthr_child();
		started++;
	}
	while (started > 0) {
		pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			perror("klpc-tasks: wait");
			return 2;
		}
		started--;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "klpc-tasks: child %d: status 0x%x\n",
				pid, status);
			failed++;
		}
	}
	return failed ? 1 : 0;
}

static void *sleep_thread(void *arg)
{
	double secs = *(double *)arg;
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - (time_t)secs) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return NULL;
}

static int do_threads(int n, double secs)
{
	pthread_t *thr = calloc(n, sizeof(*thr));
	pthread_attr_t attr;
	int i, started = 0, err;

	if (!thr)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		err = pthread_create(&thr[i], &attr, sleep_thread, &secs);
		if (err) {
			fprintf(stderr, "klpc-tasks: thread %d: %s\n", i,
				strerror(err));
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(thr[i], NULL);
	free(thr);
	return started == n ? 0 : 1;
}

/* --- io_uring ------------------------------------------------------------ */

struct ring {
	int fd;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r, unsigned int entries)
{
	struct io_uring_params p;
	size_t sq_size, cq_size;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		perror("klpc-tasks: io_uring_setup");
		return -1;
	}
	sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP && cq_size > sq_size)
		sq_size = cq_size;
	sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED) {
		perror("klpc-tasks: mmap sq");
		return -1;
	}
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		cq = sq;
	} else {
		cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED) {
			perror("klpc-tasks: mmap cq");
			return -1;
		}
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED) {
		perror("klpc-tasks: mmap sqes");
		return -1;
	}
	r->sq_head = (unsigned int *)(sq + p.sq_off.head);
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* queue an async read of @len bytes at offset 0 into @buf */
static void ring_queue_read(struct ring *r, int fd, char *buf,
			    unsigned int len, unsigned long long data)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->flags = IOSQE_ASYNC;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = 0;
	sqe->user_data = data;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/*
 * Submit @submit queued entries and wait for @n completions; res[user_data]
 * gets each result.  Returns 0 or -1.
 */
static int ring_run(struct ring *r, unsigned int submit, unsigned int n,
		    int *res)
{
	struct io_uring_cqe *cqe;
	unsigned int head, got = 0;
	long ret;

	while (got < n) {
		ret = syscall(__NR_io_uring_enter, r->fd, submit, n - got,
			      IORING_ENTER_GETEVENTS, NULL, 0);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			perror("klpc-tasks: io_uring_enter");
			return -1;
		}
		submit -= ret < submit ? ret : submit;
		head = *r->cq_head;
		while (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			cqe = &r->cqes[head & *r->cq_mask];
			res[cqe->user_data] = cqe->res;
			head++;
			got++;
		}
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	}
	return 0;
}

static int do_uring_read(const char *path, int n)
{
	char (*bufs)[BUF_SIZE];
	unsigned int entries = 1;
	int *fds, *res, i, ret = 0;
	struct ring r;

	while (entries < (unsigned int)n)
		entries <<= 1;
	bufs = calloc(n, sizeof(*bufs));
	fds = calloc(n, sizeof(*fds));
	res = calloc(n, sizeof(*res));
	if (!bufs || !fds || !res || ring_init(&r, entries))
		return 2;
	for (i = 0; i < n; i++) {
		fds[i] = open(path, O_RDONLY);
		if (fds[i] < 0) {
			perror(path);
			return 2;
		}
		ring_queue_read(&r, fds[i], bufs[i], BUF_SIZE - 1, i);
	}
	if (ring_run(&r, n, n, res))
		return 2;
	for (i = 0; i < n; i++) {
		if (res[i] < 0) {
			printf("%d\n", res[i]);
			continue;
		}
		bufs[i][res[i]] = '\0';
		bufs[i][strcspn(bufs[i], "\n")] = '\0';
		printf("%s\n", bufs[i]);
	}
	if (fflush(stdout))
		ret = 2;
	return ret;
}

#define LOOP_READS	8

static int do_uring_loop(const char *path, double secs)
{
	char bufs[LOOP_READS][BUF_SIZE];
	int fds[LOOP_READS], res[LOOP_READS], i;
	double end = now() + secs;
	unsigned long reads = 0;
	const char *m;
	struct ring r;

	if (ring_init(&r, LOOP_READS))
		return 2;
	for (i = 0; i < LOOP_READS; i++) {
		fds[i] = open(path, O_RDONLY);
		if (fds[i] < 0) {
			perror(path);
			return 2;
		}
	}
	while (now() < end) {
		for (i = 0; i < LOOP_READS; i++)
			ring_queue_read(&r, fds[i], bufs[i], BUF_SIZE - 1, i);
		if (ring_run(&r, LOOP_READS, LOOP_READS, res))
			return 2;
		for (i = 0; i < LOOP_READS; i++) {
			if (res[i] < 0) {
				fprintf(stderr, "klpc-tasks: read %s: %s\n",
					path, strerror(-res[i]));
				return 2;
			}
			bufs[i][res[i]] = '\0';
			reads++;
			m = strstr(bufs[i], "mismatches=");
			if (m && atol(m + 11)) {
				printf("after %lu reads: %s", reads, bufs[i]);
				fflush(stdout);
				return 1;
			}
		}
	}
	printf("%lu reads, no mismatch\n", reads);
	return fflush(stdout) ? 2 : 0;
}

static int usage(void)
{
	fputs("usage: klpc-tasks execthr N | exit | threads N SECONDS |\n"
	      "       uring-read FILE N | uring-loop FILE SECONDS\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
	if (argc == 3 && !strcmp(argv[1], "execthr") && atoi(argv[2]) > 0)
		return do_execthr(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "threads") && atoi(argv[2]) > 0)
		return do_threads(atoi(argv[2]), atof(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "uring-read") && atoi(argv[3]) > 0)
		return do_uring_read(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "uring-loop"))
		return do_uring_loop(argv[2], atof(argv[3]));
	return usage();
}
