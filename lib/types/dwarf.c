// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Types: the layout of the few structs inodedump needs, found lazily in
 * vmlinux DWARF with libdw. No index of the whole file is ever built: a
 * struct is looked for CU by CU and the search stops at the first complete
 * definition; structs reachable through a member's pointer type are taken
 * from that type directly. A type source (source.h): the front door,
 * types.c, hands it a session's lookups when vmlinux is given.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/source.h"
#include "types/types.h"

#define CACHE_MAX 32

struct cached_struct {
	char *name;
	struct idd_struct s;
};

struct cu_hint {
	char *suffix;
	Dwarf_Off cu; /* the unit's header offset */
};

/*
 * An aggregate's direct members in order, read once: a layout asks for
 * ~60 members of struct inode, and walking the DIEs with dwarf_diename
 * for each lookup cost more than the rest of the layout.
 */
struct member_entry {
	const char *name; /* NULL: an anonymous member, searched inside */
	size_t len;
	Dwarf_Die die;    /* the member */
	Dwarf_Die type;   /* anonymous members: their aggregate type */
	uint64_t loc;
};

struct member_table {
	Dwarf_Off agg; /* the aggregate's DIE offset */
	struct member_entry *m;
	size_t n;
};

#define MEMBER_TABLES 64

struct idd_dwarf {
	struct member_table tables[MEMBER_TABLES];
	size_t ntables;
	struct cu_hint hints[8];
	size_t nhints;
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	char *path;
	struct cached_struct cache[CACHE_MAX];
	size_t ncache;
	/* Where the last successful search ended: the next starts there. */
	Dwarf_Off resume_cu;
};

struct Elf *idd_dwarf_elf(struct idd_dwarf *types)
{
	return types->elf;
}

int idd_dwarf_fd(struct idd_dwarf *types)
{
	return types->fd;
}

static void dwarf_close(void *src);

static void types_closep(struct idd_dwarf **types)
{
	dwarf_close(*types);
}

struct inodedump_error *idd_dwarf_open(const char *vmlinux,
				       struct idd_dwarf **out)
{
	_cleanup_(types_closep) struct idd_dwarf *types =
		calloc(1, sizeof(*types));
	const char *why;

	if (!types)
		return idd_nomem();
	elf_version(EV_CURRENT);
	types->fd = -1;
	types->path = strdup(vmlinux);
	if (!types->path)
		return idd_nomem();
	/* A regular file only, without waiting on a FIFO. */
	types->fd = idd_open_input(vmlinux, false, &why);
	if (types->fd < 0)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "cannot open vmlinux %s: %s", vmlinux, why);
	types->elf = elf_begin(types->fd, ELF_C_READ_MMAP, NULL);
	if (!types->elf || elf_kind(types->elf) != ELF_K_ELF) {
		/* libelf has no error for a file of another kind. */
		int e = elf_errno();

		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "vmlinux %s is not an ELF file%s%s", vmlinux,
				 e ? ": " : "", e ? elf_errmsg(e) : "");
	}
	types->dwarf = dwarf_begin_elf(types->elf, DWARF_C_READ, NULL);
	if (!types->dwarf)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "vmlinux %s has no DWARF debug information "
				 "(%s); use the kernel's debuginfo vmlinux, e.g. "
				 "/usr/lib/debug/boot/vmlinux-<release>",
				 vmlinux, dwarf_errmsg(-1));
	*out = TAKE_PTR(types);
	return NULL;
}

static void dwarf_close(void *src)
{
	struct idd_dwarf *types = src;

	if (!types)
		return;
	for (size_t i = 0; i < types->ncache; i++)
		free(types->cache[i].name);
	for (size_t i = 0; i < types->ntables; i++)
		free(types->tables[i].m);
	for (size_t i = 0; i < types->nhints; i++)
		free(types->hints[i].suffix);
	if (types->dwarf)
		dwarf_end(types->dwarf);
	if (types->elf)
		elf_end(types->elf);
	if (types->fd >= 0)
		close(types->fd);
	free(types->path);
	free(types);
}

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

static bool is_complete(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return !dwarf_attr(die, DW_AT_declaration, &attr) && dwarf_haschildren(die);
}

static bool fill_struct(Dwarf_Die *die, struct idd_struct *out)
{
	Dwarf_Word size;

	if (dwarf_aggregate_size(die, &size) != 0)
		return false;
	out->die = *die;
	out->size = size;
	return true;
}

/* Search the top level of one CU for a complete struct/union "name". */
static bool search_cu(Dwarf_Die *cudie, const char *name, struct idd_struct *out)
{
	Dwarf_Die die;

	if (dwarf_child(cudie, &die) != 0)
		return false;
	do {
		const char *n;

		if (!is_aggregate_tag(dwarf_tag(&die)))
			continue;
		n = dwarf_diename(&die);
		if (n && !strcmp(n, name) && is_complete(&die))
			return fill_struct(&die, out);
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

static void cache_put(struct idd_dwarf *types, const char *name,
		      const struct idd_struct *s)
{
	if (types->ncache == CACHE_MAX)
		return;
	types->cache[types->ncache].name = strdup(name);
	if (!types->cache[types->ncache].name)
		return;
	types->cache[types->ncache].s = *s;
	types->ncache++;
}

/*
 * Walk the CUs starting at start, wrapping around once, so that a run of
 * lookups for related structs tends to stay in the CU that had the last one.
 */
static bool search_all(struct idd_dwarf *types, const char *name,
		       struct idd_struct *out)
{
	Dwarf_Off start = types->resume_cu;

	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Off off = pass ? 0 : start, next;
		size_t hsize;

		while (dwarf_nextcu(types->dwarf, off, &next, &hsize, NULL, NULL,
				    NULL) == 0) {
			Dwarf_Die cudie;

			if (pass && off >= start)
				break;
			if (dwarf_offdie(types->dwarf, off + hsize, &cudie) &&
			    search_cu(&cudie, name, out)) {
				types->resume_cu = off;
				return true;
			}
			off = next;
		}
	}
	return false;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool unit_die(struct idd_dwarf *types, Dwarf_Off off, Dwarf_Die *out)
{
	Dwarf_Off next;
	size_t hsize;

	return dwarf_nextcu(types->dwarf, off, &next, &hsize, NULL, NULL,
			    NULL) == 0 &&
	       dwarf_offdie(types->dwarf, off + hsize, out) != NULL;
}

/*
 * The unit covering a code address, from .debug_aranges read directly:
 * one pass over a small section instead of touching every unit header of
 * .debug_info (libdw's own arange table maps far more).
 */
static bool aranges_unit(struct idd_dwarf *types, uint64_t addr, Dwarf_Off *cu)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;

	if (elf_getshdrstrndx(types->elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(types->elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) ||
		    !(name = elf_strptr(types->elf, shstrndx, shdr.sh_name)) ||
		    strcmp(name, ".debug_aranges"))
			continue;
		if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return false;
		data = elf_getdata(scn, NULL);
		break;
	}
	if (!data || !data->d_buf)
		return false;
	const uint8_t *p = data->d_buf, *end = p + data->d_size;

	while (p + 12 <= end) {
		const uint8_t *set = p, *set_end;
		uint64_t len, info;
		bool dwarf64 = false;
		unsigned asize, tuple;

		memcpy(&len, p, 4);
		len &= 0xffffffffu;
		p += 4;
		if (len == 0xffffffffu) {
			if (p + 8 > end)
				return false;
			memcpy(&len, p, 8);
			p += 8;
			dwarf64 = true;
		}
		set_end = p + len;
		if (len > (uint64_t)(end - p) || len < 8)
			return false;
		p += 2; /* version */
		info = 0;
		memcpy(&info, p, dwarf64 ? 8 : 4);
		p += dwarf64 ? 8 : 4;
		asize = *p++;
		p++; /* segment selector size */
		if (asize != 8)
			return false;
		tuple = 2 * asize;
		/* Tuples start aligned to their size from the set's start. */
		p = set + (((size_t)(p - set) + tuple - 1) / tuple) * tuple;
		for (; p + tuple <= set_end; p += tuple) {
			uint64_t start, length;

			memcpy(&start, p, 8);
			memcpy(&length, p + 8, 8);
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

static void dwarf_anchor(void *src, const char *suffix, uint64_t code_addr)
{
	struct idd_dwarf *types = src;
	Dwarf_Off cu;
	Dwarf_Die cudie;
	const char *name;

	if (types->nhints == sizeof(types->hints) / sizeof(types->hints[0]) ||
	    !code_addr || !aranges_unit(types, code_addr, &cu) ||
	    !unit_die(types, cu, &cudie) || !(name = dwarf_diename(&cudie)) ||
	    !ends_with(name, suffix))
		return;
	types->hints[types->nhints].suffix = strdup(suffix);
	if (types->hints[types->nhints].suffix)
		types->hints[types->nhints++].cu = cu;
}

/* The CU whose name ends with suffix ("kernel/printk/printk_ringbuffer.c"). */
static bool find_cu(struct idd_dwarf *types, const char *suffix,
		    Dwarf_Die *out)
{
	size_t slen = strlen(suffix);
	Dwarf_Off off = 0, next;
	size_t hsize;

	for (size_t i = 0; i < types->nhints; i++)
		if (!strcmp(types->hints[i].suffix, suffix))
			return unit_die(types, types->hints[i].cu, out);

	while (dwarf_nextcu(types->dwarf, off, &next, &hsize, NULL, NULL,
			    NULL) == 0) {
		Dwarf_Die cudie;
		const char *name;

		if (dwarf_offdie(types->dwarf, off + hsize, &cudie) &&
		    (name = dwarf_diename(&cudie))) {
			size_t nlen = strlen(name);

			if (nlen >= slen && !strcmp(name + nlen - slen, suffix)) {
				*out = cudie;
				return true;
			}
		}
		off = next;
	}
	return false;
}

static struct inodedump_error *struct_any(struct idd_dwarf *types,
					  const char *name,
					  struct idd_struct *out);

/* From the cache, or in cu_hint's unit (a struct private to one file is
 * defined only in that file's CU). */
static bool struct_in_unit(struct idd_dwarf *types, const char *name,
			   const char *cu_hint, struct idd_struct *out)
{
	Dwarf_Die cudie;

	for (size_t i = 0; i < types->ncache; i++) {
		if (!strcmp(types->cache[i].name, name)) {
			*out = types->cache[i].s;
			return true;
		}
	}
	if (cu_hint && find_cu(types, cu_hint, &cudie) &&
	    search_cu(&cudie, name, out)) {
		cache_put(types, name, out);
		return true;
	}
	return false;
}

static struct inodedump_error *dwarf_struct(void *src, const char *name,
					    const char *cu_hint,
					    struct idd_struct *out)
{
	struct idd_dwarf *types = src;

	if (struct_in_unit(types, name, cu_hint, out))
		return NULL;
	return struct_any(types, name, out);
}

static struct inodedump_error *dwarf_struct_in_unit(void *src,
						    const char *name,
						    const char *cu_hint,
						    struct idd_struct *out)
{
	if (struct_in_unit(src, name, cu_hint, out))
		return NULL;
	return idd_error(INODEDUMP_ERR_TYPE, "vmlinux's unit %s has no "
			 "struct %s", cu_hint ? cu_hint : "(none)", name);
}

/*
 * An enumerator's value. libdw sign-extends DW_FORM_data1/2/4, so in an
 * enum whose underlying type is unsigned (7.3's inode_state_flags_enum:
 * I_WILL_FREE = 128 is data1 0x80) the value is read unsigned.
 */
static bool enumerator_value(Dwarf_Die *type, Dwarf_Die *e, int64_t *out)
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

/* One namespace of enumerators per unit: enum_hint is not needed. */
static bool dwarf_enumerator(void *src, const char *cu_hint,
			     const char *enum_hint, const char *name,
			     int64_t *value)
{
	struct idd_dwarf *types = src;
	Dwarf_Die cudie, die;

	(void)enum_hint;
	if (!find_cu(types, cu_hint, &cudie) || dwarf_child(&cudie, &die) != 0)
		return false;
	do {
		Dwarf_Die e;

		if (dwarf_tag(&die) != DW_TAG_enumeration_type ||
		    dwarf_child(&die, &e) != 0)
			continue;
		do {
			const char *n = dwarf_diename(&e);

			if (n && !strcmp(n, name) &&
			    enumerator_value(&die, &e, value))
				return true;
		} while (dwarf_siblingof(&e, &e) == 0);
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

static bool dwarf_enum(void *src, const char *cu_hint,
		       const char *enum_name, idd_enumerator_fn fn, void *arg)
{
	struct idd_dwarf *types = src;
	Dwarf_Die cudie, die;

	if (!find_cu(types, cu_hint, &cudie) || dwarf_child(&cudie, &die) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&die);
		Dwarf_Die e;

		if (dwarf_tag(&die) != DW_TAG_enumeration_type || !n ||
		    strcmp(n, enum_name) || dwarf_child(&die, &e) != 0)
			continue;
		do {
			Dwarf_Attribute attr;
			Dwarf_Sword v;

			if (dwarf_tag(&e) == DW_TAG_enumerator &&
			    dwarf_attr(&e, DW_AT_const_value, &attr) &&
			    dwarf_formsdata(&attr, &v) == 0)
				fn(dwarf_diename(&e), v, arg);
		} while (dwarf_siblingof(&e, &e) == 0);
		return true;
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

/*
 * A function the unit defines, inlined or not: a subprogram among its
 * unit's top-level entries (an inlined static one is there as the
 * abstract instance its inlined copies point to).
 */
static bool dwarf_function(void *src, const char *cu_hint, const char *name)
{
	struct idd_dwarf *types = src;
	Dwarf_Die cudie, die;

	if (!find_cu(types, cu_hint, &cudie) || dwarf_child(&cudie, &die) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&die) == DW_TAG_subprogram &&
		    (n = dwarf_diename(&die)) && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

/* The first complete definition in any unit. */
static struct inodedump_error *struct_any(struct idd_dwarf *types,
					  const char *name,
					  struct idd_struct *out)
{
	for (size_t i = 0; i < types->ncache; i++) {
		if (!strcmp(types->cache[i].name, name)) {
			*out = types->cache[i].s;
			return NULL;
		}
	}
	if (!search_all(types, name, out))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "vmlinux %s has no complete definition of "
				 "struct %s",
				 types->path, name);
	cache_put(types, name, out);
	return NULL;
}

static Dwarf_Die *peel(Dwarf_Die *die, Dwarf_Die *out)
{
	if (dwarf_peel_type(die, out) != 0)
		return NULL;
	return out;
}

static bool member_type(Dwarf_Die *member, Dwarf_Die *out)
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

static void describe_type(Dwarf_Die *type, struct idd_member *out)
{
	Dwarf_Word size = 0;
	Dwarf_Attribute attr;
	Dwarf_Word enc;
	int tag = dwarf_tag(type);

	out->type = *type;
	if (dwarf_aggregate_size(type, &size) != 0)
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

static void describe_bitfield(Dwarf_Die *member, struct idd_member *out)
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
		 * the member type's size) at the member's location; on a
		 * little-endian target the field starts at unit*8 - off - size.
		 */
		Dwarf_Word unit = out->size, lsb;

		if (dwarf_attr(member, DW_AT_byte_size, &attr))
			dwarf_formudata(&attr, &unit);
		if (!unit || unit > 16 || dbo + bits > unit * 8)
			return;
		lsb = unit * 8 - dbo - bits;
		out->offset += lsb / 8;
		out->bit_offset = lsb % 8;
		out->size = (out->bit_offset + bits + 7) / 8;
	}
}

/* Find a member by name in one aggregate, looking into anonymous ones. */
/* The member table of an aggregate, read on first use; NULL if none. */
static const struct member_table *members_of(struct idd_dwarf *types,
					     Dwarf_Die *agg)
{
	Dwarf_Off at = dwarf_dieoffset(agg);
	struct member_table *t;
	Dwarf_Die child;
	size_t cap = 0;

	for (size_t i = 0; i < types->ntables; i++)
		if (types->tables[i].agg == at)
			return &types->tables[i];
	if (types->ntables == MEMBER_TABLES)
		return NULL; /* full: the caller walks the DIEs */
	t = &types->tables[types->ntables];
	*t = (struct member_table){ .agg = at };
	if (dwarf_child(agg, &child) == 0) {
		do {
			struct member_entry e = { .die = child };

			if (dwarf_tag(&child) != DW_TAG_member)
				continue;
			e.name = dwarf_diename(&child);
			e.len = e.name ? strlen(e.name) : 0;
			if (!e.name &&
			    !(member_type(&child, &e.type) &&
			      is_aggregate_tag(dwarf_tag(&e.type))))
				continue; /* nothing to find in it */
			e.loc = member_location(&child);
			if (t->n == cap) {
				struct member_entry *grown =
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
	types->ntables++;
	return t;
}

static bool find_in(struct idd_dwarf *types, Dwarf_Die *agg,
		    const char *name, size_t namelen, uint64_t base, int depth,
		    Dwarf_Die *found, uint64_t *off)
{
	const struct member_table *t;
	Dwarf_Die child;

	if (depth > 8)
		return false;
	t = members_of(types, agg);
	if (t) {
		for (size_t i = 0; i < t->n; i++) {
			const struct member_entry *e = &t->m[i];
			Dwarf_Die type = e->type;

			if (e->name) {
				if (e->len == namelen &&
				    !memcmp(e->name, name, namelen)) {
					*found = e->die;
					*off = base + e->loc;
					return true;
				}
			} else if (find_in(types, &type, name, namelen,
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

			if (member_type(&child, &type) &&
			    is_aggregate_tag(dwarf_tag(&type)) &&
			    find_in(types, &type, name, namelen,
				    base + member_location(&child), depth + 1,
				    found, off))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static void dwarf_member(void *src, const struct idd_struct *s,
			 const char *path, struct idd_member *out)
{
	struct idd_dwarf *types = src;
	Dwarf_Die agg = s->die;
	uint64_t offset = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		Dwarf_Die member, type;
		uint64_t off;

		if (!find_in(types, &agg, p, len, offset, 0, &member, &off) ||
		    !member_type(&member, &type))
			return;
		offset = off;
		if (!dot) {
			out->present = true;
			out->offset = offset;
			describe_type(&type, out);
			describe_bitfield(&member, out);
			return;
		}
		if (!is_aggregate_tag(dwarf_tag(&type)))
			return;
		agg = type;
		p = dot + 1;
	}
}

static struct inodedump_error *dwarf_pointee(void *src,
					     const struct idd_member *m,
					     struct idd_struct *out)
{
	struct idd_dwarf *types = src;
	Dwarf_Die ptr = m->type, target;
	const char *name;

	if (m->kind != IDD_KIND_PTR || !member_type(&ptr, &target))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "member is not a pointer to a struct");
	if (is_aggregate_tag(dwarf_tag(&target)) && is_complete(&target) &&
	    fill_struct(&target, out))
		return NULL;
	name = dwarf_diename(&target);
	if (!name)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "pointer to an anonymous incomplete type");
	/* Only declared in this CU: look for the definition elsewhere. */
	return struct_any(types, name, out);
}

static bool dwarf_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			      void *arg)
{
	Dwarf_Die type = m->type, child;

	if (dwarf_tag(&type) != DW_TAG_enumeration_type)
		return false;
	if (dwarf_child(&type, &child) != 0)
		return false;
	do {
		int64_t value;

		if (dwarf_tag(&child) != DW_TAG_enumerator ||
		    !enumerator_value(&type, &child, &value))
			continue;
		fn(dwarf_diename(&child), value, arg);
	} while (dwarf_siblingof(&child, &child) == 0);
	return true;
}

const struct idd_type_ops idd_dwarf_ops = {
	.close = dwarf_close,
	.find_struct = dwarf_struct,
	.member = dwarf_member,
	.pointee = dwarf_pointee,
	.enumerator = dwarf_enumerator,
	.enum_values = dwarf_enum,
	.member_enum = dwarf_member_enum,
	.anchor = dwarf_anchor,
	.find_struct_in_unit = dwarf_struct_in_unit,
	.function = dwarf_function,
};
