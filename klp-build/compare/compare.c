// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - klpc-compare: what a diff changed in one translation unit
 *
 *	klpc-compare ORIG.o PATCHED.o
 *
 * prints one line per function or data object the patch module needs:
 *
 *	changed NAME	a function whose code changed; NAME is its symbol in
 *			the running kernel (the original's: a clone's number
 *			may differ in the patched object)
 *	copied NAME	a changed function ftrace cannot redirect (an
 *			out-of-line copy of a static inline function): the
 *			module carries it, and its callers are "changed"
 *	new NAME	a function the diff adds
 *	new-data NAME	a writable data object the diff adds
 *	twin NAME ORIG	the patched object's NAME is the original's ORIG
 *			(gcc numbered a clone or static local differently):
 *			new code that uses NAME must use the kernel's ORIG
 *
 * (read-only data is copied wherever new code uses it, and not listed),
 * and nothing when the diff changed no code of this unit.  What cannot be
 * live-patched is refused, exit 1, one line naming the file and symbol:
 * a changed initializer or layout of existing data, a changed __init or
 * __exit function, a changed function ftrace cannot redirect, a static
 * local that cannot be matched with the running kernel's instance.
 *
 * The diff's annotations (annotate.c) steer this: an ignored function or
 * section's changes are left out (the running code and data stay; a data
 * object whose size changed is still refused, as new code would use it
 * with the new layout); a forced function is patched even when only
 * digits in its strings changed, or it uses a static local without a twin
 * (a fresh one in the module).  Nothing overrides the refusals of what
 * cannot work: __init/__exit, noinstr or entry code, a notrace global,
 * changed data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

static const char *patched_path;

static const char digits_only[] =
	"only digits in its strings changed (a moved __LINE__?): KPATCH_FORCE_UNSAFE() patches it";

static const char ignored_size[] =
	"ignored, but its size changed: new code would use the old object as the new";

static int refuse(const struct cmp_sym *s, const char *why)
{
	fprintf(stderr, "klpc-compare: %s: %s: %s\n", patched_path, s->name,
		why);
	return -1;
}

static bool in_section(const struct cmp_obj *o, const struct cmp_sym *s,
		       const char *prefix)
{
	return !strncmp(o->elf.secs[s->sec].name, prefix, strlen(prefix));
}

/* foo.cold (or foo.cold.3) is a part of foo that foo jumps to */
static struct cmp_sym *cold_parent(struct cmp_obj *o, const struct cmp_sym *s)
{
	const char *cold = strstr(s->name, ".cold");
	size_t len, i;

	if (!cold)
		return NULL;
	len = cold - s->name;
	for (i = 0; i < o->nr; i++)
		if (cmp_is_func(&o->syms[i]) &&
		    !strncmp(o->syms[i].name, s->name, len) &&
		    o->syms[i].name[len] == '\0')
			return &o->syms[i];
	return NULL;
}

/* read-only data can be copied: new code may use a copy of its own */
static bool writable(const struct cmp_obj *o, const struct cmp_sym *s)
{
	return kelf_sec_writable(&o->elf, s->sec);
}

/* sections whose code must never be redirected, nor its callers' */
static bool never_patched(const struct cmp_obj *o, const struct cmp_sym *s)
{
	return in_section(o, s, ".noinstr.text") ||
	       in_section(o, s, ".entry.text") ||
	       in_section(o, s, ".cpuidle.text");
}

static int mark_changed(struct cmp_obj *orig, struct cmp_obj *patched,
			struct cmp_sym *s, int depth);

/*
 * Every function of the unit that uses @s is patched too, so that it uses
 * the patched copy of @s: a changed copy of read-only data, or a changed
 * function that ftrace cannot redirect (the kernel's inline implies
 * notrace, so an out-of-line copy of a static inline function has no
 * fentry call).  A global one may have users in other units, which this
 * unit's objects cannot show: refused.
 */
static int mark_users(struct cmp_obj *orig, struct cmp_obj *patched,
		      struct cmp_sym *s, int depth, const char *why)
{
	struct cmp_sym *users[64];
	size_t n, i;
	int ret = 0;

	if (ELF64_ST_BIND(s->sym->st_info) != STB_LOCAL)
		return refuse(s, why);
	n = cmp_users(patched, s, users, 64);
	if (n == 64 || depth > 8)
		return refuse(s, "changed, and used by too many functions to patch them all");
	for (i = 0; i < n; i++)
		if (users[i]->state == CMP_SAME)
			ret |= mark_changed(orig, patched, users[i], depth + 1);
	return ret;
}

/* a function to redirect: possible unless init, exit or untraceable */
static int mark_changed(struct cmp_obj *orig, struct cmp_obj *patched,
			struct cmp_sym *s, int depth)
{
	struct cmp_sym *parent;

	if (s->ignored)
		return 0;	/* the running code stays */
	s->state = CMP_CHANGED;
	if (strstr(s->name, ".cold")) {
		parent = cold_parent(patched, s);
		if (!parent || !parent->twin)
			return refuse(s, "a changed .cold part whose function cannot be found");
		s->state = CMP_SAME;
		return parent->state == CMP_SAME ?
		       mark_changed(orig, patched, parent, depth) : 0;
	}
	if (in_section(orig, s->twin, ".init.") ||
	    in_section(orig, s->twin, ".exit."))
		return refuse(s, "an __init or __exit function changed: it cannot be live-patched");
	if (never_patched(orig, s->twin))
		return refuse(s, "noinstr or entry code changed: it cannot be live-patched");
	if (cmp_traceable(orig, s->twin))
		return 0;
	/* patched through its callers, which then call the new copy */
	s->state = CMP_NEW;
	return mark_users(orig, patched, s, depth,
			  "changed, but ftrace cannot redirect it (notrace) and it is global");
}

/* changed data: read-only copies are fine if the users are patched too */
static int changed_data(struct cmp_obj *orig, struct cmp_obj *patched,
			struct cmp_sym *s)
{
	if (writable(patched, s))
		return refuse(s, "the initializer or layout of existing data changed");
	s->state = CMP_NEW;
	return mark_users(orig, patched, s, 0,
			  "changed read-only data that other units may use");
}

/*
 * Static locals the kernel's macros make for their own bookkeeping: a
 * lock's lockdep class (__key), WARN_ONCE's and printk_once's flags, a
 * ratelimit's state, a dynamic debug descriptor.  When the running
 * kernel's instance cannot be told, a fresh one in the patch module only
 * costs a second warning or a fresh lockdep class: taken as new data
 * rather than refused, as kpatch does.  Their contents differ when only
 * a line number moved (a descriptor's, a WARN's): the kernel's instance
 * stays in use then.
 */
static bool housekeeping(const struct cmp_sym *s)
{
	static const char *const keys[] = {
		"__key.", "__warned.", "__already_done.", "__print_once.",
		"_rs.", "descriptor.", "__UNIQUE_ID_ddebug",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strncmp(s->key, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/*
 * An ignored change: the running kernel's function or data stays.  Data
 * whose size changed stays refused: the patched code that uses it would
 * use the kernel's instance with the new layout.
 */
static int ignore_change(struct cmp_sym *s)
{
	if (!cmp_is_func(s) && s->sym->st_size != s->twin->sym->st_size)
		return refuse(s, ignored_size);
	s->state = CMP_SAME;
	return 0;
}

/*
 * A static local whose running instance cannot be told is refused unless
 * each function that uses it is forced (a fresh instance in the module:
 * the author says the old and the new code need not share it) or
 * ignored (the running code stays, with the running instance).
 */
static bool fresh_local_allowed(struct cmp_obj *patched, struct cmp_sym *s)
{
	struct cmp_sym *users[64];
	size_t n, i, ignored = 0;

	n = cmp_users(patched, s, users, 64);
	if (!n || n == 64)
		return false;
	for (i = 0; i < n; i++) {
		if (!users[i]->forced && !users[i]->ignored)
			return false;
		ignored += users[i]->ignored;
	}
	if (ignored == n)
		s->state = CMP_SAME;	/* no new code uses it */
	return true;
}

/* decide each patched symbol's state; refuse what cannot be patched */
static int classify(struct cmp_obj *orig, struct cmp_obj *patched)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < patched->nr; i++) {
		struct cmp_sym *s = &patched->syms[i];

		if (!s->twin)
			s->state = CMP_NEW;
		else if (!cmp_same(orig, s->twin, patched, s))
			s->state = CMP_CHANGED;
		if (s->state == CMP_CHANGED && cmp_is_func(s))
			s->digits = cmp_same_but_digits(orig, s->twin, patched, s);
	}
	for (i = 0; i < patched->nr; i++) {
		struct cmp_sym *s = &patched->syms[i];

		if (s->state == CMP_CHANGED && s->ignored)
			ret |= ignore_change(s);
		else if (s->state == CMP_CHANGED && !cmp_is_func(s) &&
			 housekeeping(s))
			s->state = CMP_SAME;	/* a line number moved */
		else if (s->state == CMP_CHANGED && !cmp_is_func(s))
			ret |= changed_data(orig, patched, s);
		else if (s->state == CMP_CHANGED && s->digits && !s->forced)
			ret |= refuse(s, digits_only);
		else if (s->state == CMP_CHANGED)
			ret |= mark_changed(orig, patched, s, 0);
		else if (s->ambiguous && writable(patched, s) &&
			 !housekeeping(s) && !fresh_local_allowed(patched, s))
			ret |= refuse(s, "a static local with no twin in the running kernel");
	}
	return ret;
}

static void report(const struct cmp_obj *patched)
{
	size_t i;

	for (i = 0; i < patched->nr; i++) {
		const struct cmp_sym *s = &patched->syms[i];

		if (s->twin && strcmp(s->name, s->twin->name))
			printf("twin %s %s\n", s->name, s->twin->name);
		if (s->state == CMP_CHANGED)
			printf("changed %s\n", s->twin->name);
		else if (s->state == CMP_NEW && !cmp_is_func(s) &&
			 !writable(patched, s))
			continue;	/* copied where new code uses it */
		else if (s->state == CMP_NEW && s->twin)
			printf("%s %s\n", cmp_is_func(s) ? "copied" : "copied-data",
			       s->name);
		else if (s->state == CMP_NEW)
			printf("%s %s\n", cmp_is_func(s) ? "new" : "new-data",
			       s->name);
	}
}

int main(int argc, char **argv)
{
	struct cmp_obj orig, patched;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: klpc-compare ORIG.o PATCHED.o\n");
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	kelf_prog = "klpc-compare";
	patched_path = argv[2];
	if (cmp_open(&orig, argv[1]) || cmp_open(&patched, argv[2]))
		return 1;
	cmp_correlate(&orig, &patched);
	ret = cmp_annotations(&patched) ?: classify(&orig, &patched);
	if (!ret)
		report(&patched);
	cmp_close(&orig);
	cmp_close(&patched);
	return ret ? 1 : 0;
}
