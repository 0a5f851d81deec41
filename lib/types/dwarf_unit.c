// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One unit of vmlinux DWARF looked through: its top-level entries for a
 * complete struct or union, an enum, an enumerator, a function by name;
 * the unit covering a code address (.debug_aranges); and, for a session
 * without an index (dwarf_index.c), the walks of every unit that the index
 * otherwise spares. dwarf.c asks; the index remembers the answers.
 *
 * DWARF compressed by dwz keeps what several units (or files) share in
 * partial units, in vmlinux or in its supplementary file (dwarf_alt.c),
 * each unit importing them (DW_TAG_imported_unit) where its own entries
 * stood: a unit's top-level entries are looked through with its imports
 * in their place, so a name is found in the same order as in the DWARF
 * dwz was given.
 */
#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "core/bytes.h"
#include "types/dwarf_internal.h"
#include "types/types.h"

bool idd_dwu_is_complete(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return !dwarf_attr(die, DW_AT_declaration, &attr) && dwarf_haschildren(die);
}

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

/*
 * The partial units one lookup has been through: dwz's imports form a DAG
 * (a unit may be imported along several paths), each looked through once.
 */
#define SEEN_MAX 256
#define IMPORT_DEPTH 16

struct entries {
	bool (*fn)(Dwarf_Die *die, void *arg); /* true: found, stop */
	void *arg;
	const void *seen[SEEN_MAX];
	size_t nseen;
};

static bool seen_before(struct entries *w, const Dwarf_Die *unit)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i] == unit->addr)
			return true;
	if (w->nseen < SEEN_MAX)
		w->seen[w->nseen++] = unit->addr;
	return false;
}

static bool each_entry(struct entries *w, Dwarf_Die *unit, int depth)
{
	Dwarf_Die die;

	if (depth > IMPORT_DEPTH || dwarf_child(unit, &die) != 0)
		return false;
	do {
		Dwarf_Attribute attr;
		Dwarf_Die imported;

		if (dwarf_tag(&die) != DW_TAG_imported_unit) {
			if (w->fn(&die, w->arg))
				return true;
		} else if (dwarf_attr(&die, DW_AT_import, &attr) &&
			   dwarf_formref_die(&attr, &imported) &&
			   !seen_before(w, &imported) &&
			   each_entry(w, &imported, depth + 1)) {
			return true;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

/* fn on each top-level entry of cudie, its imports' in their place. */
static bool unit_entries(Dwarf_Die *cudie, bool (*fn)(Dwarf_Die *, void *),
			 void *arg)
{
	struct entries w = { .fn = fn, .arg = arg };

	return each_entry(&w, cudie, 0);
}

struct named {
	const char *name;
	Dwarf_Die *out;
	int64_t *value;
};

static bool complete_aggregate(Dwarf_Die *die, void *arg)
{
	struct named *q = arg;
	const char *n;

	if (!is_aggregate_tag(dwarf_tag(die)))
		return false;
	n = dwarf_diename(die);
	if (!n || strcmp(n, q->name) || !idd_dwu_is_complete(die))
		return false;
	*q->out = *die;
	return true;
}

bool idd_dwu_struct(Dwarf_Die *cudie, const char *name, Dwarf_Die *out)
{
	struct named q = { .name = name, .out = out };

	return unit_entries(cudie, complete_aggregate, &q);
}

/*
 * Walk the CUs starting at *resume, wrapping around once, so that a run of
 * lookups for related structs tends to stay in the CU that had the last one.
 */
bool idd_dwu_walk_struct(Dwarf *dw, Dwarf_Off *resume, const char *name,
			 size_t *units, Dwarf_Die *out)
{
	Dwarf_Off start = *resume;

	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Off off = pass ? 0 : start, next;
		size_t hsize;

		while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL,
				    NULL) == 0) {
			Dwarf_Die cudie;

			if ((pass && off >= start) || (units && !*units))
				break;
			if (units)
				(*units)--;
			/* A partial unit is looked through where imported. */
			if (dwarf_offdie(dw, off + hsize, &cudie) &&
			    dwarf_tag(&cudie) != DW_TAG_partial_unit &&
			    idd_dwu_struct(&cudie, name, out)) {
				*resume = off;
				return true;
			}
			off = next;
		}
	}
	return false;
}

bool idd_dwu_unit_die(Dwarf *dw, Dwarf_Off off, Dwarf_Die *out)
{
	Dwarf_Off next;
	size_t hsize;

	return dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0 &&
	       dwarf_offdie(dw, off + hsize, out) != NULL;
}

/*
 * The unit covering a code address, from .debug_aranges read directly:
 * one pass over a small section instead of touching every unit header of
 * .debug_info (libdw's own arange table maps far more).
 */
bool idd_dwu_aranges(Elf *elf, uint64_t addr, Dwarf_Off *cu)
{
	Elf_Scn *scn = idd_elf_section(elf, ".debug_aranges");
	Elf_Data *data = NULL;
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return false;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return false;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return false;
	const uint8_t *p = data->d_buf, *end = p + data->d_size;
	/* in vmlinux's byte order (a big-endian kernel's: s390x) */
	const char *ident = elf_getident(elf, NULL);
	bool big = ident && ident[EI_DATA] == ELFDATA2MSB;

	while (p + 12 <= end) {
		const uint8_t *set = p, *set_end;
		uint64_t len, info;
		bool dwarf64 = false;
		unsigned asize, tuple;

		len = idd_load(p, 4, big);
		p += 4;
		if (len == 0xffffffffu) {
			if (p + 8 > end)
				return false;
			len = idd_load(p, 8, big);
			p += 8;
			dwarf64 = true;
		}
		set_end = p + len;
		if (len > (uint64_t)(end - p) || len < 8)
			return false;
		p += 2; /* version */
		info = idd_load(p, dwarf64 ? 8 : 4, big);
		p += dwarf64 ? 8 : 4;
		asize = *p++;
		p++; /* segment selector size */
		if (asize != 8)
			return false;
		tuple = 2 * asize;
		/* Tuples start aligned to their size from the set's start. */
		p = set + (((size_t)(p - set) + tuple - 1) / tuple) * tuple;
		for (; p + tuple <= set_end; p += tuple) {
			uint64_t start = idd_load(p, 8, big),
				 length = idd_load(p + 8, 8, big);

			if (!start && !length)
				break;
			if (addr >= start && addr - start < length) {
				*cu = info;
				return true;
			}
		}
		p = set_end;
	}
	return false;
}


/* Without an index: the first unit by name, from the unit headers. */
bool idd_dwu_walk_unit(Dwarf *dw, const char *suffix, Dwarf_Off *cu)
{
	size_t slen = strlen(suffix);
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		const char *name;

		if (dwarf_offdie(dw, off + hsize, &cudie) &&
		    (name = dwarf_diename(&cudie))) {
			size_t nlen = strlen(name);

			if (nlen >= slen && !strcmp(name + nlen - slen, suffix)) {
				*cu = off;
				return true;
			}
		}
		off = next;
	}
	return false;
}


/*
 * An enumerator's value. libdw sign-extends DW_FORM_data1/2/4, so in an
 * enum whose underlying type is unsigned (7.3's inode_state_flags_enum:
 * I_WILL_FREE = 128 is data1 0x80) the value is read unsigned.
 */
bool idd_dwu_enumerator_value(Dwarf_Die *type, Dwarf_Die *e, int64_t *out)
{
	Dwarf_Attribute attr, tattr;
	Dwarf_Die base;
	Dwarf_Word enc, u;
	Dwarf_Sword v;

	if (!dwarf_attr(e, DW_AT_const_value, &attr))
		return false;
	if (dwarf_attr(type, DW_AT_type, &tattr) &&
	    dwarf_formref_die(&tattr, &base) &&
	    dwarf_attr_integrate(&base, DW_AT_encoding, &tattr) &&
	    dwarf_formudata(&tattr, &enc) == 0 &&
	    (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char) &&
	    dwarf_formudata(&attr, &u) == 0) {
		*out = (int64_t)u;
		return true;
	}
	if (dwarf_formsdata(&attr, &v) != 0)
		return false;
	*out = v;
	return true;
}

static bool named_enumerator(Dwarf_Die *die, void *arg)
{
	struct named *q = arg;
	Dwarf_Die e;

	if (dwarf_tag(die) != DW_TAG_enumeration_type ||
	    dwarf_child(die, &e) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&e);

		if (n && !strcmp(n, q->name) &&
		    idd_dwu_enumerator_value(die, &e, q->value))
			return true;
	} while (dwarf_siblingof(&e, &e) == 0);
	return false;
}

/* One namespace of enumerators per unit: enum_hint is not needed. */
bool idd_dwu_enumerator(Dwarf_Die *cudie, const char *name, int64_t *value)
{
	struct named q = { .name = name, .value = value };

	return unit_entries(cudie, named_enumerator, &q);
}

/* The first enum of that name with enumerators among the unit's entries. */
static bool named_enum(Dwarf_Die *die, void *arg)
{
	struct named *q = arg;
	const char *n = dwarf_diename(die);
	Dwarf_Die e;

	if (dwarf_tag(die) != DW_TAG_enumeration_type || !n ||
	    strcmp(n, q->name) || dwarf_child(die, &e) != 0)
		return false;
	*q->out = *die;
	return true;
}

/*
 * A function the unit defines, inlined or not: a subprogram among its
 * unit's top-level entries (an inlined static one is there as the
 * abstract instance its inlined copies point to).
 */
static bool named_function(Dwarf_Die *die, void *arg)
{
	struct named *q = arg;
	const char *n;

	return dwarf_tag(die) == DW_TAG_subprogram &&
	       (n = dwarf_diename(die)) && !strcmp(n, q->name);
}

bool idd_dwu_function(Dwarf_Die *cudie, const char *name, int64_t *unused)
{
	struct named q = { .name = name };

	(void)unused;
	return unit_entries(cudie, named_function, &q);
}

bool idd_dwu_enum(Dwarf_Die *cudie, const char *enum_name, int64_t *at)
{
	Dwarf_Die die;
	struct named q = { .name = enum_name, .out = &die };

	if (!unit_entries(cudie, named_enum, &q))
		return false;
	*at = idd_dwu_ref(dwarf_cu_getdwarf(cudie->cu), &die);
	return true;
}

int64_t idd_dwu_ref(Dwarf *main, Dwarf_Die *die)
{
	int64_t off = (int64_t)dwarf_dieoffset(die);

	return dwarf_cu_getdwarf(die->cu) == main ? off : off | IDD_DWU_ALT;
}

bool idd_dwu_at(Dwarf *main, int64_t ref, Dwarf_Die *out)
{
	Dwarf *dw = main;

	if (ref < 0)
		return false;
	if (ref & IDD_DWU_ALT) {
		dw = dwarf_getalt(main);
		ref &= ~IDD_DWU_ALT;
	}
	return dw && dwarf_offdie(dw, (Dwarf_Off)ref, out) != NULL;
}

