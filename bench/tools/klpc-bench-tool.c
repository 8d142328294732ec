// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-bench-tool - timing helpers for the guest benchmarks (bench/run.sh)
 *
 *	klpc-bench-tool insmod KO WAITFILE [PARAM=VALUE...]
 *		finit_module(KO), then poll WAITFILE until it reads 0 (or is
 *		gone); prints the milliseconds from the start of the insmod
 *	klpc-bench-tool write FILE VALUE WAITFILE
 *		write VALUE to FILE with one write(2), then the same polling
 *	klpc-bench-tool getppid CALLS RUNS
 *		CALLS getppid() calls, RUNS times, on CPU 0 and 5 ms apart;
 *		prints the best nanoseconds per call
 *	klpc-bench-tool spawn procs|threads N READYFILE
 *		start N tasks that sleep in pause(), create READYFILE, and on
 *		SIGTERM or SIGINT end them all and exit 0
 *	klpc-bench-tool forkexec N RUNS
 *		N times fork(), execve() of this program with the argument
 *		"true" (a static program that returns at once) and waitpid(),
 *		RUNS times, on CPU 0 and 5 ms apart; prints the best
 *		microseconds per fork+exec+wait
 *	klpc-bench-tool pthread N RUNS
 *		the same with pthread_create() of a thread that returns at once
 *		and pthread_join()
 *	klpc-bench-tool true
 *		exits 0 at once
 *
 * Polling re-reads WAITFILE every 0.1 ms, so times have that resolution.
 * Exit status 1 on any failure, with a message on stderr.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_NS		100000L
#define POLL_LIMIT_S	600.0
#define THREAD_STACK	(64 * 1024)
#define GETPPID_PAUSE_NS	5000000L
#define LOOP_PAUSE_NS	5000000L

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what, const char *arg)
{
	fprintf(stderr, "klpc-bench-tool: %s %s: %s\n", what, arg,
		strerror(errno));
	return 1;
}

/* 1 while FILE reads other than "0", 0 once it does or is gone, -1 error */
static int still_busy(const char *file)
{
	char buf[16];
	ssize_t n;
	int fd;

	/* the built-in removes a disabled patch's directory: ENODEV mid-way */
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == ENODEV ? 0 : -1;
	return !(n >= 1 && buf[0] == '0');
}

/* a line in the kernel log, to line dmesg timestamps up with a run */
static void log_line(const char *what, const char *arg)
{
	char line[256];
	int fd, n;

	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "<6>klpc-bench-tool: %s %s\n", what,
		     arg);
	if (write(fd, line, n) < 0)
		n = 0;
	close(fd);
}

static int wait_zero(const char *file, double start)
{
	struct timespec pause_ts = { 0, POLL_NS };
	int busy;

	while ((busy = still_busy(file)) > 0) {
		if (now_ms() - start > POLL_LIMIT_S * 1e3) {
			fprintf(stderr, "klpc-bench-tool: %s not 0 after %.0f s\n",
				file, POLL_LIMIT_S);
			return 1;
		}
		nanosleep(&pause_ts, NULL);
	}
	if (busy < 0)
		return fail("read", file);
	printf("%.3f\n", now_ms() - start);
	log_line("0 in", file);
	return 0;
}

static int do_insmod(int argc, char **argv)
{
	char params[4096] = "";
	double start;
	int fd, i;

	for (i = 4; i < argc; i++) {
		if (strlen(params) + strlen(argv[i]) + 2 > sizeof(params))
			return 2;
		strcat(params, argv[i]);
		strcat(params, " ");
	}
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open", argv[2]);
	log_line("insmod", argv[2]);
	start = now_ms();
	if (syscall(SYS_finit_module, fd, params, 0))
		return fail("insmod", argv[2]);
	close(fd);
	return wait_zero(argv[3], start);
}

static int do_write(char **argv)
{
	size_t len = strlen(argv[3]);
	double start;
	int fd;

	fd = open(argv[2], O_WRONLY);
	if (fd < 0)
		return fail("open", argv[2]);
	log_line("write", argv[2]);
	start = now_ms();
	if (write(fd, argv[3], len) != (ssize_t)len)
		return fail("write", argv[2]);
	close(fd);
	return wait_zero(argv[4], start);
}

static int on_cpu0(void)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return fail("sched_setaffinity", "0");
	return 0;
}

/*
 * On CPU 0, so that every figure is taken on the same (emulated) CPU, and
 * with a pause between loops, so that the best loop is picked from a span
 * of time longer than a burst of load on the host.
 */
static int do_getppid(long calls, int runs)
{
	struct timespec pause_ts = { 0, GETPPID_PAUSE_NS };
	double best = 0, t;
	long i;
	int r;

	if (on_cpu0())
		return 1;
	for (r = 0; r < runs; r++) {
		nanosleep(&pause_ts, NULL);
		t = now_ms();
		for (i = 0; i < calls; i++)
			syscall(SYS_getppid);
		t = (now_ms() - t) * 1e6 / calls;
		if (!r || t < best)
			best = t;
	}
	printf("%.2f\n", best);
	return 0;
}

static int fork_exec_wait(const char *self)
{
	char *const args[] = { (char *)self, "true", NULL };
	char *const env[] = { NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return fail("fork", "");
	if (!pid) {
		execve(self, args, env);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("waitpid", "");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "klpc-bench-tool: %s true failed\n", self);
		return 1;
	}
	return 0;
}

static void *returner(void *arg)
{
	return arg;
}

static int create_join(void)
{
	pthread_t tid;

	errno = pthread_create(&tid, NULL, returner, NULL);
	if (errno)
		return fail("pthread_create", "");
	errno = pthread_join(tid, NULL);
	if (errno)
		return fail("pthread_join", "");
	return 0;
}

/*
 * RUNS loops of N fork+exec+wait (or thread create+join) on CPU 0, with a
 * pause between loops, as for getppid(); the best loop is printed.
 */
static int do_spawn_loop(int threads, long n, int runs)
{
	struct timespec pause_ts = { 0, LOOP_PAUSE_NS };
	char self[4096];
	double best = 0, t;
	ssize_t len;
	long i;
	int r;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return fail("readlink", "/proc/self/exe");
	self[len] = 0;
	if (on_cpu0())
		return 1;
	for (r = 0; r < runs; r++) {
		nanosleep(&pause_ts, NULL);
		t = now_ms();
		for (i = 0; i < n; i++)
			if (threads ? create_join() : fork_exec_wait(self))
				return 1;
		t = (now_ms() - t) * 1e3 / n;
		if (!r || t < best)
			best = t;
	}
	printf("%.2f\n", best);
	return 0;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int spawn_threads(long n)
{
	pthread_attr_t attr;
	pthread_t tid;
	long i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (i = 0; i < n; i++) {
		errno = pthread_create(&tid, &attr, sleeper, NULL);
		if (errno)
			return fail("pthread_create", "");
	}
	return 0;
}

static int spawn_procs(long n, pid_t *pids)
{
	long i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return fail("fork", "");
		if (!pids[i]) {
			sleeper(NULL);
			_exit(0);
		}
	}
	return 0;
}

/* SIGTERM and SIGINT are blocked in every task and taken by sigwait() */
static int do_spawn(char **argv)
{
	long i, n = atol(argv[3]);
	int threads = !strcmp(argv[2], "threads"), sig, fd, ret;
	pid_t *pids = NULL;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (!threads) {
		pids = calloc(n, sizeof(*pids));
		if (!pids)
			return fail("calloc", "");
	}
	ret = threads ? spawn_threads(n) : spawn_procs(n, pids);
	if (!ret) {
		fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("create", argv[4]);
		close(fd);
		sigwait(&set, &sig);
	}
	for (i = 0; pids && i < n && pids[i] > 0; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; pids && i < n && pids[i] > 0; i++)
		waitpid(pids[i], NULL, 0);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "insmod"))
		return do_insmod(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "write"))
		return do_write(argv);
	if (argc == 4 && !strcmp(argv[1], "getppid"))
		return do_getppid(atol(argv[2]), atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "spawn"))
		return do_spawn(argv);
	if (argc == 4 && !strcmp(argv[1], "forkexec"))
		return do_spawn_loop(0, atol(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "pthread"))
		return do_spawn_loop(1, atol(argv[2]), atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "true"))
		return 0;
	fprintf(stderr, "usage: see the comment at the top of klpc-bench-tool.c\n");
	return 2;
}
