/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klpc-bench.h - the 1000 target functions of the benchmarks, by macro
 *
 * The target module defines klpc_bench_fn_000() ... klpc_bench_fn_999()
 * with KLPC_BENCH_DEFINE10(); the patch modules list the same names with
 * KLPC_BENCH_TABLE, a brace initializer of a [10][10][10] array whose
 * element NNN is KLPC_BENCH_ELEM(NNN), a macro the user defines.  NNN is
 * only ever pasted or stringified, never used as a number (it would be
 * octal).  No generated file is needed.
 */

#ifndef _KLPC_BENCH_H
#define _KLPC_BENCH_H

#define KLPC_BENCH_NR_FUNCS	1000

/* the name of target function NNN, as a string */
#define KLPC_BENCH_NAME(n)	"klpc_bench_fn_" #n

/* the object the patches name: the target module */
#define KLPC_BENCH_OBJ		"klpc_bench_target"

/* what a replacement adds to its argument, so a caller can tell */
#define KLPC_BENCH_NEW_DELTA	1000000

/* the function a task can be held in, to keep a transition open */
#define KLPC_BENCH_HOLD_NAME	"klpc_bench_hold"

#define KLPC_BENCH_TABLE10(p)						\
	{ KLPC_BENCH_ELEM(p##0), KLPC_BENCH_ELEM(p##1),			\
	  KLPC_BENCH_ELEM(p##2), KLPC_BENCH_ELEM(p##3),			\
	  KLPC_BENCH_ELEM(p##4), KLPC_BENCH_ELEM(p##5),			\
	  KLPC_BENCH_ELEM(p##6), KLPC_BENCH_ELEM(p##7),			\
	  KLPC_BENCH_ELEM(p##8), KLPC_BENCH_ELEM(p##9) }

#define KLPC_BENCH_TABLE100(p)						\
	{ KLPC_BENCH_TABLE10(p##0), KLPC_BENCH_TABLE10(p##1),		\
	  KLPC_BENCH_TABLE10(p##2), KLPC_BENCH_TABLE10(p##3),		\
	  KLPC_BENCH_TABLE10(p##4), KLPC_BENCH_TABLE10(p##5),		\
	  KLPC_BENCH_TABLE10(p##6), KLPC_BENCH_TABLE10(p##7),		\
	  KLPC_BENCH_TABLE10(p##8), KLPC_BENCH_TABLE10(p##9) }

#define KLPC_BENCH_TABLE						\
	{ KLPC_BENCH_TABLE100(0), KLPC_BENCH_TABLE100(1),		\
	  KLPC_BENCH_TABLE100(2), KLPC_BENCH_TABLE100(3),		\
	  KLPC_BENCH_TABLE100(4), KLPC_BENCH_TABLE100(5),		\
	  KLPC_BENCH_TABLE100(6), KLPC_BENCH_TABLE100(7),		\
	  KLPC_BENCH_TABLE100(8), KLPC_BENCH_TABLE100(9) }

/* the per-call timer calls the first function */
int klpc_bench_fn_000(int x);

#endif /* _KLPC_BENCH_H */
