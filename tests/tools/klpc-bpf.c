// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-bpf - attach a BPF fentry or fexit program that counts the calls
 * of a kernel function, run a command, print the count (guest tests).
 *
 *	klpc-bpf fentry|fexit FUNC -- CMD [ARG...]
 *
 * No libbpf, clang or bpftool: the guest has none.  The function's BTF id
 * comes from /sys/kernel/btf/vmlinux, the program is five instructions
 * (an atomic add to an array map), and it attaches with
 * BPF_RAW_TRACEPOINT_OPEN, as bpftool does for a tracing program: the
 * kernel builds a BPF trampoline and attaches it as an ftrace direct call.
 *
 * Prints "attached" once attached, then CMD's output, then "calls N".
 * Exit status: CMD's; 2 if the program cannot attach (the reason on
 * stderr, with the errno's name), 1 on any other error.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "klpc-bpf: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* the whole file, into a malloc'd buffer; its size in *len */
static char *read_file(const char *path, size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf)
		die(path);
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
	}
	if (r < 0)
		die(path);
	close(fd);
	*len = n;
	return buf;
}

/* bytes that follow a struct btf_type of this kind */
static size_t btf_extra(const struct btf_type *t)
{
	unsigned int vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return vlen * 12;
	default:	/* PTR, FWD, TYPEDEF, qualifiers, FUNC, FLOAT, TYPE_TAG */
		return 0;
	}
}

/* the BTF type id of the function @name in vmlinux's BTF, or 0 */
static __u32 btf_func_id(const char *name)
{
	size_t len, off;
	char *buf = read_file("/sys/kernel/btf/vmlinux", &len);
	const struct btf_header *h = (const void *)buf;
	const char *types, *strs;
	__u32 id = 1;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC)
		return 0;
	types = buf + h->hdr_len + h->type_off;
	strs = buf + h->hdr_len + h->str_off;
	for (off = 0; off < h->type_len; id++) {
		const struct btf_type *t = (const void *)(types + off);

		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    t->name_off < h->str_len && !strcmp(strs + t->name_off, name))
			return id;
		off += sizeof(*t) + btf_extra(t);
	}
	return 0;
}

static int map_create(void)
{
	union bpf_attr a = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.value_size = 8,
		.max_entries = 1,
	};
	int fd = sys_bpf(BPF_MAP_CREATE, &a);

	if (fd < 0)
		die("BPF_MAP_CREATE");
	return fd;
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

/* count += 1 in the map's only element; return 0 */
static int prog_load(int map, __u32 btf_id, int fexit)
{
	struct bpf_insn insns[] = {
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[65536];
	union bpf_attr a = {
		.prog_type = BPF_PROG_TYPE_TRACING,
		.expected_attach_type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
		.insns = (uintptr_t)insns,
		.insn_cnt = ARRAY_SIZE(insns),
		.license = (uintptr_t)"GPL",
		.attach_btf_id = btf_id,
		.log_buf = (uintptr_t)log,
		.log_size = sizeof(log),
		.log_level = 1,
	};
	int fd = sys_bpf(BPF_PROG_LOAD, &a);

	if (fd < 0) {
		fprintf(stderr, "%s", log);
		die("BPF_PROG_LOAD");
	}
	return fd;
}

static unsigned long long map_count(int map)
{
	__u32 key = 0;
	__u64 val = 0;
	union bpf_attr a = {
		.map_fd = map,
		.key = (uintptr_t)&key,
		.value = (uintptr_t)&val,
	};

	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		die("BPF_MAP_LOOKUP_ELEM");
	return val;
}

/* CMD's exit status (128 + signal if killed) */
static int run(char **argv)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execvp(argv[0], argv);
		die(argv[0]);
	}
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	union bpf_attr a = { 0 };
	int map, prog, link, st, fexit;
	__u32 id;

	if (argc < 5 || strcmp(argv[3], "--") ||
	    (strcmp(argv[1], "fentry") && strcmp(argv[1], "fexit"))) {
		fprintf(stderr, "usage: klpc-bpf fentry|fexit FUNC -- CMD [ARG...]\n");
		return 1;
	}
	fexit = !strcmp(argv[1], "fexit");
	id = btf_func_id(argv[2]);
	if (!id) {
		fprintf(stderr, "klpc-bpf: no function '%s' in vmlinux's BTF\n", argv[2]);
		return 1;
	}
	map = map_create();
	prog = prog_load(map, id, fexit);
	a.raw_tracepoint.prog_fd = prog;
	link = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (link < 0) {
		fprintf(stderr, "klpc-bpf: cannot attach to %s: %s (%s)\n",
			argv[2], strerror(errno), errno == EBUSY ? "EBUSY" : "");
		return 2;
	}
	printf("attached\n");
	st = run(argv + 4);
	printf("calls %llu\n", map_count(map));
	close(link);
	return st;
}
