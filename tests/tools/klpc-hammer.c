// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-hammer - load generators for the guest tests
 *
 *	klpc-hammer getppid SECONDS	call getppid() in a loop
 *	klpc-hammer getpid SECONDS	call getpid() in a loop; exit 1 if it
 *					ever returns another pid than at first
 *	klpc-hammer spin SECONDS	burn CPU without any system call
 *	klpc-hammer read-spin FILE SECONDS
 *					read FILE once (one read(2)), print
 *					it, then spin like "spin"
 *	klpc-hammer read FILE SECONDS	read FILE again and again; exit 1 if
 *					it ever shows "mismatches=" non-zero
 *	klpc-hammer forks SECONDS	fork and reap children in a loop
 *	klpc-hammer fork-read FILE SECONDS
 *					the same, each child reading FILE once
 *					at once (one read(2)) before it exits
 *	klpc-hammer ppid 0		print what getppid() returns
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int hammer_getpid(double end)
{
	long pid = syscall(SYS_getpid), now_pid;

	while (now() < end) {
		now_pid = syscall(SYS_getpid);
		if (now_pid != pid) {
			fprintf(stderr, "klpc-hammer: getpid() %ld, not %ld\n",
				now_pid, pid);
			return 1;
		}
	}
	return 0;
}

static int hammer_read(const char *path, double end)
{
	char buf[256];
	const char *m;
	ssize_t n;
	int fd;

	while (now() < end) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return 2;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		m = strstr(buf, "mismatches=");
		if (m && atol(m + 11)) {
			fprintf(stderr, "klpc-hammer: %s", buf);
			return 1;
		}
	}
	return 0;
}

/* one read(2) of FILE, printed to stdout; 0 or 2 */
static int read_once(const char *path)
{
	char buf[256];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 2;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return 2;
	buf[n] = '\0';
	fputs(buf, stdout);
	return fflush(stdout) ? 2 : 0;
}

int main(int argc, char **argv)
{
	volatile unsigned long spin = 0;
	double end;
	pid_t pid;

	if (argc < 3)
		return 2;
	end = now() + atof(argv[argc - 1]);
	if (!strcmp(argv[1], "getppid")) {
		while (now() < end)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "getpid")) {
		return hammer_getpid(end);
	} else if (!strcmp(argv[1], "spin") ||
		   (!strcmp(argv[1], "read-spin") && argc == 4)) {
		if (argc == 4 && read_once(argv[2]))
			return 2;
		/* time is read every 2^24 rounds through the vDSO: no syscall */
		while (++spin & 0xffffff || now() < end)
			;
	} else if (!strcmp(argv[1], "read") && argc == 4) {
		return hammer_read(argv[2], end);
	} else if (!strcmp(argv[1], "ppid")) {
		printf("%ld\n", (long)syscall(SYS_getppid));
	} else if (!strcmp(argv[1], "forks") ||
		   (!strcmp(argv[1], "fork-read") && argc == 4)) {
		while (now() < end) {
			pid = fork();
			if (!pid && argc == 4)
				_exit(read_once(argv[2]));
			if (!pid)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
	} else {
		return 2;
	}
	return 0;
}
