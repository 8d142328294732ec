// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-perf - count a function's calls with perf counters, as 'perf probe'
 * and 'perf stat' do, without the perf tool (the guest has none): the
 * coexistence test coexist/perf-counters.
 *
 * Usage: klpc-perf SPEC READY STOP
 *   SPEC  tp:ID            a tracefs event by its id: a kprobe_events probe,
 *                          what 'perf probe' makes and 'perf stat -e
 *                          probe:NAME' counts
 *         kprobe:FUNC      the kprobe PMU, which perf and bpftrace use
 *         kretprobe:FUNC   without tracefs (perf_event_open() makes the
 *                          probe itself)
 * One counter per online CPU (the whole system, as 'perf stat -a'). Once
 * they count, "ready" is written to the file READY; when the file STOP
 * exists the counters' sum is printed and klpc-perf exits 0. Any error:
 * one line on stderr, exit 1.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PMU_DIR "/sys/bus/event_source/devices/kprobe"
#define MAX_CPUS 64

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "klpc-perf: %s%s%s: %s\n", what, arg ? " " : "",
		arg ? arg : "", errno ? strerror(errno) : "failed");
	exit(1);
}

/* read_num - the number in file @path, after its prefix @skip ("config:") */
static unsigned long read_num(const char *path, const char *skip)
{
	char buf[64];
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		die("cannot read", path);
	fclose(f);
	if (strncmp(buf, skip, strlen(skip))) {
		errno = EINVAL;
		die("unexpected contents of", path);
	}
	return strtoul(buf + strlen(skip), NULL, 10);
}

static void make_attr(const char *spec, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	if (!strncmp(spec, "tp:", 3)) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = strtoull(spec + 3, NULL, 10);
		return;
	}
	if (!strncmp(spec, "kprobe:", 7)) {
		a->config1 = (uintptr_t)(spec + 7);
	} else if (!strncmp(spec, "kretprobe:", 10)) {
		a->config1 = (uintptr_t)(spec + 10);
		a->config = 1ULL << read_num(PMU_DIR "/format/retprobe", "config:");
	} else {
		errno = EINVAL;
		die("unknown SPEC", spec);
	}
	a->type = read_num(PMU_DIR "/type", "");
}

static int cpu_online(int cpu)
{
	char path[64];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "r");
	if (!f) {
		/* no such file: a CPU that cannot go offline, or no CPU */
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		return !access(path, F_OK);
	}
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int fds[MAX_CPUS], n = 0, cpu, ncpus;
	unsigned long long sum = 0, v;
	FILE *ready;

	if (argc != 4) {
		fprintf(stderr, "usage: klpc-perf tp:ID|kprobe:FUNC|kretprobe:FUNC READY STOP\n");
		return 1;
	}
	make_attr(argv[1], &attr);
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	for (cpu = 0; cpu < ncpus && cpu < MAX_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		fds[n] = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		if (fds[n] < 0)
			die("perf_event_open", argv[1]);
		if (ioctl(fds[n], PERF_EVENT_IOC_ENABLE, 0))
			die("PERF_EVENT_IOC_ENABLE", argv[1]);
		n++;
	}
	ready = fopen(argv[2], "w");
	if (!ready || fputs("ready\n", ready) < 0 || fclose(ready))
		die("cannot write", argv[2]);
	while (access(argv[3], F_OK))
		usleep(20000);
	while (n--) {
		if (read(fds[n], &v, sizeof(v)) != sizeof(v))
			die("read of a counter", argv[1]);
		sum += v;
	}
	printf("%llu\n", sum);
	return 0;
}
