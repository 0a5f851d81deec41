// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmlinux's symbols from the dump itself: the kernel's kallsyms tables,
 * which VMCOREINFO names (SYMBOL(kallsyms_names), _num_syms,
 * _token_table, _token_index, _offsets, and before 7.0
 * _relative_base). Each name is a run of token indexes (scripts/kallsyms.c
 * compresses them), its first character the symbol's type letter; each
 * address is an int in kallsyms_offsets:
 *
 *  - 7.0 and later (no kallsyms_relative_base in VMCOREINFO):
 *    place-relative, &kallsyms_offsets[i] + kallsyms_offsets[i];
 *  - before, with CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86-64 SMP before
 *    6.15): an offset >= 0 is the per-CPU symbol's own value, a negative
 *    one is relative_base - 1 - offset;
 *  - before, without it: relative_base + (u32)offset.
 *
 * Whether absolute per-CPU is in effect is not in the dump: an offset
 * below zero is impossible without it (the image is not 2 GiB long) and
 * certain with it (every non-per-CPU symbol is stored that way).
 *
 * They are read on demand (below); tables decoded whole (kernels before
 * 6.2, or a layout not found) are kept in the per-kernel cache (cache.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/types.h"

#define MAX_SYMS (4u << 20)
#define MAX_NAMES (64u << 20)
#define KSYM_NAME_LEN 512
#define CACHE_NAME "kallsyms"
#define CACHE_MAGIC "IDDKSYM2"

struct idd_kallsyms {
	size_t n;
	const uint64_t *addr; /* sorted */
	const uint32_t *name; /* offsets in strings */
	const char *type;
	const char *strings;
	size_t strings_len;
	const uint32_t *slots; /* by name: index + 1, open addressing */
	uint32_t mask;
	void *owned;		   /* one allocation holding the above */
	struct idd_cache_file map; /* or the cache file, mapped */
	struct lazy *lazy;	   /* or the dump's tables, read on demand */
};

static void lazy_free(struct lazy *z);

void idd_kallsyms_free(struct idd_kallsyms *ks)
{
	if (!ks)
		return;
	lazy_free(ks->lazy);
	idd_cache_unmap(&ks->map);
	free(ks->owned);
	free(ks);
}

size_t idd_kallsyms_count(const struct idd_kallsyms *ks)
{
	return ks->n;
}

/*
 * The layout of one block, which is also the cache file: a header (magic,
 * n, strings_len, nslots), addr[n], name[n], slots[nslots] (a hash of the
 * names, so that a name is found without a pass), type[n], strings.
 */
struct block_layout {
	size_t addr, name, slots, type, strings, total;
	uint64_t nslots;
};

#define HEADER 32

static uint64_t slots_for(uint64_t n)
{
	uint64_t c = 64;

	while (c < 2 * n)
		c *= 2;
	return c;
}

static bool layout_of(uint64_t n, uint64_t strings_len, struct block_layout *l)
{
	memset(l, 0, sizeof(*l));
	if (n > MAX_SYMS || strings_len > MAX_NAMES)
		return false;
	l->nslots = slots_for(n);
	l->addr = HEADER;
	l->name = l->addr + 8 * n;
	l->slots = l->name + 4 * n;
	l->type = l->slots + 4 * l->nslots;
	l->strings = l->type + n;
	l->total = l->strings + strings_len;
	return true;
}

/* Point ks at a block (its header checked by the caller). */
static void point_at(struct idd_kallsyms *ks, const uint8_t *block,
		     const struct block_layout *l, size_t n, size_t strings_len)
{
	ks->n = n;
	ks->addr = (const uint64_t *)(block + l->addr);
	ks->name = (const uint32_t *)(block + l->name);
	ks->slots = (const uint32_t *)(block + l->slots);
	ks->mask = (uint32_t)l->nslots - 1;
	ks->type = (const char *)(block + l->type);
	ks->strings = (const char *)(block + l->strings);
	ks->strings_len = strings_len;
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Fill the name hash of a sorted block: the first symbol of a name wins. */
static void hash_block(uint8_t *block, const struct block_layout *l, size_t n)
{
	uint32_t *slots = (uint32_t *)(block + l->slots);
	const uint32_t *name = (const uint32_t *)(block + l->name);
	const char *strings = (const char *)(block + l->strings);
	uint32_t mask = (uint32_t)l->nslots - 1;

	memset(slots, 0, 4 * l->nslots);
	for (size_t i = 0; i < n; i++) {
		const char *s = strings + name[i];

		for (uint32_t h = hash_name(s) & mask;; h = (h + 1) & mask) {
			if (!slots[h]) {
				slots[h] = (uint32_t)i + 1;
				break;
			}
			if (!strcmp(strings + name[slots[h] - 1], s))
				break;
		}
	}
}

/* A cached block, checked as untrusted input. */
static bool from_cache(const char *dir, struct idd_kallsyms *ks)
{
	struct block_layout l;
	uint64_t n, slen;
	const uint8_t *d;

	if (!idd_cache_map(dir, CACHE_NAME, &ks->map))
		return false;
	d = ks->map.data;
	if (ks->map.size < HEADER || memcmp(d, CACHE_MAGIC, 8))
		goto bad;
	memcpy(&n, d + 8, 8);
	memcpy(&slen, d + 16, 8);
	if (!n || !slen || !layout_of(n, slen, &l) || l.total != ks->map.size)
		goto bad;
	point_at(ks, d, &l, n, slen);
	/*
	 * Only the shape is checked here; each name offset and slot is
	 * checked where it is used (a pass over them all cost more than the
	 * lookups). Addresses out of order only give wrong names, as a
	 * wrong dump would.
	 */
	if (ks->strings[slen - 1] != '\0')
		goto bad;
	return true;
bad:
	idd_cache_unmap(&ks->map);
	return false;
}

struct sortable {
	uint64_t addr;
	uint32_t index;
};

static int cmp_sortable(const void *a, const void *b)
{
	const struct sortable *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The tables are sorted by address already; a table that is not, is. */
static struct inodedump_error *sort_block(uint8_t *block,
					  const struct block_layout *l, size_t n)
{
	uint64_t *addr = (uint64_t *)(block + l->addr);
	uint32_t *name = (uint32_t *)(block + l->name);
	char *type = (char *)(block + l->type);
	_cleanup_free_ struct sortable *s = NULL;
	_cleanup_free_ uint32_t *names = NULL;
	_cleanup_free_ char *types = NULL;
	size_t i;

	for (i = 1; i < n && addr[i] >= addr[i - 1]; i++)
		;
	if (i >= n)
		return NULL;
	s = malloc(n * sizeof(*s));
	names = malloc(n * sizeof(*names));
	types = malloc(n);
	if (!s || !names || !types)
		return idd_nomem();
	for (i = 0; i < n; i++)
		s[i] = (struct sortable){ addr[i], (uint32_t)i };
	qsort(s, n, sizeof(*s), cmp_sortable);
	memcpy(names, name, n * sizeof(*names));
	memcpy(types, type, n);
	for (i = 0; i < n; i++) {
		addr[i] = s[i].addr;
		name[i] = names[s[i].index];
		type[i] = types[s[i].index];
	}
	return NULL;
}

/* Each of the 256 tokens, found once: where it starts, how long it is. */
struct tokens {
	const char *at[256];
	uint8_t len[256];
};

/* False when a token does not end inside the token table. */
static bool find_tokens(const struct idd_kallsyms_tables *t, struct tokens *k)
{
	for (int i = 0; i < 256; i++) {
		size_t start = t->token_index[i], end = start;

		while (end < t->token_table_len && t->token_table[end] &&
		       end - start < 255)
			end++;
		if (end >= t->token_table_len || t->token_table[end])
			return false;
		k->at[i] = t->token_table + start;
		k->len[i] = (uint8_t)(end - start);
	}
	return true;
}

/*
 * The compressed name at *o of the names table: its length (one byte, or
 * two with the first's top bit set) is read and *o moved past it. False
 * when the table is cut short.
 */
static bool name_at(const struct idd_kallsyms_tables *t, size_t *o,
		    size_t *len)
{
	if (*o >= t->names_len)
		return false;
	*len = t->names[(*o)++];
	if (*len & 0x80) {
		if (*o >= t->names_len)
			return false;
		*len = (*len & 0x7f) | ((size_t)t->names[(*o)++] << 7);
	}
	return *len <= t->names_len - *o;
}

/* Past the name at *off, without expanding it. */
static bool skip_name(const struct idd_kallsyms_tables *t, size_t *off)
{
	size_t len;

	if (!name_at(t, off, &len))
		return false;
	*off += len;
	return true;
}

/*
 * Expand name at *off of the names table (advancing *off) into out
 * (KSYM_NAME_LEN); *type its type letter. False when the table is cut
 * short.
 */
static bool expand(const struct idd_kallsyms_tables *t, const struct tokens *k,
		   size_t *off, char *type, char *out, size_t *outlen)
{
	size_t len, o = *off, n = 0;
	char buf[KSYM_NAME_LEN + 256];

	if (!name_at(t, &o, &len))
		return false;
	/* Whole tokens while they fit; the name is cut as the kernel cuts it. */
	for (size_t i = 0; i < len && n < KSYM_NAME_LEN; i++) {
		uint8_t b = t->names[o + i];

		memcpy(buf + n, k->at[b], k->len[b]);
		n += k->len[b];
	}
	if (!n) {
		*type = '?';
		n = 1;
		buf[0] = '?';
	} else {
		*type = buf[0];
	}
	n = n - 1 < KSYM_NAME_LEN - 1 ? n - 1 : KSYM_NAME_LEN - 1;
	memcpy(out, buf + 1, n);
	out[n] = '\0';
	*outlen = n;
	*off = o + len;
	return true;
}

/* The address offset entry i (whose value is off) stands for. */
static uint64_t address_value(const struct idd_kallsyms_tables *t,
			      bool absolute_percpu, size_t i, int32_t off)
{
	if (!t->has_relative_base) /* 7.0: place-relative */
		return t->offsets_addr + 4 * (uint64_t)i + (uint64_t)(int64_t)off;
	if (!absolute_percpu)
		return t->relative_base + (uint32_t)off;
	if (off >= 0)
		return (uint64_t)off;
	return t->relative_base - 1 - (uint64_t)(int64_t)off;
}

static uint64_t address_of(const struct idd_kallsyms_tables *t,
			   bool absolute_percpu, size_t i)
{
	return address_value(t, absolute_percpu, i, t->offsets[i]);
}

/*
 * "name" or "name+0x10" for addr in the symbol at base (malloc'd into
 * *out); nothing for an empty name.
 */
static struct inodedump_error *format_hit(const char *name, uint64_t base,
					  uint64_t addr, char **out)
{
	if (!*name)
		return NULL;
	*out = addr == base ? strdup(name)
			    : idd_strdup_printf("%s+0x%" PRIx64, name,
						addr - base);
	return *out ? NULL : idd_nomem();
}

struct inodedump_error *
idd_kallsyms_from_tables(const struct idd_kallsyms_tables *t,
			 struct idd_kallsyms **out)
{
	_cleanup_free_ struct idd_kallsyms *ks = calloc(1, sizeof(*ks));
	_cleanup_free_ uint8_t *block = NULL;
	struct block_layout l;
	struct inodedump_error *err;
	size_t n = t->num_syms, off = 0, used = 0, cap;
	bool absolute_percpu = false;
	struct tokens tokens;

	if (!ks)
		return idd_nomem();
	if (!n || n > MAX_SYMS)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kallsyms: %zu symbols is no kernel's count", n);
	for (size_t i = 0; t->has_relative_base && i < n; i++)
		if (t->offsets[i] < 0) {
			absolute_percpu = true;
			break;
		}
	/* Names are no longer than the compressed table's bytes times ~8. */
	cap = t->names_len * 4 + n + 1;
	if (cap > MAX_NAMES)
		cap = MAX_NAMES;
	if (!layout_of(n, cap, &l) || !(block = malloc(l.total)))
		return idd_nomem();
	point_at(ks, block, &l, n, cap);
	if (!find_tokens(t, &tokens))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kallsyms: a token runs past kallsyms_token_table");
	for (size_t i = 0; i < n; i++) {
		char name[KSYM_NAME_LEN], type;
		size_t len;

		if (!expand(t, &tokens, &off, &type, name, &len))
			return idd_error(INODEDUMP_ERR_DUMP,
					 "kallsyms: name %zu of %zu runs past "
					 "the table (offset %zu)", i, n, off);
		if (used + len + 1 > cap) {
			uint8_t *grown;

			if (cap == MAX_NAMES)
				return idd_error(INODEDUMP_ERR_DUMP,
						 "kallsyms: names longer than "
						 "%u bytes", MAX_NAMES);
			cap = cap * 2 > MAX_NAMES ? MAX_NAMES : cap * 2;
			layout_of(n, cap, &l);
			grown = realloc(block, l.total);
			if (!grown)
				return idd_nomem();
			block = grown;
			point_at(ks, block, &l, n, cap);
		}
		((uint64_t *)(block + l.addr))[i] =
			address_of(t, absolute_percpu, i);
		((uint32_t *)(block + l.name))[i] = (uint32_t)used;
		((char *)(block + l.type))[i] = type;
		memcpy(block + l.strings + used, name, len + 1);
		used += len + 1;
	}
	/* Shrink to what the names took: the block is what the cache keeps. */
	{
		struct block_layout small;
		uint64_t hdr[4];

		layout_of(n, used, &small);
		memmove(block + small.strings, block + l.strings, used);
		memcpy(hdr, CACHE_MAGIC, 8);
		hdr[1] = n;
		hdr[2] = used;
		hdr[3] = small.nslots;
		memcpy(block, hdr, sizeof(hdr));
		l = small;
	}
	if ((err = sort_block(block, &l, n)))
		return err;
	hash_block(block, &l, n);
	point_at(ks, block, &l, n, used);
	ks->owned = TAKE_PTR(block);
	*out = TAKE_PTR(ks);
	return NULL;
}

/* Decoded tables into the cache (cache_dir NULL: none). */
static void store_block(const char *cache_dir, const struct idd_kallsyms *ks)
{
	struct block_layout l;
	struct idd_cache_part part;

	if (!cache_dir)
		return;
	layout_of(ks->n, ks->strings_len, &l);
	part.data = ks->owned;
	part.size = l.total;
	idd_cache_store(cache_dir, CACHE_NAME, &part, 1);
}

static bool vmcoreinfo_symbol(struct idd_target *t, const char *name,
			      uint64_t *addr)
{
	char key[64];
	const char *v;
	char *end;

	snprintf(key, sizeof(key), "SYMBOL(%s)", name);
	v = idd_target_vmcoreinfo(t, key);
	if (!v || !*v)
		return false;
	*addr = strtoull(v, &end, 16);
	return *end == '\0' || *end == '\n';
}

/* Read the names table, whose length nothing states: chunk by chunk. */
static struct inodedump_error *read_names(struct idd_target *t, uint64_t at,
					  uint32_t num_syms, uint8_t **out,
					  size_t *len)
{
	enum { CHUNK = 64 * 1024 };
	_cleanup_free_ uint8_t *buf = NULL;
	size_t have = 0, off = 0;

	for (uint32_t i = 0; i < num_syms; i++) {
		size_t need;

		for (;;) {
			need = off + 2;
			if (need <= have) {
				size_t l = buf[off];

				if (l & 0x80)
					l = (l & 0x7f) | ((size_t)buf[off + 1] << 7);
				need = off + 1 + (buf[off] & 0x80 ? 1 : 0) + l;
				if (need <= have)
					break;
			}
			if (have >= MAX_NAMES)
				return idd_error_at(INODEDUMP_ERR_DUMP, at,
						    "kallsyms_names: longer "
						    "than %u bytes", MAX_NAMES);
			uint8_t *grown = realloc(buf, have + CHUNK);
			struct inodedump_error *err;

			if (!grown)
				return idd_nomem();
			buf = grown;
			err = idd_target_read(t, at + have, buf + have, CHUNK);
			if (err)
				return idd_error_wrap(err, "kallsyms_names");
			have += CHUNK;
		}
		off = need;
	}
	*len = off;
	*out = TAKE_PTR(buf);
	return NULL;
}

/* ---- the dump's tables, read on demand ---- */

/*
 * Decoding all of kallsyms_names (163 k names on a Debian 6.12 kernel:
 * ~500 compressed pages and most of a first run's instructions) answers
 * the handful of lookups a run makes. The kernel answers them without
 * that: kallsyms_markers says where every 256th name starts, and
 * kallsyms_seqs_of_names (6.2 and later) lists the symbols in name order.
 * VMCOREINFO names neither, but scripts/kallsyms.c writes them at places
 * the tables it names fix, each label aligned to 8 bytes (4 in later
 * kernels: 7.3 measured):
 *
 *   6.4 and later: num_syms, names, markers, token_table, token_index,
 *                  offsets, relative_base (before 7.0), seqs_of_names
 *   before 6.4:    offsets, relative_base, num_syms, names, markers,
 *                  seqs_of_names (6.2, 6.3), token_table, token_index
 *
 * so the markers (4 bytes each; 8 in older kernels) end at token_table or
 * 3 * num_syms bytes (rounded up) before it, and seqs_of_names is
 * 8 bytes after relative_base, after offsets (7.0 and later), or at that
 * second place. A place is taken only when what is there decodes as such
 * a table: markers rising from 0, the first 256 names ending where the
 * second marker says, the last names ending where the markers start
 * (padding aside); seqs_of_names entries below num_syms whose names are
 * in order. A name found is compared whole, so a table taken wrongly
 * could only miss a name. Without seqs_of_names (before 6.2) the first
 * lookup by name decodes the whole table, as before, and caches it.
 */
#define BLOCK_CACHE 8
#define MAX_NAME_BYTES (2 + 0x3fff) /* a length's two bytes hold 14 bits */

struct lazy_block {
	uint32_t no; /* block number + 1; 0: empty */
	uint8_t *bytes;
	size_t len;
};

struct lazy {
	idd_kallsyms_read_fn read;
	void *arg;
	char *cache_dir;
	struct idd_kallsyms_tables tab; /* .names: a block's bytes */
	char *token_table;
	uint16_t token_index[256];
	struct tokens tokens;
	bool absolute_percpu;
	uint64_t names, names_end;
	unsigned align; /* of each table's label: 8, or 4 (7.3) */
	uint32_t *markers, nmarkers;
	uint64_t seqs; /* 0: none */
	struct lazy_block blocks[BLOCK_CACHE];
	struct idd_kallsyms *full; /* decoded whole, for names without seqs */
	bool full_failed;
};

static void lazy_free(struct lazy *z)
{
	if (!z)
		return;
	for (int i = 0; i < BLOCK_CACHE; i++)
		free(z->blocks[i].bytes);
	idd_kallsyms_free(z->full);
	free(z->markers);
	free(z->token_table);
	free(z->cache_dir);
	free(z);
}

/* v rounded up to align (a power of two) */
static uint64_t round_up(uint64_t v, unsigned align)
{
	return (v + align - 1) & ~(uint64_t)(align - 1);
}

/* Block b of the names (256 of them): from the small cache, or read. */
static const struct lazy_block *lz_block(struct lazy *z, uint32_t b)
{
	struct lazy_block *slot = &z->blocks[b % BLOCK_CACHE];
	uint64_t start, end;
	uint8_t *bytes;

	if (slot->no == b + 1)
		return slot;
	start = z->names + z->markers[b];
	end = b + 1 < z->nmarkers ? z->names + z->markers[b + 1] : z->names_end;
	slot->no = 0;
	if (end <= start || !(bytes = realloc(slot->bytes, end - start)))
		return NULL;
	slot->bytes = bytes;
	if (!z->read(z->arg, start, bytes, end - start))
		return NULL;
	slot->len = end - start;
	slot->no = b + 1;
	return slot;
}

/* Name i, without its type letter, into out (KSYM_NAME_LEN). */
static bool lz_name(struct lazy *z, uint32_t i, char *out)
{
	const struct lazy_block *blk = lz_block(z, i >> 8);
	struct idd_kallsyms_tables t = z->tab;
	size_t off = 0, len;
	char type;

	if (!blk)
		return false;
	t.names = blk->bytes;
	t.names_len = blk->len;
	for (uint32_t k = 0; k < (i & 255); k++)
		if (!skip_name(&t, &off))
			return false;
	return expand(&t, &z->tokens, &off, &type, out, &len);
}

static bool lz_addr(struct lazy *z, uint32_t i, uint64_t *addr)
{
	int32_t off;

	if (!z->read(z->arg, z->tab.offsets_addr + 4 * (uint64_t)i, &off, 4))
		return false;
	*addr = address_value(&z->tab, z->absolute_percpu, i, off);
	return true;
}

/* Entry k of seqs_of_names: a symbol's index, 3 bytes big-endian. */
static bool lz_seq(struct lazy *z, uint32_t k, uint32_t *seq)
{
	uint8_t b[3];

	if (!z->read(z->arg, z->seqs + 3 * (uint64_t)k, b, 3))
		return false;
	*seq = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
	return *seq < z->tab.num_syms;
}

/*
 * count names from block b's start end exactly at its end (end: the
 * next marker), or (last: the last block) where the markers start, after
 * the zero bytes that align them; z->names_end is then set.
 */
static bool names_end_at(struct lazy *z, uint32_t b, uint32_t count,
			 uint64_t end, bool last)
{
	uint64_t start = z->names + z->markers[b];
	struct idd_kallsyms_tables t = z->tab;
	_cleanup_free_ uint8_t *bytes = NULL;
	size_t off = 0;

	if (end <= start || end - start > (uint64_t)count * MAX_NAME_BYTES + 8 ||
	    !(bytes = malloc(end - start)) ||
	    !z->read(z->arg, start, bytes, end - start))
		return false;
	t.names = bytes;
	t.names_len = end - start;
	for (uint32_t k = 0; k < count; k++)
		if (!skip_name(&t, &off))
			return false;
	if (!last)
		return off == t.names_len;
	if (round_up(start + off, z->align) != end)
		return false;
	for (size_t k = off; k < t.names_len; k++)
		if (bytes[k])
			return false;
	z->names_end = start + off;
	return true;
}

/* Whether kallsyms_markers, width bytes each, end at end (its label's). */
static bool try_markers(struct lazy *z, uint64_t end, unsigned width)
{
	uint32_t n = z->tab.num_syms, m = z->nmarkers;
	uint64_t bytes = round_up((uint64_t)m * width, z->align), start;
	_cleanup_free_ uint8_t *raw = NULL;

	if (end < bytes || (start = end - bytes) <= z->names ||
	    !(raw = malloc((size_t)m * width)) ||
	    !z->read(z->arg, start, raw, (size_t)m * width))
		return false;
	for (uint32_t k = 0; k < m; k++) {
		uint64_t v;

		if (width == 8) {
			memcpy(&v, raw + 8 * k, 8);
		} else {
			uint32_t v32;

			memcpy(&v32, raw + 4 * k, 4);
			v = v32;
		}
		/*
		 * Rising from 0 inside the names; each name takes at least
		 * 2 bytes (a length, a token), at most MAX_NAME_BYTES.
		 */
		if (v >= start - z->names || (!k && v))
			return false;
		if (k && (v < (uint64_t)z->markers[k - 1] + 512 ||
			  v - z->markers[k - 1] > 256ull * MAX_NAME_BYTES))
			return false;
		z->markers[k] = (uint32_t)v;
	}
	if (m > 1 && !names_end_at(z, 0, 256, z->names + z->markers[1], false))
		return false;
	return names_end_at(z, m - 1, n - 256 * (m - 1), start, true);
}

/*
 * Whether seqs_of_names is at at: entries below num_syms, and the names
 * of a sample of them (both ends, two places between, each with its
 * neighbour) in order.
 */
static bool try_seqs(struct lazy *z, uint64_t at)
{
	uint32_t n = z->tab.num_syms, ks[8], nk = 0;
	char prev[KSYM_NAME_LEN], name[KSYM_NAME_LEN];
	const uint32_t from[4] = { 0, n / 3, 2 * (n / 3), n - 2 };

	if (n < 2)
		return false;
	for (int i = 0; i < 4; i++)
		for (uint32_t k = from[i]; k <= from[i] + 1 && k < n; k++)
			if (!nk || k > ks[nk - 1])
				ks[nk++] = k;
	z->seqs = at;
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t seq;

		if (!lz_seq(z, ks[i], &seq) || !lz_name(z, seq, name) ||
		    (i && strcmp(prev, name) > 0))
			break;
		memcpy(prev, name, sizeof(name));
		if (i + 1 == nk)
			return true;
	}
	z->seqs = 0;
	return false;
}

/* Find markers and seqs_of_names; false when no layout fits. */
static bool locate(struct lazy *z, const struct idd_kallsyms_places *at)
{
	uint64_t n = z->tab.num_syms;

	for (z->align = 8; z->align >= 4; z->align /= 2) {
		uint64_t seqs_before = round_up(3 * n, z->align);
		uint64_t after_offsets =
			round_up(z->tab.offsets_addr + 4 * n, z->align);

		if (at->names % z->align)
			continue;
		/* 8-byte markers: older kernels, whose labels align to 8 */
		for (unsigned width = 4; width <= z->align; width += 4) {
			if (try_markers(z, at->token_table, width)) {
				/* 6.4 and later; or before 6.2 (none) */
				if (z->tab.has_relative_base)
					try_seqs(z, at->relative_base + 8);
				else
					try_seqs(z, after_offsets);
				return true;
			}
			if (at->token_table > seqs_before &&
			    try_markers(z, at->token_table - seqs_before,
					width)) {
				/* 6.2, 6.3 */
				try_seqs(z, at->token_table - seqs_before);
				return true;
			}
		}
	}
	return false;
}

struct inodedump_error *
idd_kallsyms_open_lazy(const struct idd_kallsyms_tables *tab,
		       const struct idd_kallsyms_places *at,
		       idd_kallsyms_read_fn read, void *arg,
		       const char *cache_dir, struct idd_kallsyms **out)
{
	_cleanup_free_ struct idd_kallsyms *ks = calloc(1, sizeof(*ks));
	struct lazy *z = calloc(1, sizeof(*z));
	uint64_t first, last;
	int32_t off;

	*out = NULL;
	if (!tab->num_syms || tab->num_syms > MAX_SYMS) {
		free(z);
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kallsyms: %" PRIu32 " symbols is no kernel's "
				 "count", tab->num_syms);
	}
	if (!ks || !z) {
		free(z);
		return idd_nomem();
	}
	ks->lazy = z;
	ks->n = tab->num_syms;
	z->read = read;
	z->arg = arg;
	z->tab = *tab;
	z->tab.names = NULL;
	z->tab.offsets = NULL;
	z->names = at->names;
	z->nmarkers = (tab->num_syms + 255) / 256;
	z->token_table = malloc(tab->token_table_len);
	z->markers = malloc(z->nmarkers * sizeof(*z->markers));
	if (cache_dir && !(z->cache_dir = strdup(cache_dir)))
		goto nomem;
	if (!z->token_table || !z->markers)
		goto nomem;
	memcpy(z->token_table, tab->token_table, tab->token_table_len);
	memcpy(z->token_index, tab->token_index, sizeof(z->token_index));
	z->tab.token_table = z->token_table;
	z->tab.token_index = z->token_index;
	if (!find_tokens(&z->tab, &z->tokens))
		goto bad;
	/* See address_of: the last symbol is below zero only with it. */
	if (tab->has_relative_base) {
		if (!read(arg, tab->offsets_addr + 4 * (uint64_t)(ks->n - 1), &off, 4))
			goto bad;
		z->absolute_percpu = off < 0;
	}
	if (!lz_addr(z, 0, &first) || !lz_addr(z, (uint32_t)ks->n - 1, &last) ||
	    first > last || !locate(z, at))
		goto bad;
	*out = TAKE_PTR(ks);
	return NULL;
nomem:
	idd_kallsyms_free(TAKE_PTR(ks));
	return idd_nomem();
bad:
	idd_kallsyms_free(TAKE_PTR(ks));
	return idd_error(INODEDUMP_ERR_DUMP,
			 "kallsyms: kallsyms_markers not found where "
			 "scripts/kallsyms.c puts it");
}

bool idd_kallsyms_by_name(const struct idd_kallsyms *ks)
{
	return !ks->lazy || ks->lazy->seqs;
}

bool idd_kallsyms_is_lazy(const struct idd_kallsyms *ks)
{
	return ks->lazy != NULL;
}

/* The whole table decoded from the dump (and cached), once; NULL: none. */
static struct idd_kallsyms *lz_full(struct lazy *z)
{
	struct idd_kallsyms_tables t = z->tab;
	_cleanup_free_ uint8_t *names = NULL;
	_cleanup_free_ int32_t *offs = NULL;
	struct inodedump_error *err;
	size_t n = z->tab.num_syms;

	if (z->full || z->full_failed)
		return z->full;
	z->full_failed = true;
	t.names_len = z->names_end - z->names;
	if (!(names = malloc(t.names_len)) || !(offs = malloc(n * 4)) ||
	    !z->read(z->arg, z->names, names, t.names_len) ||
	    !z->read(z->arg, z->tab.offsets_addr, offs, n * 4))
		return NULL;
	t.names = names;
	t.offsets = offs;
	err = idd_kallsyms_from_tables(&t, &z->full);
	if (err) {
		inodedump_error_free(err);
		return NULL;
	}
	store_block(z->cache_dir, z->full);
	z->full_failed = false;
	return z->full;
}

/* The lowest-addressed symbol of that name, by seqs_of_names. */
static bool lazy_address(struct lazy *z, const char *name, uint64_t *addr)
{
	uint32_t lo = 0, hi = z->tab.num_syms, seq;
	char got[KSYM_NAME_LEN];

	if (!z->seqs) {
		const struct idd_kallsyms *full = lz_full(z);

		return full && idd_kallsyms_address(full, name, addr);
	}
	while (lo < hi) { /* the first name not below name */
		uint32_t mid = lo + (hi - lo) / 2;

		if (!lz_seq(z, mid, &seq) || !lz_name(z, seq, got))
			return false;
		if (strcmp(got, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < z->tab.num_syms && lz_seq(z, lo, &seq) &&
	       lz_name(z, seq, got) && !strcmp(got, name) &&
	       lz_addr(z, seq, addr);
}

/* As idd_kallsyms_name, by a search of kallsyms_offsets in the dump. */
static struct inodedump_error *lazy_name(struct lazy *z, uint64_t addr,
					 char **out)
{
	uint32_t lo = 0, hi = z->tab.num_syms, i;
	uint64_t a, base;
	char name[KSYM_NAME_LEN];

	while (lo < hi) { /* first entry above addr */
		uint32_t mid = lo + (hi - lo) / 2;

		if (!lz_addr(z, mid, &a))
			return NULL;
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !lz_addr(z, (i = lo - 1), &base))
		return NULL;
	while (i > 0 && lz_addr(z, i - 1, &a) && a == base)
		i--;
	if (lo == z->tab.num_syms && addr - base >= 0x10000)
		return NULL;
	if (!lz_name(z, i, name))
		return NULL;
	return format_hit(name, base, addr, out);
}

/* idd_target_read for the lazy tables. */
static bool target_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct inodedump_error *err = idd_target_read(arg, addr, buf, len);

	inodedump_error_free(err);
	return !err;
}

struct inodedump_error *idd_kallsyms_load(struct idd_target *t,
					  const char *cache_dir,
					  struct idd_kallsyms **out,
					  bool *from_cache_out)
{
	uint64_t names, num, token_table, token_index, offsets, base_at = 0;
	struct idd_kallsyms_tables tab = { 0 };
	_cleanup_free_ uint8_t *names_buf = NULL;
	_cleanup_free_ int32_t *offs = NULL;
	_cleanup_free_ char *tokens = NULL;
	uint16_t index[256];
	uint32_t count;
	size_t tokens_len = 0;
	struct inodedump_error *err;
	struct idd_kallsyms *ks;

	*from_cache_out = false;
	if (cache_dir) {
		ks = calloc(1, sizeof(*ks));
		if (!ks)
			return idd_nomem();
		if (from_cache(cache_dir, ks)) {
			*from_cache_out = true;
			*out = ks;
			return NULL;
		}
		free(ks);
	}
	if (!vmcoreinfo_symbol(t, "kallsyms_names", &names) ||
	    !vmcoreinfo_symbol(t, "kallsyms_num_syms", &num) ||
	    !vmcoreinfo_symbol(t, "kallsyms_token_table", &token_table) ||
	    !vmcoreinfo_symbol(t, "kallsyms_token_index", &token_index) ||
	    !vmcoreinfo_symbol(t, "kallsyms_offsets", &offsets))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's VMCOREINFO names no kallsyms tables "
				 "(SYMBOL(kallsyms_names) and the others: "
				 "kernels before 6.0 or without CONFIG_KALLSYMS)");
	tab.has_relative_base =
		vmcoreinfo_symbol(t, "kallsyms_relative_base", &base_at);
	if ((err = idd_target_read(t, num, &count, 4)))
		return idd_error_wrap(err, "kallsyms_num_syms");
	if (!count || count > MAX_SYMS)
		return idd_error_at(INODEDUMP_ERR_DUMP, num,
				    "kallsyms_num_syms is %" PRIu32, count);
	if (tab.has_relative_base &&
	    (err = idd_target_read_u64(t, base_at, &tab.relative_base)))
		return idd_error_wrap(err, "kallsyms_relative_base");
	if ((err = idd_target_read(t, token_index, index, sizeof(index))))
		return idd_error_wrap(err, "kallsyms_token_index");
	for (int i = 0; i < 256; i++)
		tokens_len = index[i] > tokens_len ? index[i] : tokens_len;
	tokens_len += 256; /* the last token and its NUL */
	tokens = malloc(tokens_len);
	if (!tokens)
		return idd_nomem();
	if ((err = idd_target_read(t, token_table, tokens, tokens_len)))
		return idd_error_wrap(err, "kallsyms_token_table");
	tab.num_syms = count;
	tab.token_table = tokens;
	tab.token_table_len = tokens_len;
	tab.token_index = index;
	tab.offsets_addr = offsets;
	/* Read on demand where the layout is found; else decoded whole. */
	{
		const struct idd_kallsyms_places at = {
			.names = names,
			.token_table = token_table,
			.relative_base = base_at,
		};

		err = idd_kallsyms_open_lazy(&tab, &at, target_read, t,
					     cache_dir, &ks);
		if (!err) {
			*out = ks;
			return NULL;
		}
		if (idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
	}
	if (!(offs = malloc((size_t)count * 4)))
		return idd_nomem();
	if ((err = idd_target_read(t, offsets, offs, (size_t)count * 4)))
		return idd_error_wrap(err, "kallsyms_offsets");
	if ((err = read_names(t, names, count, &names_buf, &tab.names_len)))
		return err;
	tab.names = names_buf;
	tab.offsets = offs;
	if ((err = idd_kallsyms_from_tables(&tab, &ks)))
		return err;
	store_block(cache_dir, ks);
	*out = ks;
	return NULL;
}

bool idd_kallsyms_address(const struct idd_kallsyms *ks, const char *name,
			  uint64_t *addr)
{
	uint32_t h;

	if (ks->lazy)
		return lazy_address(ks->lazy, name, addr);
	h = hash_name(name) & ks->mask;

	/* Bounded: a cache file may have every slot taken. */
	for (uint32_t probes = 0; ks->slots[h] && probes <= ks->mask;
	     probes++, h = (h + 1) & ks->mask) {
		uint32_t i = ks->slots[h] - 1;

		if (i < ks->n && ks->name[i] < ks->strings_len &&
		    !strcmp(ks->strings + ks->name[i], name)) {
			*addr = ks->addr[i];
			return true;
		}
	}
	return false;
}

/*
 * The symbol covering addr: the first of those at the greatest address
 * not above it (kallsyms' own order puts the best alias first), covering
 * up to the next symbol's address; the last covers 64 KiB.
 */
struct inodedump_error *idd_kallsyms_name(const struct idd_kallsyms *ks,
					  uint64_t addr, char **out)
{
	size_t lo = 0, hi = ks->n, i, next;

	*out = NULL;
	if (ks->lazy)
		return lazy_name(ks->lazy, addr, out);
	while (lo < hi) { /* first entry above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (ks->addr[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	next = lo;
	i = lo - 1;
	while (i > 0 && ks->addr[i - 1] == ks->addr[i])
		i--;
	if (next == ks->n && addr - ks->addr[i] >= 0x10000)
		return NULL;
	if (ks->name[i] >= ks->strings_len)
		return NULL; /* a damaged cache file */
	return format_hit(ks->strings + ks->name[i], ks->addr[i], addr, out);
}
