// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kallsyms tables decoded whole into one block (tokens expanded,
 * offsets made addresses, sorted, names hashed), which is also what the
 * cache keeps; and symbols looked up in such a block.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "types/kallsyms_internal.h"

#define CACHE_NAME "kallsyms"
#define CACHE_MAGIC "IDDKSYM2"

void idd_ksym_decoded_free(struct idd_kallsyms *ks)
{
	if (!ks)
		return;
	idd_cache_unmap(&ks->map);
	free(ks->owned);
	free(ks);
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
bool idd_ksym_from_cache(const char *dir, struct idd_kallsyms *ks)
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

/*
 * A byte a symbol's name or type letter may have: printable, no space
 * (identifiers, '.' of a local's or LTO's suffix, '$', '@' in arm64's).
 */
static bool name_byte(uint8_t c)
{
	return c > ' ' && c < 0x7f;
}

/*
 * False when a token does not end inside the token table, is not where
 * scripts/kallsyms.c puts it (each right after the one before and its
 * NUL: a token index that is not so is damaged), or holds a byte no
 * symbol's name has: what names it would make are not the kernel's.
 */
bool idd_ksym_find_tokens(const struct idd_kallsyms_tables *t, struct kallsyms_tokens *k)
{
	size_t next = 0;

	for (int i = 0; i < 256; i++) {
		size_t start = t->token_index[i], end = start;

		if (start != next)
			return false;
		while (end < t->token_table_len &&
		       name_byte(t->token_table[end]) && end - start < 255)
			end++;
		if (end >= t->token_table_len || t->token_table[end])
			return false;
		k->at[i] = t->token_table + start;
		k->len[i] = (uint8_t)(end - start);
		next = end + 1;
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
bool idd_ksym_skip_name(const struct idd_kallsyms_tables *t, size_t *off)
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
bool idd_ksym_expand(const struct idd_kallsyms_tables *t, const struct kallsyms_tokens *k,
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
uint64_t idd_ksym_address_value(const struct idd_kallsyms_tables *t,
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
	return idd_ksym_address_value(t, absolute_percpu, i, t->offsets[i]);
}

/*
 * "name" or "name+0x10" for addr in the symbol at base (malloc'd into
 * *out); nothing for an empty name.
 */
struct inodedump_error *idd_ksym_format_hit(const char *name, uint64_t base,
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
	struct kallsyms_tokens tokens;

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
	if (!idd_ksym_find_tokens(t, &tokens))
		return idd_error(INODEDUMP_ERR_DUMP, "%s", IDD_KSYM_TOKENS_BAD);
	for (size_t i = 0; i < n; i++) {
		char name[KSYM_NAME_LEN], type;
		size_t len;

		if (!idd_ksym_expand(t, &tokens, &off, &type, name, &len))
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
void idd_ksym_store(const char *cache_dir, const struct idd_kallsyms *ks)
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

bool idd_ksym_decoded_address(const struct idd_kallsyms *ks, const char *name,
			      uint64_t *addr)
{
	uint32_t h = hash_name(name) & ks->mask;

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
struct inodedump_error *idd_ksym_decoded_name(const struct idd_kallsyms *ks,
					      uint64_t addr, char **out)
{
	size_t lo = 0, hi = ks->n, i, next;

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
	return idd_ksym_format_hit(ks->strings + ks->name[i], ks->addr[i], addr, out);
}
