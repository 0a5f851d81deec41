// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct mount from BTF for a session with a DWARF vmlinux: the kernel's
 * compact type format (CONFIG_DEBUG_INFO_BTF), in vmlinux's .BTF section
 * or, when vmlinux is a debug-only file, in the dump's own memory
 * (__start_BTF..__stop_BTF). A struct private to fs/ is only defined deep
 * in .debug_info, and libdw reads every unit header before it; BTF has it
 * in a few megabytes, in one table.
 *
 * Our own parser, kept for this one use although libbpf parses every
 * other BTF (btf.c): it checks and indexes records lazily, as far as the
 * struct asked for. On the stock 6.12 decode of one inode with a DWARF
 * vmlinux (callgrind, bench/RESULTS.md): 26.8 M instructions with it,
 * 44.1 M with libbpf (btf__new() parses all 130 k types, 9.2 M, and the
 * name index over them 9.5 M), 30.0 M taking struct mount from DWARF.
 */
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/types.h"

#define BTF_MAGIC 0xeB9F
#define BTF_MAX_SIZE (64u << 20)

enum {
	BTF_KIND_INT = 1, BTF_KIND_PTR, BTF_KIND_ARRAY, BTF_KIND_STRUCT,
	BTF_KIND_UNION, BTF_KIND_ENUM, BTF_KIND_FWD, BTF_KIND_TYPEDEF,
	BTF_KIND_VOLATILE, BTF_KIND_CONST, BTF_KIND_RESTRICT, BTF_KIND_FUNC,
	BTF_KIND_FUNC_PROTO, BTF_KIND_VAR, BTF_KIND_DATASEC, BTF_KIND_FLOAT,
	BTF_KIND_DECL_TAG, BTF_KIND_TYPE_TAG, BTF_KIND_ENUM64,
};

struct idd_btfl {
	uint8_t *data; /* owned copy from the dump, or NULL */
	size_t size;
	const uint8_t *types, *strings;
	uint32_t types_len, strings_len;
	/*
	 * Offset in types of every BTF_MARK-th type id: a full table would
	 * cost more to build than the few lookups a decode makes.
	 */
	uint32_t *marks;
	uint32_t ntypes;  /* ids below this are checked records */
	uint32_t end_off; /* offset of record ntypes */
	bool done;        /* no more records (end, or a corrupt one) */
	char memo_name[64]; /* the last struct found by name */
	uint32_t memo_id;
	/*
	 * Structs a caller said it will look up (idd_btfl_want()): noted
	 * by any scan that passes them, so the later lookups scan nothing.
	 */
	struct {
		char name[32];
		uint32_t id; /* 0: not met yet */
	} want[8];
	unsigned nwant;
	bool big_endian; /* the kernel's byte order (its members' values) */
};

#define BTF_MARK 32

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static const char *str(const struct idd_btfl *b, uint32_t off)
{
	return off < b->strings_len ? (const char *)b->strings + off : "";
}

/*
 * Bytes of kind-specific data after a btf_type, or -1 if unknown: a fixed
 * part and a part per vlen, by kind.
 */
static const signed char extra_fixed[BTF_KIND_ENUM64 + 1] = {
	[0] = -1, [BTF_KIND_INT] = 4, [BTF_KIND_VAR] = 4,
	[BTF_KIND_DECL_TAG] = 4, [BTF_KIND_ARRAY] = 12,
};
static const unsigned char extra_per[BTF_KIND_ENUM64 + 1] = {
	[BTF_KIND_STRUCT] = 12, [BTF_KIND_UNION] = 12, [BTF_KIND_DATASEC] = 12,
	[BTF_KIND_ENUM64] = 12, [BTF_KIND_ENUM] = 8, [BTF_KIND_FUNC_PROTO] = 8,
};

static inline long extra(uint32_t info)
{
	uint32_t kind = (info >> 24) & 0x1f;

	if (kind > BTF_KIND_ENUM64 || extra_fixed[kind] < 0)
		return -1;
	return extra_fixed[kind] + (long)extra_per[kind] * (info & 0xffff);
}

/* A struct or union record t of id: one of the wanted names? */
static void note_wanted(struct idd_btfl *b, const uint8_t *t, uint32_t id)
{
	const char *n = NULL;

	for (unsigned i = 0; i < b->nwant; i++) {
		if (b->want[i].id)
			continue;
		if (!n)
			n = str(b, u32(t));
		if (*n == *b->want[i].name && !strcmp(n, b->want[i].name))
			b->want[i].id = id;
	}
}

static bool named(const struct idd_btfl *b, const uint8_t *t,
		  const char *name)
{
	uint32_t kind = (u32(t + 4) >> 24) & 0x1f;
	const char *n;

	return (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) &&
	       *(n = str(b, u32(t))) == *name && !strcmp(n, name);
}

/*
 * Check and index records up to type id want (exclusive), or to the end,
 * or (name not NULL) to the first struct or union of that name, whose id
 * is returned. A corrupt record ends the types: what comes before it
 * stays usable.
 */
static uint32_t scan_to(struct idd_btfl *b, uint32_t want, const char *name)
{
	uint32_t off = b->end_off, ntypes = b->ntypes, found = 0;
	const uint8_t *types = b->types;

	const uint32_t len = b->types_len;
	uint32_t *marks = b->marks;

	if (b->done)
		return 0;
	while (ntypes < want) {
		uint32_t info, kind;
		long more;

		if (off + 12 > len) {
			b->done = true;
			break;
		}
		info = u32(types + off + 4);
		kind = (info >> 24) & 0x1f;
		if (kind > BTF_KIND_ENUM64 || extra_fixed[kind] < 0) {
			b->done = true;
			break;
		}
		more = extra_fixed[kind] + (long)extra_per[kind] * (info & 0xffff);
		if (off + 12 + (uint64_t)more > len) {
			b->done = true;
			break;
		}
		if (ntypes % BTF_MARK == 0)
			marks[ntypes / BTF_MARK] = off;
		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) &&
		    b->nwant)
			note_wanted(b, types + off, ntypes);
		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) && name &&
		    named(b, types + off, name)) {
			found = ntypes;
			want = ntypes + 1;
		}
		ntypes++;
		off += 12 + (uint32_t)more;
	}
	b->ntypes = ntypes;
	b->end_off = off;
	return found;
}

/* Whether id names a checked record (0, void, does not). */
static bool valid(struct idd_btfl *b, uint32_t id)
{
	if (id && id >= b->ntypes)
		scan_to(b, id + 8 * BTF_MARK, NULL); /* a few ahead */
	return id && id < b->ntypes;
}

/*
 * Parse the BTF at data (from where, for messages); owned (malloc'd) is
 * freed with the result, or here on error, else data must outlive it
 * (vmlinux's mapping).
 */
static struct inodedump_error *btf_parse(const uint8_t *data, size_t size,
					 uint8_t *owned, const char *where,
					 struct idd_btfl **out)
{
	_cleanup_free_ uint8_t *owned_copy = owned;
	_cleanup_free_ struct idd_btfl *b = calloc(1, sizeof(*b));
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint16_t magic;

	if (!b)
		return idd_nomem();
	if (size < 24)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s: %zu bytes, shorter than its header",
				 where, size);
	/* A big-endian kernel's: read from a host-order copy. */
	if (!owned && data[0] != (uint8_t)BTF_MAGIC) {
		if (!(owned_copy = malloc(size)))
			return idd_nomem();
		data = memcpy(owned_copy, data, size);
	}
	if (owned_copy)
		idd_btf_to_host(owned_copy, size);
	memcpy(&magic, data, 2);
	hdr_len = u32(data + 4);
	type_off = u32(data + 8);
	type_len = u32(data + 12);
	str_off = u32(data + 16);
	str_len = u32(data + 20);
	if (magic != BTF_MAGIC || hdr_len < 24 || hdr_len > size ||
	    type_off > size - hdr_len || type_len > size - hdr_len - type_off ||
	    str_off > size - hdr_len || str_len > size - hdr_len - str_off)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s: header corrupt (magic 0x%x)", where,
				 magic);
	b->size = size;
	b->types = data + hdr_len + type_off;
	b->types_len = type_len;
	b->strings = data + hdr_len + str_off;
	b->strings_len = str_len;
	/* Every string must end inside the section. */
	if (!str_len || b->strings[str_len - 1] != '\0')
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s: string section does not end in a NUL",
				 where);
	b->ntypes = 1; /* records are checked as they are first needed */
	b->marks = malloc(((uint64_t)type_len / 12 / BTF_MARK + 2) *
			  sizeof(*b->marks));
	if (!b->marks)
		return idd_nomem();
	b->data = TAKE_PTR(owned_copy);
	*out = TAKE_PTR(b);
	return NULL;
}

void idd_btfl_free(struct idd_btfl *b)
{
	if (!b)
		return;
	free(b->marks);
	free(b->data);
	free(b);
}

/* vmlinux's .BTF section; *out NULL when it has none with contents. */
static struct inodedump_error *from_vmlinux(Elf *elf, struct idd_btfl **out)
{
	Elf_Scn *scn = idd_elf_section(elf, ".BTF");
	GElf_Shdr shdr;
	Elf_Data *d;

	*out = NULL;
	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS)
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size || d->d_size > BTF_MAX_SIZE)
		return NULL;
	/* Read in place: the mapping lives as long as the session. */
	return btf_parse(d->d_buf, d->d_size, NULL, "in vmlinux", out);
}

/*
 * The kernel's BTF in the dump's memory; *out NULL when vmlinux has no
 * __start_BTF/__stop_BTF (or a size no kernel has).
 */
static struct inodedump_error *from_memory(struct idd_symbols *syms,
					   struct idd_target *t,
					   struct idd_btfl **out)
{
	uint64_t start, stop;
	_cleanup_free_ uint8_t *copy = NULL;
	struct inodedump_error *err;

	*out = NULL;
	if (!idd_symbols_address(syms, "__start_BTF", &start) ||
	    !idd_symbols_address(syms, "__stop_BTF", &stop) ||
	    stop <= start || stop - start > BTF_MAX_SIZE)
		return NULL;
	copy = malloc(stop - start);
	if (!copy)
		return idd_nomem();
	err = idd_target_read(t, start, copy, stop - start);
	if (err)
		return idd_error_wrap(err, "BTF at 0x%" PRIx64, start);
	uint8_t *data = TAKE_PTR(copy); /* btf_parse() owns it now */

	return btf_parse(data, stop - start, data, "in the dump", out);
}

struct inodedump_error *idd_btfl_load(struct idd_types *types,
				     struct idd_symbols *syms,
				     struct idd_target *t,
				     struct idd_btfl **out)
{
	struct inodedump_error *err = from_vmlinux(idd_types_elf(types), out);
	struct inodedump_error *mem_err;

	if ((!err && *out) || idd_error_is_nomem(err)) {
		if (*out)
			(*out)->big_endian = idd_target_big_endian(t);
		return err;
	}
	/* No usable .BTF in vmlinux: the kernel's own copy, in memory. */
	mem_err = from_memory(syms, t, out);
	if (*out)
		(*out)->big_endian = idd_target_big_endian(t);
	if (mem_err || *out) {
		inodedump_error_free(err);
		return mem_err;
	}
	return err;
}

/* The btf_type record of a valid id (1 .. ntypes-1). */
static const uint8_t *type_at(const struct idd_btfl *b, uint32_t id)
{
	uint32_t off = id / BTF_MARK ? b->marks[id / BTF_MARK] : 0;

	/* Type id 1 is the first record; id 0 (void) has none. */
	for (uint32_t k = id / BTF_MARK ? id / BTF_MARK * BTF_MARK : 1; k < id;
	     k++)
		off += 12 + (uint32_t)extra(u32(b->types + off + 4));
	return b->types + off;
}

/* Strip typedefs and qualifiers. */
static uint32_t resolve(struct idd_btfl *b, uint32_t type)
{
	for (int depth = 0; depth < 32 && valid(b, type); depth++) {
		uint32_t kind = (u32(type_at(b, type) + 4) >> 24) & 0x1f;

		if (kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_VOLATILE &&
		    kind != BTF_KIND_CONST && kind != BTF_KIND_RESTRICT &&
		    kind != BTF_KIND_TYPE_TAG)
			return type;
		type = u32(type_at(b, type) + 8);
	}
	return 0;
}

static uint32_t find_struct(struct idd_btfl *b, const char *name)
{
	const uint8_t *t = b->types;
	uint32_t id;

	if (*b->memo_name && !strcmp(b->memo_name, name))
		return b->memo_id;
	for (unsigned i = 0; i < b->nwant; i++)
		if (b->want[i].id && !strcmp(b->want[i].name, name))
			return b->want[i].id;
	/* The records already checked, then on from there. */
	for (id = 1; id < b->ntypes; id++) {
		uint32_t info = u32(t + 4);

		if (named(b, t, name))
			break;
		t += 12 + extra(info);
	}
	if (id == b->ntypes)
		id = scan_to(b, UINT32_MAX, name);
	if (id && strlen(name) < sizeof(b->memo_name)) {
		strcpy(b->memo_name, name);
		b->memo_id = id;
	}
	return id;
}

static bool is_aggregate(struct idd_btfl *b, uint32_t type)
{
	uint32_t kind;

	if (!valid(b, type))
		return false;
	kind = (u32(type_at(b, type) + 4) >> 24) & 0x1f;
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

/*
 * Member by name in an aggregate, looking into anonymous members. *budget
 * bounds the members looked at in all: a type that contains itself
 * anonymously must not make the search exponential.
 */
static bool find_member(struct idd_btfl *b, uint32_t agg, const char *name,
			size_t len, uint64_t *bits, uint32_t *type, int depth,
			unsigned *budget)
{
	const uint8_t *t;
	uint32_t info, vlen;
	bool kflag;

	if (depth > 8 || !is_aggregate(b, agg))
		return false;
	t = type_at(b, agg);
	info = u32(t + 4);
	vlen = info & 0xffff;
	kflag = info >> 31;
	for (uint32_t i = 0; i < vlen; i++) {
		const uint8_t *m = t + 12 + 12 * i;
		const char *n = str(b, u32(m));
		uint32_t off = u32(m + 8);
		uint64_t bit = kflag ? (off & 0xffffff) : off, inner = 0;
		uint32_t mt = resolve(b, u32(m + 4));

		if (!*budget)
			return false;
		--*budget;
		if (*n) {
			if (strlen(n) == len && !memcmp(n, name, len)) {
				*bits += bit;
				*type = mt;
				return true;
			}
			continue;
		}
		if (find_member(b, mt, name, len, &inner, type, depth + 1,
				budget)) {
			*bits += bit + inner;
			return true;
		}
	}
	return false;
}

void idd_btfl_want(struct idd_btfl *b, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n && b->nwant < sizeof(b->want) / sizeof(b->want[0]);
	     i++) {
		if (strlen(names[i]) >= sizeof(b->want[0].name))
			continue;
		strcpy(b->want[b->nwant].name, names[i]);
		b->want[b->nwant++].id = 0;
	}
}

bool idd_btfl_member(struct idd_btfl *b, const char *structname,
		    const char *path, struct idd_member *out)
{
	uint32_t type = find_struct(b, structname);
	uint64_t bits = 0;
	unsigned budget = 1u << 16;

	memset(out, 0, sizeof(*out));
	if (!type)
		return false;
	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (!find_member(b, type, p, len, &bits, &type, 0, &budget) ||
		    !type)
			return false;
		if (!dot)
			break;
		p = dot + 1;
	}
	if (bits % 8)
		return false; /* bitfields: not needed here */
	out->present = true;
	out->big_endian = b->big_endian;
	out->offset = bits / 8;
	switch ((u32(type_at(b, type) + 4) >> 24) & 0x1f) {
	case BTF_KIND_PTR:
		out->kind = IDD_KIND_PTR;
		out->size = 8; /* BTF is only generated for the 64-bit kernels we read */
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		out->kind = IDD_KIND_STRUCT;
		out->size = u32(type_at(b, type) + 8);
		break;
	case BTF_KIND_ARRAY: {
		/* struct btf_array { type, index_type, nelems } after it */
		const uint8_t *a = type_at(b, type) + 12;
		uint32_t elem = resolve(b, u32(a));
		uint32_t ekind = elem ? (u32(type_at(b, elem) + 4) >> 24) & 0x1f : 0;

		out->kind = IDD_KIND_ARRAY;
		/* arrays of integers (comm[], d_iname[]): what is read here */
		out->size = ekind == BTF_KIND_INT
				    ? (uint64_t)u32(a + 8) * u32(type_at(b, elem) + 8)
				    : 0;
		break;
	}
	default:
		out->kind = IDD_KIND_INT;
		out->size = u32(type_at(b, type) + 8);
	}
	return true;
}
