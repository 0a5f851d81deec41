// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lookups in one BTF (vmlinux's or a module's): a member by dotted path,
 * its type described for the decoder, the enumerators of an enum.
 */
#include <stdlib.h>
#include <string.h>

#include "types/btf_internal.h"

/* Strip typedefs and qualifiers. */
uint32_t idd_btf_peel(const struct idd_btf *b, uint32_t id)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = idd_btf_type(b, id);

		if (!t || !(btf_is_typedef(t) || btf_is_mod(t)))
			return id;
		id = t->type;
	}
	return 0;
}

static void describe(struct idd_btf *b, uint32_t type, struct idd_member *out)
{
	const struct btf_type *t = idd_btf_type(b, type);
	__s64 size;

	out->btf = b;
	out->btf_type = type;
	out->kind = IDD_KIND_OTHER;
	if (!t)
		return;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		out->kind = IDD_KIND_INT;
		out->size = t->size;
		out->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		out->kind = IDD_KIND_INT;
		out->size = t->size;
		return;
	case BTF_KIND_PTR:
		out->kind = IDD_KIND_PTR;
		out->size = 8; /* BTF is only made for 64-bit kernels we read */
		return;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		out->kind = IDD_KIND_STRUCT;
		out->size = t->size;
		return;
	case BTF_KIND_ARRAY:
		out->kind = IDD_KIND_ARRAY;
		break;
	default:
		break;
	}
	size = b->lz ? idd_lazy_size(b->lz, type)
		     : idd_bpf.resolve_size(b->btf, type);
	out->size = size > 0 ? (uint64_t)size : 0;
}

/*
 * Member by name in an aggregate, looking into anonymous members. *budget
 * bounds the members looked at in all: a type that contains itself
 * anonymously must not make the search exponential.
 */
static bool find_member(struct idd_btf *b, uint32_t agg, const char *name,
			size_t len, uint64_t *bits, uint32_t *type,
			uint32_t *bitfield, int depth, unsigned *budget)
{
	const struct btf_type *t = idd_btf_type(b, agg);
	const struct btf_member *m;

	if (depth > 8 || !t || !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = idd_btf_str(b, m->name_off);
		uint64_t inner = 0;

		if (!*budget)
			return false;
		--*budget;
		if (n && *n) {
			if (strlen(n) == len && !memcmp(n, name, len)) {
				*bits += btf_member_bit_offset(t, i);
				*bitfield = btf_member_bitfield_size(t, i);
				*type = m->type;
				return true;
			}
			continue;
		}
		if (find_member(b, idd_btf_peel(b, m->type), name, len, &inner, type,
				bitfield, depth + 1, budget)) {
			*bits += btf_member_bit_offset(t, i) + inner;
			return true;
		}
	}
	return false;
}

static void member_once(struct idd_btf *b, const struct idd_struct *s,
			const char *path, struct idd_member *out)
{
	uint32_t type = s->btf_id, bitfield = 0;

	if (s->btf)
		b = s->btf; /* a module's struct: its split BTF */
	uint64_t bits = 0;
	unsigned budget = 1u << 16;

	memset(out, 0, sizeof(*out));
	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (!find_member(b, type, p, len, &bits, &type, &bitfield, 0,
				 &budget))
			return;
		type = idd_btf_peel(b, type);
		if (!idd_btf_type(b, type))
			return; /* void, or an id past the types */
		if (!dot)
			break;
		if (bitfield)
			return;
		p = dot + 1;
	}
	out->present = true;
	out->big_endian = b->big_endian;
	describe(b, type, out);
	if (bitfield) {
		out->bit_size = bitfield;
		out->bit_offset = bits % 8;
		out->size = (out->bit_offset + bitfield + 7) / 8;
	} else if (bits % 8) {
		out->present = false; /* no kernel member is placed so */
		return;
	}
	out->offset = bits / 8;
	/*
	 * Callers read members out of a buffer of the struct's size: a
	 * member outside it is corrupt BTF (the dump is untrusted input).
	 */
	if (out->size > s->size || out->offset > s->size - out->size)
		memset(out, 0, sizeof(*out));
}

void idd_btf_types_member(struct idd_btf *b, const struct idd_struct *s,
			  const char *path, struct idd_member *out)
{
	member_once(b, s, path, out);
	if (idd_btf_settle(s->btf ? s->btf : b))
		member_once(b, s, path, out);
}

/* Each enumerator of enum type id, its value signed as the enum says. */
static void each_enumerator(const struct idd_btf *b, uint32_t id,
			    idd_enumerator_fn fn, void *arg)
{
	const struct btf_type *t = idd_btf_type(b, id);
	bool sign = t && btf_kflag(t);

	if (!t)
		return;
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (uint32_t i = 0; i < btf_vlen(t); i++, e++)
			fn(idd_btf_str(b, e->name_off),
			   sign ? (int64_t)e->val : (int64_t)(uint32_t)e->val,
			   arg);
	} else if (btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (uint32_t i = 0; i < btf_vlen(t); i++, e++)
			fn(idd_btf_str(b, e->name_off),
			   (int64_t)btf_enum64_value(e), arg);
	}
}

/*
 * Read on demand: enum id and its enumerators' names copied, before any is
 * told to a caller (who cannot take back what a failed read gave it).
 */
static bool enum_readable(struct idd_btf *b, uint32_t id)
{
	const struct btf_type *t = idd_btf_type(b, id);

	if (t && btf_is_enum(t))
		for (uint32_t i = 0; i < btf_vlen(t); i++)
			idd_btf_str(b, btf_enum(t)[i].name_off);
	else if (t && btf_is_enum64(t))
		for (uint32_t i = 0; i < btf_vlen(t); i++)
			idd_btf_str(b, btf_enum64(t)[i].name_off);
	return !b->lz || !b->lz->failed;
}

bool idd_btf_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			 void *arg)
{
	const struct btf_type *t;

	if (m->btf && m->btf->lz && !enum_readable(m->btf, m->btf_type))
		idd_btf_settle(m->btf);
	t = idd_btf_type(m->btf, m->btf_type);

	if (!t || !btf_is_any_enum(t))
		return false;
	each_enumerator(m->btf, m->btf_type, fn, arg);
	return true;
}

bool idd_btf_enum(struct idd_btf *b, const char *enum_name,
		  idd_enumerator_fn fn, void *arg)
{
	uint32_t id = idd_btf_lookup(b, enum_name, 1);

	if (idd_btf_settle(b))
		id = idd_btf_lookup(b, enum_name, 1);
	if (b->lz && id && !enum_readable(b, id)) {
		idd_btf_whole(b);
		id = idd_btf_lookup(b, enum_name, 1);
	}

	if (!id)
		return false;
	each_enumerator(b, id, fn, arg);
	return true;
}

struct find_enumerator {
	const char *name;
	int64_t value;
	bool found;
};

static void match_enumerator(const char *name, int64_t value, void *arg)
{
	struct find_enumerator *f = arg;

	if (!f->found && name && !strcmp(name, f->name)) {
		f->value = value;
		f->found = true;
	}
}

bool idd_btf_enumerator_in(struct idd_btf *b, const char *enum_name,
			   const char *name, int64_t *value)
{
	struct find_enumerator f = { .name = name };

	if (enum_name && idd_btf_enum(b, enum_name, match_enumerator, &f) &&
	    f.found) {
		*value = f.value;
		return true;
	}
	return idd_btf_enumerator(b, name, value);
}

bool idd_btf_enumerator(struct idd_btf *b, const char *name, int64_t *value)
{
	struct find_enumerator f = { .name = name };

	idd_btf_whole(b); /* every enum is looked at */

	for (size_t i = 0; i < b->nenums && !f.found; i++)
		each_enumerator(b, b->enums[i], match_enumerator, &f);
	if (f.found)
		*value = f.value;
	return f.found;
}

/* A member's byte offset in struct agg, or -1. */
int64_t idd_btf_member_offset(struct idd_btf *b, uint32_t agg,
			      const char *name)
{
	uint64_t bits = 0;
	uint32_t type = 0, bitfield = 0;
	unsigned budget = 1u << 12;

	if (!agg || !find_member(b, agg, name, strlen(name), &bits, &type,
				 &bitfield, 0, &budget) ||
	    bits % 8 || bitfield)
		return -1;
	return (int64_t)(bits / 8);
}

/*
 * struct name of b itself, not of its modules: no reading whole, no
 * module looked at (for the structs that find the modules' BTF).
 */
bool idd_btf_own_struct(struct idd_btf *b, const char *name,
			struct idd_struct *out)
{
	uint32_t id = idd_btf_lookup(b, name, 0);
	const struct btf_type *t = idd_btf_type(b, id);

	memset(out, 0, sizeof(*out));
	if (!t || t->size > STRUCT_MAX)
		return false;
	out->btf_id = id;
	out->size = t->size;
	return true;
}
