// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Types: an aggregate's members read from its DIEs, for dwarf.c (which
 * keeps each answer in the index): a member by dotted path, an anonymous
 * struct or union looked inside as C finds its members; the member's
 * type described (size, kind, sign; an array's size where libdw cannot
 * tell it) and a bitfield placed, in DWARF 5's encoding or DWARF 2-4's.
 * Each aggregate's direct members are listed once (a member table), for a
 * layout asks for dozens of members of one struct.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "types/dwarf_internal.h"
#include "types/types.h"

bool idd_dwm_is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

static Dwarf_Die *peel(Dwarf_Die *die, Dwarf_Die *out)
{
	if (dwarf_peel_type(die, out) != 0)
		return NULL;
	return out;
}

bool idd_dwm_member_type(Dwarf_Die *member, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;

	if (!dwarf_attr_integrate(member, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &type))
		return false;
	return peel(&type, out) != NULL;
}

static uint64_t member_location(Dwarf_Die *member)
{
	Dwarf_Attribute attr;
	Dwarf_Word off = 0;

	/* Union members and the first member may carry no location. */
	if (dwarf_attr(member, DW_AT_data_member_location, &attr))
		dwarf_formudata(&attr, &off);
	return off;
}

/*
 * An array's size where libdw cannot tell it: a partial unit dwz made has
 * no DW_AT_language, and without one libdw knows no default lower bound
 * (dwarf_aggregate_size fails on a char[32] there). Such a unit only holds
 * what the units importing it share, C units of vmlinux: the bound C's, 0.
 */
static bool array_size(Dwarf_Die *array, Dwarf_Word *size, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die elem, sub;
	Dwarf_Word n = 1, each;

	if (depth > 8 || !dwarf_attr_integrate(array, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &elem) || !peel(&elem, &elem))
		return false;
	if (dwarf_aggregate_size(&elem, &each) != 0 &&
	    (dwarf_tag(&elem) != DW_TAG_array_type ||
	     !array_size(&elem, &each, depth + 1)))
		return false;
	if (dwarf_child(array, &sub) != 0)
		return false;
	do {
		Dwarf_Word count, lower = 0, upper;

		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&sub, DW_AT_count, &attr)) {
			if (dwarf_formudata(&attr, &count) != 0)
				return false;
		} else if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) &&
			   dwarf_formudata(&attr, &upper) == 0) {
			if (dwarf_attr(&sub, DW_AT_lower_bound, &attr) &&
			    dwarf_formudata(&attr, &lower) != 0)
				return false;
			if (upper + 1 < lower)
				return false;
			count = upper + 1 - lower;
		} else {
			count = 0; /* a flexible array member */
		}
		n *= count;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	*size = n * each;
	return true;
}

static void describe_type(struct idd_dwarf *types, Dwarf *dw,
			  Dwarf_Die *type, struct idd_member *out)
{
	Dwarf_Word size = 0;
	Dwarf_Attribute attr;
	Dwarf_Word enc;
	int tag = dwarf_tag(type);

	out->type = (uint64_t)idd_dwu_ref(dw, type);
	out->dwarf = types;
	if (dwarf_aggregate_size(type, &size) != 0 &&
	    (tag != DW_TAG_array_type || !array_size(type, &size, 0)))
		size = 0;
	out->size = size;
	switch (tag) {
	case DW_TAG_base_type:
		out->kind = IDD_KIND_INT;
		if (dwarf_attr(type, DW_AT_encoding, &attr) &&
		    dwarf_formudata(&attr, &enc) == 0)
			out->is_signed = enc == DW_ATE_signed ||
					 enc == DW_ATE_signed_char;
		break;
	case DW_TAG_enumeration_type:
		out->kind = IDD_KIND_INT;
		break;
	case DW_TAG_pointer_type:
		out->kind = IDD_KIND_PTR;
		if (!out->size)
			out->size = 8;
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		out->kind = IDD_KIND_STRUCT;
		break;
	case DW_TAG_array_type:
		out->kind = IDD_KIND_ARRAY;
		break;
	default:
		out->kind = IDD_KIND_OTHER;
	}
}

static void describe_bitfield(Dwarf_Die *member, struct idd_member *out,
			      const char *ident)
{
	Dwarf_Attribute attr;
	Dwarf_Word bits, dbo;

	if (!dwarf_attr(member, DW_AT_bit_size, &attr) ||
	    dwarf_formudata(&attr, &bits) != 0)
		return;
	out->bit_size = bits;
	if (dwarf_attr(member, DW_AT_data_bit_offset, &attr) &&
	    dwarf_formudata(&attr, &dbo) == 0) {
		out->offset += dbo / 8;
		out->bit_offset = dbo % 8;
		out->size = (out->bit_offset + bits + 7) / 8;
	} else if (dwarf_attr(member, DW_AT_bit_offset, &attr) &&
		   dwarf_formudata(&attr, &dbo) == 0) {
		/*
		 * DWARF 2-4 (gcc-10's, Linux 5.10's): bits from the most
		 * significant bit of a storage unit of DW_AT_byte_size (else
		 * the member type's size) at the member's location; a little-
		 * endian field starts at unit*8 - off - size, a big-endian at off.
		 */
		Dwarf_Word unit = out->size, lsb;

		if (dwarf_attr(member, DW_AT_byte_size, &attr))
			dwarf_formudata(&attr, &unit);
		if (!unit || unit > 16 || dbo + bits > unit * 8)
			return;
		lsb = ident[EI_DATA] == ELFDATA2MSB ? dbo : unit * 8 - dbo - bits;
		out->offset += lsb / 8;
		out->bit_offset = lsb % 8;
		out->size = (out->bit_offset + bits + 7) / 8;
	}
}

/* The member table of an aggregate, read on first use; NULL if none. */
static const struct idd_dwm_table *members_of(struct idd_dwm *m,
					      Dwarf_Die *agg)
{
	const void *at = agg->addr; /* one DIE's, whichever file it is in */
	struct idd_dwm_table *t;
	Dwarf_Die child;
	size_t cap = 0;

	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].agg == at)
			return &m->tables[i];
	if (m->ntables == IDD_DWM_TABLES)
		return NULL; /* full: the caller walks the DIEs */
	t = &m->tables[m->ntables];
	*t = (struct idd_dwm_table){ .agg = at };
	if (dwarf_child(agg, &child) == 0) {
		do {
			struct idd_dwm_entry e = { .die = child };

			if (dwarf_tag(&child) != DW_TAG_member)
				continue;
			e.name = dwarf_diename(&child);
			e.len = e.name ? strlen(e.name) : 0;
			if (!e.name &&
			    !(idd_dwm_member_type(&child, &e.type) &&
			      idd_dwm_is_aggregate(dwarf_tag(&e.type))))
				continue; /* nothing to find in it */
			e.loc = member_location(&child);
			if (t->n == cap) {
				struct idd_dwm_entry *grown =
					realloc(t->m, (cap ? 2 * cap : 32) *
							      sizeof(*grown));

				if (!grown) {
					free(t->m);
					return NULL;
				}
				t->m = grown;
				cap = cap ? 2 * cap : 32;
			}
			t->m[t->n++] = e;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	m->ntables++;
	return t;
}

static bool find_in(struct idd_dwm *m, Dwarf_Die *agg,
		    const char *name, size_t namelen, uint64_t base, int depth,
		    Dwarf_Die *found, uint64_t *off)
{
	const struct idd_dwm_table *t;
	Dwarf_Die child;

	if (depth > 8)
		return false;
	t = members_of(m, agg);
	if (t) {
		for (size_t i = 0; i < t->n; i++) {
			const struct idd_dwm_entry *e = &t->m[i];
			Dwarf_Die type = e->type;

			if (e->name) {
				if (e->len == namelen &&
				    !memcmp(e->name, name, namelen)) {
					*found = e->die;
					*off = base + e->loc;
					return true;
				}
			} else if (find_in(m, &type, name, namelen,
					   base + e->loc, depth + 1, found,
					   off)) {
				return true;
			}
		}
		return false;
	}
	if (dwarf_child(agg, &child) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		n = dwarf_diename(&child);
		if (n) {
			if (strlen(n) == namelen && !memcmp(n, name, namelen)) {
				*found = child;
				*off = base + member_location(&child);
				return true;
			}
		} else {
			Dwarf_Die type;

			if (idd_dwm_member_type(&child, &type) &&
			    idd_dwm_is_aggregate(dwarf_tag(&type)) &&
			    find_in(m, &type, name, namelen,
				    base + member_location(&child), depth + 1,
				    found, off))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

void idd_dwm_read(struct idd_dwm *m, struct idd_dwarf *types, Dwarf *dw,
		  Elf *elf, Dwarf_Die agg, const char *path,
		  struct idd_member *out)
{
	uint64_t offset = 0;

	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		Dwarf_Die member, type;
		uint64_t off;

		if (!find_in(m, &agg, p, len, offset, 0, &member, &off) ||
		    !idd_dwm_member_type(&member, &type))
			return;
		offset = off;
		if (!dot) {
			out->present = true;
			out->offset = offset;
			describe_type(types, dw, &type, out);
			describe_bitfield(&member, out, elf_getident(elf, 0));
			return;
		}
		if (!idd_dwm_is_aggregate(dwarf_tag(&type)))
			return;
		agg = type;
		p = dot + 1;
	}
}

void idd_dwm_free(struct idd_dwm *m)
{
	for (size_t i = 0; i < m->ntables; i++)
		free(m->tables[i].m);
}
