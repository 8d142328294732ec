// SPDX-License-Identifier: GPL-2.0
/*
 * diff.c - is a function (or data object) the same in both objects?
 *
 * Same bytes and same relocations.  A relocation is compared by what it
 * reaches: a symbol by its name with gcc's numbers dropped (the clone
 * foo.isra.0 may be foo.isra.1 in the other build), a mergeable constant
 * or string by its contents (a string literal's offset moves when another
 * is added or removed), anything else by section name and addend.
 *
 * One byte difference is tolerated: the line number that a call such as
 * might_sleep() passes as an immediate (mov $LINE, %esi) before calling
 * the function that reports it.  Every other difference counts: a real
 * fix may change nothing but a constant, and one left unpatched silently
 * keeps the bug.
 */
#include <string.h>

#include "compare.h"

/* the functions that take __LINE__ as an argument, for their reports */
static const char *const line_takers[] = {
	"__might_sleep", "__might_resched", "__might_fault", "__cant_sleep",
	"__cant_migrate", "lockdep_rcu_suspicious", NULL,
};

/* the relocations in [start, end) of @sec: *first and the count */
static size_t relas_in(const struct kelf *k, size_t sec, GElf_Addr start,
		       GElf_Addr end, const Elf64_Rela **first)
{
	const Elf64_Rela *r = NULL;
	size_t nr, i, n = 0;

	r = kelf_relas_of(k, sec, &nr);
	*first = NULL;
	for (i = 0; i < nr; i++) {
		if (r[i].r_offset < start || r[i].r_offset >= end)
			continue;
		if (!n)
			*first = &r[i];
		n++;
	}
	return n;
}

static const Elf64_Sym *rela_sym(const struct kelf *k, const Elf64_Rela *r)
{
	size_t nr;
	const Elf64_Sym *syms = kelf_syms(k, &nr);
	size_t idx = ELF64_R_SYM(r->r_info);

	return idx < nr ? &syms[idx] : NULL;
}

/* strcmp() of two names with the digits after their dots dropped */
static bool same_key(const char *a, const char *b)
{
	while (*a || *b) {
		if (*a == '.' && *b == '.') {
			a++;
			b++;
			while (*a >= '0' && *a <= '9')
				a++;
			while (*b >= '0' && *b <= '9')
				b++;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return true;
}

static bool pc_relative(unsigned int type)
{
	return type == R_X86_64_PC32 || type == R_X86_64_PLT32;
}

/* cmp_same_but_digits() is comparing: strings may differ in digits */
static bool ignore_digits;

/* @a and @b (@len bytes each) differ, if at all, only in decimal digits */
static bool same_but_digits(const unsigned char *a, const unsigned char *b,
			    size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i] && !(a[i] >= '0' && a[i] <= '9' &&
				      b[i] >= '0' && b[i] <= '9'))
			return false;
	return true;
}

/* what a relocation into a mergeable section reaches: its bytes */
static bool same_merged(const struct kelf_sec *sa, GElf_Sxword offa,
			const struct kelf_sec *sb, GElf_Sxword offb)
{
	size_t la, lb;

	if (offa < 0 || offb < 0 || (size_t)offa >= sa->size ||
	    (size_t)offb >= sb->size)
		return offa == offb;
	if (sa->sh.sh_flags & SHF_STRINGS) {
		la = strnlen((char *)sa->data + offa, sa->size - offa);
		lb = strnlen((char *)sb->data + offb, sb->size - offb);
	} else {
		la = sa->sh.sh_entsize ? sa->sh.sh_entsize : 1;
		lb = sb->sh.sh_entsize ? sb->sh.sh_entsize : 1;
		if ((size_t)offa + la > sa->size || (size_t)offb + lb > sb->size)
			return false;
	}
	if (la != lb)
		return false;
	if (ignore_digits && (sa->sh.sh_flags & SHF_STRINGS))
		return same_but_digits(sa->data + offa, sb->data + offb, la);
	return !memcmp(sa->data + offa, sb->data + offb, la);
}

/*
 * A local label gas kept (.LC26) in a mergeable section, or its section
 * symbol: both name a string or constant by where it is, which moves.
 */
static bool merged_label(const struct kelf *k, const Elf64_Sym *s)
{
	unsigned int type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_SECTION ||
		(type == STT_NOTYPE && ELF64_ST_BIND(s->st_info) == STB_LOCAL)) &&
	       s->st_shndx < k->nsec &&
	       (k->secs[s->st_shndx].sh.sh_flags & SHF_MERGE);
}

/* the function or data object @o lists for symbol @sym, if any */
static const struct cmp_sym *listed(const struct cmp_obj *o,
				    const Elf64_Sym *sym)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (o->syms[i].sym == sym)
			return &o->syms[i];
	return NULL;
}

/*
 * Two named symbols are the same target when they are twins (a static
 * local renumbered by gcc is still the same variable, and two static
 * locals of one name are not), or, for what the objects do not define,
 * when their names are.
 */
static bool same_named(const struct cmp_obj *a, const Elf64_Sym *sa,
		       const struct cmp_obj *b, const Elf64_Sym *sb)
{
	const struct cmp_sym *ca = listed(a, sa), *cb = listed(b, sb);

	if (ELF64_ST_TYPE(sa->st_info) != ELF64_ST_TYPE(sb->st_info))
		return false;
	if (ca && cb)
		return ca->twin == cb;
	if (ca || cb)
		return false;
	return same_key(kelf_sym_name(&a->elf, sa), kelf_sym_name(&b->elf, sb));
}

/* the function or data object of @o in section @sec that covers @off */
static const struct cmp_sym *covering(const struct cmp_obj *o, size_t sec,
				      GElf_Sxword off)
{
	size_t i;

	for (i = 0; i < o->nr; i++) {
		const Elf64_Sym *s = o->syms[i].sym;

		if (o->syms[i].sec == sec && off >= (GElf_Sxword)s->st_value &&
		    off < (GElf_Sxword)(s->st_value + (s->st_size ?: 1)))
			return &o->syms[i];
	}
	return NULL;
}

/*
 * Two references into a section by its symbol, at @offa and @offb:
 * the same place of twins (a report-once flag whose neighbour in
 * .data.once is new moves, and is the same flag), else the same offset.
 */
static bool same_place(const struct cmp_obj *oa, size_t seca, GElf_Sxword offa,
		       const struct cmp_obj *ob, size_t secb, GElf_Sxword offb)
{
	const struct cmp_sym *ca = covering(oa, seca, offa);
	const struct cmp_sym *cb = covering(ob, secb, offb);

	if (!ca || !cb || (!ca->twin && !cb->twin))
		return offa == offb;
	return ca->twin == cb &&
	       offa - (GElf_Sxword)ca->sym->st_value ==
	       offb - (GElf_Sxword)cb->sym->st_value;
}

/*
 * Relocation @ra of section @a_sec (in @oa) and @rb of @b_sec (in @ob)
 * reach the same: a twin, a string of the same text, the same place.
 */
static bool same_target(const struct cmp_obj *oa, size_t a_sec,
			const Elf64_Rela *ra, const struct cmp_obj *ob,
			size_t b_sec, const Elf64_Rela *rb)
{
	const struct kelf *a = &oa->elf, *b = &ob->elf;
	unsigned int type = ELF64_R_TYPE(ra->r_info);
	const Elf64_Sym *sa = rela_sym(a, ra), *sb = rela_sym(b, rb);
	const struct kelf_sec *seca, *secb;
	GElf_Sxword offa, offb;

	if (!sa || !sb || type != ELF64_R_TYPE(rb->r_info))
		return false;
	if ((ELF64_ST_TYPE(sa->st_info) != STT_SECTION ||
	     ELF64_ST_TYPE(sb->st_info) != STT_SECTION) &&
	    (!merged_label(a, sa) || !merged_label(b, sb)))
		return ra->r_addend == rb->r_addend &&
		       same_named(oa, sa, ob, sb);
	if (sa->st_shndx >= a->nsec || sb->st_shndx >= b->nsec)
		return false;
	seca = &a->secs[sa->st_shndx];
	secb = &b->secs[sb->st_shndx];
	if (!same_key(seca->name, secb->name))
		return false;
	/* a label's offset is its value (a section symbol's is 0) */
	offa = sa->st_value + kelf_rela_target(a, a_sec, ra);
	offb = sb->st_value + kelf_rela_target(b, b_sec, rb);
	if (!(seca->sh.sh_flags & SHF_MERGE))
		return same_place(oa, sa->st_shndx, offa, ob, sb->st_shndx, offb);
	return same_merged(seca, offa, secb, offb);
}

/* a named function of line_takers[] is called within 32 bytes of @off */
static bool line_taker_follows(const struct kelf *k, const Elf64_Rela *r,
			       size_t nr, GElf_Addr off)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		const Elf64_Sym *s = rela_sym(k, &r[i]);

		if (r[i].r_offset <= off || r[i].r_offset > off + 32 || !s ||
		    !pc_relative(ELF64_R_TYPE(r[i].r_info)))
			continue;
		for (j = 0; line_takers[j]; j++)
			if (!strcmp(kelf_sym_name(k, s), line_takers[j]))
				return true;
	}
	return false;
}

/*
 * Do the bytes @a and @b (@len each, at @start in the section) differ only
 * in the immediates of "mov $imm32, %reg" instructions that pass a line
 * number to a line_takers[] function?
 */
static bool line_numbers_only(const unsigned char *a, const unsigned char *b,
			      size_t len, const struct kelf *k,
			      const Elf64_Rela *r, size_t nr, GElf_Addr start)
{
	size_t i = 0, op;

	while (i < len) {
		if (a[i] == b[i]) {
			i++;
			continue;
		}
		/* the opcode (0xb8-0xbf) must stand 1-4 bytes before */
		for (op = i > 4 ? i - 4 : 0; op < i; op++)
			if ((a[op] & 0xf8) == 0xb8 && a[op] == b[op] &&
			    op + 5 <= len && i < op + 5 &&
			    !memcmp(a + op, b + op, i - op))
				break;
		if (op == i || !line_taker_follows(k, r, nr, start + op + 5))
			return false;
		i = op + 5;
	}
	return true;
}

/**
 * cmp_same() - does symbol @sa of @a have the same code (or data) and
 * relocations as @sb of @b?
 *
 * Return: true if the same, but for line numbers passed to reports.
 */
bool cmp_same(const struct cmp_obj *a, const struct cmp_sym *sa,
	      const struct cmp_obj *b, const struct cmp_sym *sb)
{
	GElf_Addr va = sa->sym->st_value, vb = sb->sym->st_value;
	size_t len = sa->sym->st_size, nra, nrb, i;
	const struct kelf_sec *seca = &a->elf.secs[sa->sec];
	const struct kelf_sec *secb = &b->elf.secs[sb->sec];
	const Elf64_Rela *ra, *rb;

	if (len != sb->sym->st_size ||
	    seca->sh.sh_type != secb->sh.sh_type)
		return false;
	nra = relas_in(&a->elf, sa->sec, va, va + len, &ra);
	nrb = relas_in(&b->elf, sb->sec, vb, vb + len, &rb);
	if (nra != nrb)
		return false;
	for (i = 0; i < nra; i++)
		if (ra[i].r_offset - va != rb[i].r_offset - vb ||
		    !same_target(a, sa->sec, &ra[i], b, sb->sec, &rb[i]))
			return false;
	if (seca->sh.sh_type == SHT_NOBITS)
		return true;
	if (va + len > seca->size || vb + len > secb->size)
		return false;
	if (!memcmp(seca->data + va, secb->data + vb, len))
		return true;
	return cmp_is_func(sa) &&
	       line_numbers_only(seca->data + va, secb->data + vb, len,
				 &b->elf, rb, nrb, vb);
}

/**
 * cmp_traceable() - can ftrace redirect function @s of @o?
 *
 * It can when the compiler recorded its fentry call: a __mcount_loc entry
 * at its first byte.  notrace and noinstr functions have none.
 */
bool cmp_traceable(const struct cmp_obj *o, const struct cmp_sym *s)
{
	size_t loc = kelf_find(&o->elf, "__mcount_loc"), nr, i;
	const Elf64_Rela *r;

	if (!loc)
		return false;
	r = kelf_relas_of(&o->elf, loc, &nr);
	for (i = 0; r && i < nr; i++) {
		const Elf64_Sym *t = rela_sym(&o->elf, &r[i]);

		if (!t)
			continue;
		if (t == s->sym && r[i].r_addend == 0)
			return true;
		if (ELF64_ST_TYPE(t->st_info) == STT_SECTION &&
		    t->st_shndx == s->sec &&
		    (GElf_Addr)r[i].r_addend == s->sym->st_value)
			return true;
	}
	return false;
}

/**
 * cmp_same_but_digits() - would two differing functions be the same if
 * their strings' digits were ignored?
 *
 * A string that holds __LINE__ (a "file:line" message) changes when lines
 * are added above it; a string whose number a fix corrected changes the
 * same way.  The caller refuses such a function rather than guess.
 */
bool cmp_same_but_digits(const struct cmp_obj *a, const struct cmp_sym *sa,
			 const struct cmp_obj *b, const struct cmp_sym *sb)
{
	bool same;

	ignore_digits = true;
	same = cmp_same(a, sa, b, sb);
	ignore_digits = false;
	return same;
}
