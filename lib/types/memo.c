// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bytes the kernel's build fixes (its BTF, its kallsyms tables), kept a
 * 4 KiB chunk at a time in the per-kernel cache (cache.c) as a run reads
 * them on demand, so the next run of that kernel copies them from a
 * mapped file instead of inflating the dump's pages again: on the
 * committed 7.3 dump, 286 of the 389 pages a BTF-only decode inflated.
 *
 * A region is named by its caller and placed by this dump's address of
 * its start; a chunk is kept by its offset from there, so another boot of
 * the kernel (KASLR moves the image by whole pages) finds it. Only what
 * lies inside the region is ever served; a read that leaves it, or a
 * chunk the dump cannot give whole, goes to the dump as before. A hole
 * (kallsyms_relative_base: the address of _text, which KASLR's
 * relocation rewrites at boot) is kept as zeros and always read from the
 * dump. A region of addresses into another (the kernel's index of its
 * BTF: where each record is) is kept less a bias (the records' start in
 * this boot), a word at a time, and given back plus this boot's.
 *
 * The file: a header (magic, version, chunk size, the region's length and
 * its start's place in a chunk, the count, a checksum of the numbers and
 * hashes), the chunks' numbers rising, a hash of each chunk, then the
 * chunks. A file that fails a check, or whose first, middle or last chunk
 * differs from the dump's bytes, is dropped and made again from this
 * run's reads; a chunk whose hash differs when it is first used is read
 * from the dump instead.
 */
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/types.h"

#define MEMO_MAGIC "IDDMEMO1"
#define MEMO_VERSION 1u
#define CHUNK 4096u
/* A region larger than this (no BTF or kallsyms is) is not kept. */
#define MEMO_MAX_REGION (64u << 20)
/*
 * A read longer than this (btf_scan.c reads 256 KiB at a time) is a
 * table read whole, which its reader keeps in a cache file of its own
 * (vmlinux.btf, kallsyms): the dump's, as before, on the dump's threads.
 */
#define MEMO_MAX_READ (256u << 10)
#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

struct memo_header {
	char magic[8];
	uint32_t version, chunk;
	uint64_t len;
	uint32_t phase, n;
	uint64_t checksum; /* of the numbers and the hashes */
};

struct idd_memo {
	struct idd_target *t;
	char *dir, *name;
	uint64_t start, len, base; /* base: start rounded down to a chunk */
	uint64_t hole, hole_len;   /* bytes the boot sets: never kept */
	uint64_t bias;		   /* words kept less this (biased) */
	bool biased, big;
	uint32_t nchunks;
	const uint8_t **chunk; /* by number: its CHUNK bytes, or NULL */
	uint64_t *want;	       /* a chunk's hash (from the file, or made) */
	bool *checked;	       /* its bytes had it, or came from the dump */
	uint8_t **fresh;       /* read in this run (freed with the memo) */
	uint32_t nfresh;
	struct idd_cache_file file;
};

static uint64_t fnv64(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

static size_t numbers_size(uint32_t n)
{
	return ((size_t)n * 4 + 7) & ~(size_t)7;
}

/* A chunk's hash, a word at a time (a chunk costs ~2 k instructions). */
static uint64_t chunk_hash(const uint8_t *c)
{
	uint64_t h = FNV_OFFSET, w;

	for (size_t i = 0; i < CHUNK; i += 8) {
		memcpy(&w, c + i, 8);
		h = (h ^ w) * FNV_PRIME;
		h ^= h >> 29;
	}
	return h;
}

/* The part of chunk k inside the region: [*from, *to) as addresses. */
static void chunk_span(const struct idd_memo *m, uint32_t k, uint64_t *from,
		       uint64_t *to)
{
	uint64_t a = m->base + (uint64_t)k * CHUNK, b = a + CHUNK;

	*from = a < m->start ? m->start : a;
	*to = b > m->start + m->len ? m->start + m->len : b;
}

/* n bytes of 8-byte words (in the dump's order) at from, plus add, to to. */
static void add_words(const struct idd_memo *m, uint8_t *to,
		      const uint8_t *from, size_t n, uint64_t add)
{
	const bool swap = m->big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);

	for (size_t w = 0; w + 8 <= n; w += 8) {
		uint64_t v;

		memcpy(&v, from + w, 8);
		v = swap ? __builtin_bswap64(__builtin_bswap64(v) + add) : v + add;
		memcpy(to + w, &v, 8);
	}
}

/* Whether addr..addr+len meets the hole. */
static bool in_hole(const struct idd_memo *m, uint64_t addr, uint64_t len)
{
	return m->hole_len && addr < m->hole + m->hole_len &&
	       m->hole < addr + len;
}

/* Chunk k's bytes from the dump into page (CHUNK bytes, zero-padded). */
static bool read_chunk(struct idd_memo *m, uint32_t k, uint8_t *page)
{
	uint64_t from, to, a = m->base + (uint64_t)k * CHUNK;
	struct inodedump_error *err;

	chunk_span(m, k, &from, &to);
	memset(page, 0, CHUNK);
	err = idd_target_read_unexplained(m->t, from, page + (from - a), to - from);
	inodedump_error_free(err);
	if (!err && m->biased)
		add_words(m, page + (from - a), page + (from - a), to - from,
			  0 - m->bias);
	if (!err && in_hole(m, a, CHUNK)) {
		uint64_t h0 = m->hole > a ? m->hole : a,
			 h1 = m->hole + m->hole_len < a + CHUNK ? m->hole + m->hole_len
								: a + CHUNK;

		memset(page + (h0 - a), 0, h1 - h0);
	}
	return !err;
}

/* Whether the chunk kept as k has the dump's bytes. */
static bool same_as_dump(struct idd_memo *m, uint32_t k, const uint8_t *kept)
{
	uint8_t page[CHUNK];

	return read_chunk(m, k, page) && !memcmp(page, kept, CHUNK);
}

/* The cache's chunks when its file is whole and agrees with the dump. */
static void load(struct idd_memo *m)
{
	const struct memo_header *h;
	const uint32_t *num;
	const uint64_t *hash;
	const uint8_t *data;
	size_t need, meta;

	if (!idd_cache_map(m->dir, m->name, &m->file))
		return;
	h = (const void *)m->file.data;
	if (m->file.size < sizeof(*h) || memcmp(h->magic, MEMO_MAGIC, 8) ||
	    h->version != MEMO_VERSION || h->chunk != CHUNK || h->len != m->len ||
	    h->phase != m->start - m->base || !h->n || h->n > m->nchunks)
		goto drop;
	meta = numbers_size(h->n) + (size_t)h->n * 8;
	need = sizeof(*h) + meta + (size_t)h->n * CHUNK;
	if (m->file.size != need ||
	    fnv64(FNV_OFFSET, h + 1, meta) != h->checksum)
		goto drop;
	num = (const void *)(h + 1);
	hash = (const void *)((const uint8_t *)(h + 1) + numbers_size(h->n));
	data = (const uint8_t *)(h + 1) + meta;
	for (uint32_t i = 0; i < h->n; i++)
		if (num[i] >= m->nchunks || (i && num[i] <= num[i - 1]))
			goto drop;
	for (uint32_t i = 0; i < h->n; i++) {
		m->chunk[num[i]] = data + (size_t)i * CHUNK;
		m->want[num[i]] = hash[i];
	}
	/* The first, middle and last chunk against the dump: another
	 * kernel's, or a damaged dump's, bytes are not taken. */
	for (uint32_t j = 0; j < 3; j++) {
		uint32_t i = j == 0 ? 0 : j == 1 ? h->n / 2 : h->n - 1;

		if (!same_as_dump(m, num[i], m->chunk[num[i]]))
			goto forget;
		m->checked[num[i]] = chunk_hash(m->chunk[num[i]]) == hash[i];
		if (!m->checked[num[i]])
			goto forget;
	}
	return;
forget:
	memset(m->chunk, 0, m->nchunks * sizeof(*m->chunk));
drop:
	idd_cache_unmap(&m->file);
}

static struct idd_memo *open_memo(struct idd_target *t, const char *cache_dir,
				  const char *name, uint64_t start, uint64_t len,
				  uint64_t hole, uint64_t hole_len,
				  const uint64_t *bias)
{
	struct idd_memo *m;
	uint64_t chunks;

	if (!cache_dir || !len || len > MEMO_MAX_REGION || start + len < start)
		return NULL;
	if (!(m = calloc(1, sizeof(*m))))
		return NULL;
	m->t = t;
	m->start = start;
	m->len = len;
	m->hole = hole;
	m->hole_len = hole_len;
	m->biased = bias != NULL;
	m->bias = bias ? *bias : 0;
	m->big = idd_target_big_endian(t);
	m->base = start & ~(uint64_t)(CHUNK - 1);
	chunks = (start + len - m->base + CHUNK - 1) / CHUNK;
	m->nchunks = (uint32_t)chunks;
	m->dir = strdup(cache_dir);
	m->name = strdup(name);
	m->chunk = calloc(m->nchunks, sizeof(*m->chunk));
	m->want = calloc(m->nchunks, sizeof(*m->want));
	m->checked = calloc(m->nchunks, sizeof(*m->checked));
	m->fresh = calloc(m->nchunks, sizeof(*m->fresh));
	if (!m->dir || !m->name || !m->chunk || !m->want || !m->checked ||
	    !m->fresh) {
		idd_memo_close(m, false);
		return NULL;
	}
	load(m);
	return m;
}

struct idd_memo *idd_memo_open(struct idd_target *t, const char *cache_dir,
			       const char *name, uint64_t start, uint64_t len,
			       uint64_t hole, uint64_t hole_len)
{
	return open_memo(t, cache_dir, name, start, len, hole, hole_len, NULL);
}

struct idd_memo *idd_memo_open_biased(struct idd_target *t,
				      const char *cache_dir, const char *name,
				      uint64_t start, uint64_t len, uint64_t bias)
{
	if (start % 8 || len % 8)
		return NULL;
	return open_memo(t, cache_dir, name, start, len, 0, 0, &bias);
}

/* n bytes at in of the biased chunk c into out, this boot's bias added. */
static void unbias(const struct idd_memo *m, const uint8_t *c, size_t in,
		   size_t n, uint8_t *out)
{
	uint8_t words[CHUNK];
	size_t w0 = in & ~(size_t)7, w1 = (in + n + 7) & ~(size_t)7;

	add_words(m, words + w0, c + w0, w1 - w0, m->bias);
	memcpy(out, words + in, n);
}

/* Chunk k, from the cache or read now; NULL when the dump lacks it. */
static const uint8_t *get_chunk(struct idd_memo *m, uint32_t k)
{
	uint8_t *page;

	if (m->chunk[k] && m->checked[k])
		return m->chunk[k];
	if (m->chunk[k] && chunk_hash(m->chunk[k]) == m->want[k]) {
		m->checked[k] = true;
		return m->chunk[k];
	}
	m->chunk[k] = NULL;
	if (!(page = malloc(CHUNK)))
		return NULL;
	if (!read_chunk(m, k, page)) {
		free(page);
		return NULL;
	}
	m->fresh[k] = page;
	m->nfresh++;
	m->want[k] = chunk_hash(page);
	m->checked[k] = true;
	return m->chunk[k] = page;
}

bool idd_memo_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct idd_memo *m = arg;
	struct inodedump_error *err;
	uint8_t *out = buf;

	if (len <= MEMO_MAX_READ && in_hole(m, addr, len)) {
		/* the hole from the dump, what is around it as any read */
		uint64_t h0 = m->hole > addr ? m->hole : addr,
			 h1 = m->hole + m->hole_len < addr + len ? m->hole + m->hole_len
								 : addr + len;

		if (h0 > addr && !idd_memo_read(m, addr, out, h0 - addr))
			return false;
		err = idd_target_read_unexplained(m->t, h0, out + (h0 - addr), h1 - h0);
		inodedump_error_free(err);
		return !err && (h1 == addr + len ||
				idd_memo_read(m, h1, out + (h1 - addr), addr + len - h1));
	}
	if (len <= MEMO_MAX_READ && addr >= m->start && len <= m->len &&
	    addr - m->start <= m->len - len) {
		uint64_t at = addr;
		size_t left = len;

		while (left) {
			uint32_t k = (uint32_t)((at - m->base) / CHUNK);
			size_t in = (at - m->base) % CHUNK,
			       n = CHUNK - in < left ? CHUNK - in : left;
			const uint8_t *c = get_chunk(m, k);

			if (!c)
				break; /* the dump's own read says why */
			if (m->biased)
				unbias(m, c, in, n, out);
			else
				memcpy(out, c + in, n);
			out += n;
			at += n;
			left -= n;
		}
		if (!left)
			return true;
	}
	err = idd_target_read_unexplained(m->t, addr, buf, len);
	inodedump_error_free(err);
	return !err;
}

/* Every chunk known now, rising, into the cache. */
static void store(const struct idd_memo *m)
{
	_cleanup_free_ uint8_t *meta = NULL, *data = NULL;
	struct memo_header h = { .version = MEMO_VERSION, .chunk = CHUNK };
	uint32_t n = 0, *num;
	uint64_t *hash;
	size_t meta_size;

	for (uint32_t k = 0; k < m->nchunks; k++)
		n += m->chunk[k] != NULL;
	meta_size = numbers_size(n) + (size_t)n * 8;
	if (!(meta = calloc(1, meta_size)) ||
	    !(data = malloc((size_t)n * CHUNK)))
		return;
	num = (uint32_t *)(void *)meta;
	hash = (uint64_t *)(void *)(meta + numbers_size(n));
	n = 0;
	for (uint32_t k = 0; k < m->nchunks; k++) {
		if (!m->chunk[k])
			continue;
		num[n] = k;
		/* a chunk of the file keeps the hash it came with: a
		 * damaged one is not made to look whole */
		hash[n] = m->want[k];
		memcpy(data + (size_t)n++ * CHUNK, m->chunk[k], CHUNK);
	}
	memcpy(h.magic, MEMO_MAGIC, 8);
	h.len = m->len;
	h.phase = (uint32_t)(m->start - m->base);
	h.n = n;
	h.checksum = fnv64(FNV_OFFSET, meta, meta_size);
	idd_cache_store(m->dir, m->name,
			(const struct idd_cache_part[]){ { &h, sizeof(h) },
							 { meta, meta_size },
							 { data, (size_t)n * CHUNK } },
			3);
}

void idd_memo_close(struct idd_memo *m, bool keep)
{
	if (!m)
		return;
	if (keep && m->nfresh)
		store(m);
	if (m->fresh)
		for (uint32_t k = 0; k < m->nchunks; k++)
			free(m->fresh[k]);
	free(m->fresh);
	free(m->chunk);
	free(m->want);
	free(m->checked);
	idd_cache_unmap(&m->file);
	free(m->dir);
	free(m->name);
	free(m);
}
