// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dump's kallsyms tables read on demand: kallsyms_markers and
 * kallsyms_seqs_of_names found by their layout, a name or an address
 * then read where it is instead of decoding all of kallsyms_names.
 */
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cleanup.h"
#include "types/kallsyms_internal.h"

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

struct kallsyms_lazy {
	idd_kallsyms_read_fn read;
	void *arg;
	char *cache_dir;
	struct idd_kallsyms_tables tab; /* .names: a block's bytes */
	char *token_table;
	uint16_t token_index[256];
	struct kallsyms_tokens tokens;
	bool absolute_percpu;
	uint64_t names, names_end;
	unsigned align; /* of each table's label: 8, or 4 (7.3) */
	uint32_t *markers, nmarkers;
	uint64_t seqs; /* 0: none */
	struct lazy_block blocks[BLOCK_CACHE];
	struct idd_kallsyms *full; /* decoded whole, for names without seqs */
	bool full_failed;
};

void idd_ksym_lazy_free(struct kallsyms_lazy *z)
{
	if (!z)
		return;
	for (int i = 0; i < BLOCK_CACHE; i++)
		free(z->blocks[i].bytes);
	idd_ksym_decoded_free(z->full);
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
static const struct lazy_block *lz_block(struct kallsyms_lazy *z, uint32_t b)
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
static bool lz_name(struct kallsyms_lazy *z, uint32_t i, char *out)
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
		if (!idd_ksym_skip_name(&t, &off))
			return false;
	return idd_ksym_expand(&t, &z->tokens, &off, &type, out, &len);
}

static bool lz_addr(struct kallsyms_lazy *z, uint32_t i, uint64_t *addr)
{
	int32_t off;

	if (!z->read(z->arg, z->tab.offsets_addr + 4 * (uint64_t)i, &off, 4))
		return false;
	idd_words32_to_host(&off, 1, z->tab.big_endian);
	*addr = idd_ksym_address_value(&z->tab, z->absolute_percpu, i, off);
	return true;
}

/* Entry k of seqs_of_names: a symbol's index, 3 bytes big-endian. */
static bool lz_seq(struct kallsyms_lazy *z, uint32_t k, uint32_t *seq)
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
static bool names_end_at(struct kallsyms_lazy *z, uint32_t b, uint32_t count,
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
		if (!idd_ksym_skip_name(&t, &off))
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
static bool try_markers(struct kallsyms_lazy *z, uint64_t end, unsigned width)
{
	uint32_t n = z->tab.num_syms, m = z->nmarkers;
	uint64_t bytes = round_up((uint64_t)m * width, z->align), start;
	_cleanup_free_ uint8_t *raw = NULL;

	if (end < bytes || (start = end - bytes) <= z->names ||
	    !(raw = malloc((size_t)m * width)) ||
	    !z->read(z->arg, start, raw, (size_t)m * width))
		return false;
	for (uint32_t k = 0; k < m; k++) {
		uint64_t v = idd_load(raw + width * k, width,
				      z->tab.big_endian);

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
static bool try_seqs(struct kallsyms_lazy *z, uint64_t at)
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
static bool locate(struct kallsyms_lazy *z, const struct idd_kallsyms_places *at)
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
idd_ksym_lazy_open(const struct idd_kallsyms_tables *tab,
		   const struct idd_kallsyms_places *at,
		   idd_kallsyms_read_fn read, void *arg, const char *cache_dir,
		   struct kallsyms_lazy **out)
{
	struct kallsyms_lazy *z = calloc(1, sizeof(*z));
	uint64_t first, last;
	int32_t off;

	*out = NULL;
	if (!z)
		return idd_nomem();
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
	if (!idd_ksym_find_tokens(&z->tab, &z->tokens)) {
		idd_ksym_lazy_free(z);
		return idd_error(INODEDUMP_ERR_DUMP, "%s", IDD_KSYM_TOKENS_BAD);
	}
	/* See address_of: the last symbol is below zero only with it. */
	if (tab->has_relative_base) {
		if (!read(arg, tab->offsets_addr + 4 * (uint64_t)(tab->num_syms - 1),
			  &off, 4))
			goto bad;
		idd_words32_to_host(&off, 1, tab->big_endian);
		z->absolute_percpu = off < 0;
	}
	if (!lz_addr(z, 0, &first) ||
	    !lz_addr(z, tab->num_syms - 1, &last) || first > last ||
	    !locate(z, at))
		goto bad;
	*out = z;
	return NULL;
nomem:
	idd_ksym_lazy_free(z);
	return idd_nomem();
bad:
	idd_ksym_lazy_free(z);
	return idd_error(INODEDUMP_ERR_DUMP,
			 "kallsyms: kallsyms_markers not found where "
			 "scripts/kallsyms.c puts it");
}

bool idd_ksym_lazy_by_name(const struct kallsyms_lazy *z)
{
	return z->seqs;
}

/* The whole table decoded from the dump (and cached), once; NULL: none. */
static struct idd_kallsyms *lz_full(struct kallsyms_lazy *z)
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
	idd_words32_to_host(offs, n, z->tab.big_endian);
	t.names = names;
	t.offsets = offs;
	err = idd_kallsyms_from_tables(&t, &z->full);
	if (err) {
		inodedump_error_free(err);
		return NULL;
	}
	idd_ksym_store(z->cache_dir, z->full);
	z->full_failed = false;
	return z->full;
}

/* The lowest-addressed symbol of that name, by seqs_of_names. */
bool idd_ksym_lazy_address(struct kallsyms_lazy *z, const char *name, uint64_t *addr)
{
	uint32_t lo = 0, hi = z->tab.num_syms, seq;
	char got[KSYM_NAME_LEN];

	if (!z->seqs) {
		const struct idd_kallsyms *full = lz_full(z);

		return full && idd_ksym_decoded_address(full, name, addr);
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
struct inodedump_error *idd_ksym_lazy_name(struct kallsyms_lazy *z, uint64_t addr,
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
	return idd_ksym_format_hit(name, base, addr, out);
}
