// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kallsyms tables found in the kernel image's memory by their shapes,
 * for a kernel whose VMCOREINFO does not name them (before 6.0, where
 * those lines came): each table told apart by what scripts/kallsyms.c
 * writes into it, and each checked against the others.
 *
 *  - kallsyms_token_index: 256 u16 offsets, the first 0, each above the
 *    one before by a token's length and its NUL. The scan looks for this
 *    shape; everything else is found from a place it gives.
 *  - kallsyms_token_table, just before it (its label aligned to 8 bytes,
 *    4 in later kernels): 256 NUL-terminated tokens, each ending where
 *    the index says the next begins, zero bytes up to the index.
 *  - kallsyms_markers (u32; u64 in older kernels), ending at the token
 *    table, or at kallsyms_seqs_of_names (6.2, 6.3: 3 bytes a symbol)
 *    that ends there: rising from 0, one for every 256 names.
 *  - kallsyms_num_syms, then kallsyms_names: a u32 count (of 256 * (m - 1)
 *    + 1 to 256 * m for m markers) just before a stream of length-prefixed
 *    names whose every 256th starts where its marker says and whose last
 *    ends where the markers begin (padding aside).
 *  - kallsyms_offsets and kallsyms_relative_base: before kallsyms_num_syms
 *    (before 6.4) or after the token index (6.4 and later; 7.0 and later
 *    place-relative, no base); which one is decided by the data: the
 *    addresses they give rise, and the symbols VMCOREINFO names itself
 *    (_stext, init_uts_ns...) are at exactly the addresses it gives.
 *
 * Nothing is taken from a kernel version; a place is kept only when all
 * of the above hold, else the scan goes on. The image is read once, a
 * chunk at a time, downwards from the first data symbol VMCOREINFO names
 * (the tables are read-only data, below .data), then the rest of it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cleanup.h"
#include "types/kallsyms_internal.h"

#define CHUNK (1u << 20)
#define PAGE 4096u
/* A compressed name's bytes at most: its length, KSYM_NAME_LEN tokens. */
#define FIND_NAME_BYTES (2u + 512u)
#define MAX_MARKER_STEP (256ull * FIND_NAME_BYTES)
#define MAX_MARKERS_BYTES (8ull * (MAX_SYMS / 256))
#define MAX_GAP (3ull * MAX_SYMS + 8)
/*
 * Token tables followed further at most: each may read megabytes below
 * it; a real image has one (three index shapes in 5.10's, one table).
 */
#define MAX_TABLES 16

static uint64_t round_up(uint64_t v, unsigned a)
{
	return (v + a - 1) & ~(uint64_t)(a - 1);
}

/* The tables' integers, in the dump's byte order (big). */
static uint16_t get16(const uint8_t *p, bool big)
{
	return (uint16_t)idd_load(p, 2, big);
}

static uint32_t get32(const uint8_t *p, bool big)
{
	return (uint32_t)idd_load(p, 4, big);
}

static uint64_t get64(const uint8_t *p, bool big)
{
	return idd_load(p, 8, big);
}

struct finder {
	idd_kallsyms_read_fn read;
	void *arg;
	bool big; /* the dump's byte order */
	uint64_t lo, hi;
	struct idd_ksym_anchor *anchors;
	size_t nanchors;
	uint64_t bytes_read;
	unsigned candidates; /* token indexes of the right shape */
	unsigned tables;     /* of them, with a token table before them */
	const char *furthest; /* what the best candidate failed on */
	unsigned stage;
};

/* A failed candidate: keep the reason of the one that got furthest. */
static bool fail(struct finder *f, unsigned stage, const char *why)
{
	if (stage >= f->stage) {
		f->stage = stage;
		f->furthest = why;
	}
	return false;
}

/* len bytes at at, unreadable pages as zeros (a table is never zeros). */
static void read_zeroed(struct finder *f, uint64_t at, uint8_t *buf, size_t len)
{
	f->bytes_read += len;
	if (f->read(f->arg, at, buf, len))
		return;
	for (size_t o = 0; o < len;) {
		size_t n = PAGE - ((at + o) & (PAGE - 1));

		if (n > len - o)
			n = len - o;
		if (!f->read(f->arg, at + o, buf + o, n))
			memset(buf + o, 0, n);
		o += n;
	}
}

/* The bytes [lo, end) of the image, grown downwards on demand. */
struct window {
	uint64_t lo, end;
	uint8_t *buf;
};

static bool window_need(struct finder *f, struct window *w, uint64_t from)
{
	uint64_t lo;
	uint8_t *grown;

	if (from >= w->lo && w->buf)
		return true;
	if (from < f->lo)
		return false;
	lo = w->end - from < 65536 ? w->end - 65536 : w->end - 2 * (w->end - from);
	if (lo < f->lo || lo > w->end)
		lo = f->lo;
	if (!(grown = malloc(w->end - lo)))
		return false;
	if (w->buf)
		memcpy(grown + (w->lo - lo), w->buf, w->end - w->lo);
	read_zeroed(f, lo, grown, (w->buf ? w->lo : w->end) - lo);
	free(w->buf);
	w->buf = grown;
	w->lo = lo;
	return true;
}

/* A candidate's places, filled as each table is found. */
struct cand {
	uint64_t index, table;
	unsigned align, width;
	uint16_t idx[256];
	char *tokens;
	size_t tokens_len;
	uint64_t markers_at, names, num_syms_at, names_end;
	uint32_t nmarkers, n;
	uint32_t *markers;
	uint8_t *names_buf; /* [names, names_end) */
};

/* The shape of kallsyms_token_index at p: 0, then rising by 1..256. */
static bool index_shape(const uint8_t *p, bool big)
{
	uint16_t prev = get16(p, big);

	if (prev)
		return false;
	for (int i = 1; i < 256; i++) {
		uint16_t v = get16(p + 2 * i, big);

		if (v <= prev || v - prev > 256)
			return false;
		prev = v;
	}
	return true;
}

/*
 * The token table ending (its label's alignment aside) at c->index:
 * every token ends where the next begins, the last one's NUL followed by
 * zeros only.
 */
static bool find_token_table(struct finder *f, struct cand *c)
{
	uint16_t last = c->idx[255];
	size_t span = (size_t)last + 256 + 8;
	_cleanup_free_ uint8_t *buf = NULL;
	uint64_t from;

	if (c->index < f->lo + span)
		return fail(f, 1, "no room for the token table");
	from = c->index - span;
	if (!(buf = malloc(span)))
		return false;
	read_zeroed(f, from, buf, span);
	for (unsigned a = 8; a >= 4; a /= 2) {
		if (c->index % a)
			continue;
		for (unsigned l = 1; l < 256; l++) {
			uint64_t len = (uint64_t)last + l + 1;
			uint64_t t = c->index - round_up(len, a);
			const uint8_t *p = buf + (t - from);
			bool ok = t % a == 0 && p[last + l] == 0;

			for (unsigned k = 0; ok && k < l; k++)
				ok = p[last + k] != 0;
			for (uint64_t k = len; ok && k < c->index - t; k++)
				ok = p[k] == 0;
			for (int i = 0; ok && i < 255; i++) {
				for (unsigned k = c->idx[i]; ok && k + 1 < c->idx[i + 1]; k++)
					ok = p[k] != 0;
				ok = ok && p[c->idx[i + 1] - 1] == 0;
			}
			if (!ok)
				continue;
			c->align = a;
			c->table = t;
			c->tokens_len = len;
			if (!(c->tokens = malloc(len)))
				return false;
			memcpy(c->tokens, p, len);
			return true;
		}
	}
	return fail(f, 1, "no token table ends at a token index");
}

/* Names [from, names_end) skipped count at a time. */
static bool skip_names(const struct cand *c, uint64_t from, uint32_t count,
		       uint64_t *end)
{
	struct idd_kallsyms_tables t = { 0 };
	size_t off;

	if (from < c->names || from > c->names_end)
		return false;
	t.names = c->names_buf;
	t.names_len = c->names_end - c->names;
	off = from - c->names;
	for (uint32_t k = 0; k < count; k++)
		if (!idd_ksym_skip_name(&t, &off))
			return false;
	*end = c->names + off;
	return true;
}

/*
 * kallsyms_num_syms and kallsyms_names before the markers (m of them at
 * c->markers_at): the count in range just before a stream whose blocks
 * end where the markers say and whose last ends at the markers.
 */
static bool find_names(struct finder *f, struct window *w, struct cand *c)
{
	uint32_t m = c->nmarkers, last = c->markers[m - 1];
	unsigned a = c->align;
	uint64_t top, bottom;

	if (c->markers_at < f->lo + last + 2 + 2 * a)
		return false;
	top = (c->markers_at - last - 2) & ~(uint64_t)(a - 1);
	/* The last block's names take at most MAX_MARKER_STEP bytes. */
	if (c->markers_at - last - f->lo < MAX_MARKER_STEP + 3ull * a)
		bottom = f->lo + a;
	else
		bottom = c->markers_at - last - MAX_MARKER_STEP - 2 * a;
	if (!window_need(f, w, bottom - a))
		return false;
	for (uint64_t n_at = top; n_at >= bottom && n_at <= top; n_at -= a) {
		const uint8_t *s = w->buf + (n_at - a - w->lo);
		uint32_t n = get32(s, f->big);
		uint64_t end;

		if (n <= 256 * (m - 1) || n > 256 * m || (a == 8 && get32(s + 4, f->big)))
			continue;
		c->names = n_at;
		c->names_end = c->markers_at;
		c->n = n;
		if (!window_need(f, w, n_at))
			return false;
		c->names_buf = w->buf + (n_at - w->lo);
		/* The last block ends at the markers, zeros between. */
		if (!skip_names(c, n_at + last, n - 256 * (m - 1), &end) ||
		    round_up(end, a) != c->markers_at)
			continue;
		{
			bool zeros = true;

			for (uint64_t k = end; zeros && k < c->markers_at; k++)
				zeros = !w->buf[k - w->lo];
			if (!zeros)
				continue;
		}
		c->names_end = end;
		/* Every other block ends where the next marker says. */
		for (uint32_t k = 0; k + 1 < m; k++) {
			if (!skip_names(c, n_at + c->markers[k], 256, &end) ||
			    end != n_at + c->markers[k + 1])
				return fail(f, 4, "a block of kallsyms_names does "
						  "not end at its marker");
		}
		c->num_syms_at = n_at - a;
		return true;
	}
	return fail(f, 3, "no kallsyms_num_syms and kallsyms_names fit the "
			  "markers");
}

/*
 * kallsyms_markers ending at the token table, or at kallsyms_seqs_of_names
 * there; then the names before them. Markers nearest the table first.
 */
static bool find_markers(struct finder *f, struct window *w, struct cand *c)
{
	unsigned a = c->align;
	uint64_t t = c->table;

	for (unsigned width = 4; width <= 8; width += 4) {
		for (uint64_t p = t - round_up(width, a);
		     p >= f->lo && p < t && t - p <= MAX_GAP + MAX_MARKERS_BYTES;
		     p -= a) {
			uint32_t r = 1;

			if (!window_need(f, w, p))
				break;
#define ENTRY(k) idd_load(w->buf + (p + (uint64_t)(k) * width - w->lo), \
			 width, f->big)
			if (ENTRY(0) != 0)
				continue;
			while (p + (uint64_t)(r + 1) * width <= t && r < MAX_SYMS / 256 &&
			       ENTRY(r) > ENTRY(r - 1) + 511 &&
			       ENTRY(r) - ENTRY(r - 1) <= MAX_MARKER_STEP)
				r++;
			for (uint32_t m = r; m >= 1; m--) {
				uint64_t e = round_up(p + (uint64_t)m * width, a);
				uint64_t gap = t - e;
				bool zeros = true;

				if (e > t || (gap && (gap > round_up(768ull * m, a) ||
						      gap < 3ull * (256 * (m - 1) + 1))))
					continue;
				for (uint64_t k = p + (uint64_t)m * width; zeros && k < e; k++)
					zeros = !w->buf[k - w->lo];
				if (!zeros)
					continue;
				free(c->markers);
				if (!(c->markers = malloc(m * sizeof(*c->markers))))
					return false;
				for (uint32_t k = 0; k < m; k++)
					c->markers[k] = (uint32_t)ENTRY(k);
				c->nmarkers = m;
				c->width = width;
				c->markers_at = p;
				/* A gap is seqs_of_names: 3 bytes a symbol. */
				if (find_names(f, w, c) &&
				    (!gap || gap == round_up(3ull * c->n, a)))
					return true;
				if (!window_need(f, w, p))
					return false;
			}
#undef ENTRY
		}
	}
	return fail(f, 2, "no kallsyms_markers end at the token table");
}

/* The names expanded one by one: anchors' indexes noted. */
static bool note_anchors(struct finder *f, const struct cand *c,
			 uint32_t **where, size_t *nwhere)
{
	struct idd_kallsyms_tables t = { 0 };
	struct kallsyms_tokens tokens;
	size_t off = 0, cap = 0;

	t.names = c->names_buf;
	t.names_len = c->names_end - c->names;
	t.token_table = c->tokens;
	t.token_table_len = c->tokens_len;
	t.token_index = c->idx;
	if (!idd_ksym_find_tokens(&t, &tokens))
		return false;
	*nwhere = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		char name[KSYM_NAME_LEN], type;
		size_t len;

		if (!idd_ksym_expand(&t, &tokens, &off, &type, name, &len))
			return false;
		for (size_t k = 0; k < f->nanchors; k++) {
			if (strcmp(name, f->anchors[k].name))
				continue;
			if (*nwhere == cap) {
				uint32_t *g = realloc(*where, (cap = cap * 2 + 16) *
								      2 * sizeof(**where));

				if (!g)
					return false;
				*where = g;
			}
			(*where)[2 * *nwhere] = i;
			(*where)[2 * *nwhere + 1] = (uint32_t)k;
			++*nwhere;
		}
	}
	return true;
}

/*
 * Offsets at o (and the base at rb; 0: place-relative): the addresses
 * rise, and every anchor kallsyms names is at VMCOREINFO's address.
 * *matched: how many anchors were.
 */
static bool offsets_fit(struct finder *f, const struct cand *c, uint64_t o,
			uint64_t rb, const uint32_t *where, size_t nwhere,
			size_t *matched)
{
	struct idd_kallsyms_tables t = { 0 };
	_cleanup_free_ int32_t *off = malloc((size_t)c->n * 4);
	_cleanup_free_ bool *hit = calloc(f->nanchors + 1, sizeof(bool));
	_cleanup_free_ bool *named = calloc(f->nanchors + 1, sizeof(bool));
	bool absolute_percpu = false;
	uint64_t prev = 0;

	*matched = 0;
	if (!off || !hit || !named || o < f->lo || o + 4ull * c->n > f->hi ||
	    !f->read(f->arg, o, off, (size_t)c->n * 4))
		return false;
	f->bytes_read += (uint64_t)c->n * 4;
	idd_words32_to_host(off, c->n, f->big);
	t.offsets_addr = o;
	t.has_relative_base = rb != 0;
	if (rb) {
		uint8_t b[8];

		if (rb < f->lo || rb + 8 > f->hi || !f->read(f->arg, rb, b, 8))
			return false;
		t.relative_base = get64(b, f->big);
		for (uint32_t i = 0; i < c->n && !absolute_percpu; i++)
			absolute_percpu = off[i] < 0;
	}
	for (uint32_t i = 0; i < c->n; i++) {
		uint64_t v = idd_ksym_address_value(&t, absolute_percpu, i, off[i]);

		if (i && v < prev)
			return false;
		prev = v;
	}
	for (size_t k = 0; k < nwhere; k++) {
		uint32_t i = where[2 * k], a = where[2 * k + 1];

		named[a] = true;
		if (idd_ksym_address_value(&t, absolute_percpu, i, off[i]) ==
		    f->anchors[a].addr)
			hit[a] = true;
	}
	for (size_t a = 0; a < f->nanchors; a++) {
		if (named[a] && !hit[a])
			return false;
		*matched += hit[a];
	}
	return *matched > 0;
}

/*
 * kallsyms_offsets and kallsyms_relative_base, in whichever of the
 * layouts the data fits; exactly one must.
 */
static bool find_offsets(struct finder *f, struct cand *c,
			 struct idd_ksym_found *out)
{
	unsigned a = c->align;
	uint64_t n4 = round_up(4ull * c->n, a);
	uint64_t after = round_up(c->index + 512, a);
	struct {
		uint64_t o, rb;
		bool before;
	} try[3] = {
		/* offsets, relative_base, num_syms... (before 6.4) */
		{ c->num_syms_at - 8 - n4, c->num_syms_at - 8, true },
		/* ...token_index, offsets, relative_base (6.4 to 6.19) */
		{ after, round_up(after + 4ull * c->n, a), false },
		/* ...token_index, offsets, place-relative (7.0 and later) */
		{ after, 0, false },
	};
	_cleanup_free_ uint32_t *where = NULL;
	size_t nwhere = 0, fits = 0, matched = 0;

	if (!note_anchors(f, c, &where, &nwhere))
		return fail(f, 5, "kallsyms_names does not expand");
	if (!nwhere)
		return fail(f, 5, "no symbol VMCOREINFO names is in these names");
	for (int i = 0; i < 3; i++) {
		size_t got;

		if (c->num_syms_at < f->lo + 8 + n4 && try[i].before)
			continue;
		if (!offsets_fit(f, c, try[i].o, try[i].rb, where, nwhere, &got))
			continue;
		if (fits++)
			return fail(f, 6, "two layouts of kallsyms_offsets fit");
		out->offsets = try[i].o;
		out->relative_base = try[i].rb;
		out->offsets_first = try[i].before;
		matched = got;
	}
	if (!fits)
		return fail(f, 6, "no kallsyms_offsets give the addresses "
				  "VMCOREINFO gives");
	out->anchors_matched = matched;
	return true;
}

static void cand_free(struct cand *c)
{
	free(c->tokens);
	free(c->markers);
	memset(c, 0, sizeof(*c));
}

/* Whether the token index at x starts tables that all fit. */
static bool try_index(struct finder *f, uint64_t x, const uint8_t *bytes,
		      struct idd_ksym_found *out)
{
	struct cand c = { 0 };
	struct window w = { 0 };
	bool ok;

	f->candidates++;
	c.index = x;
	memcpy(c.idx, bytes, sizeof(c.idx));
	idd_words16_to_host(c.idx, 256, f->big);
	ok = find_token_table(f, &c);
	if (ok && ++f->tables > MAX_TABLES)
		ok = fail(f, 7, "more token tables than any kernel has");
	if (ok) {
		w.end = w.lo = c.table;
		ok = find_markers(f, &w, &c) && find_offsets(f, &c, out);
	}
	if (ok) {
		out->names = c.names;
		out->num_syms = c.num_syms_at;
		out->count = c.n;
		out->token_table = c.table;
		out->token_index = c.index;
		out->markers = c.markers_at;
		out->align = c.align;
		out->marker_width = c.width;
		out->seqs = c.markers_at + round_up((uint64_t)c.nmarkers * c.width,
						    c.align) != c.table;
	}
	free(w.buf);
	cand_free(&c);
	return ok;
}

/* Token indexes in [from, to), each tried. */
static bool scan(struct finder *f, uint64_t from, uint64_t to,
		 struct idd_ksym_found *out)
{
	_cleanup_free_ uint8_t *buf = malloc(CHUNK + 512);

	if (!buf)
		return false;
	from = round_up(from, 4);
	to &= ~(uint64_t)3;
	/* Downwards, a chunk at a time, each with the next one's start. */
	for (uint64_t end = to; end > from;) {
		uint64_t start = end - from > CHUNK ? end - CHUNK : from;
		size_t len = (size_t)(end - start) +
			     (end + 512 <= f->hi ? 512 : (size_t)(f->hi - end));

		read_zeroed(f, start, buf, len);
		for (size_t o = (size_t)(end - start); o >= 4;) {
			o -= 4;
			if (o + 512 > len || get16(buf + o, f->big) ||
			    get16(buf + o + 2, f->big) - 1u >= 256u ||
			    !index_shape(buf + o, f->big))
				continue;
			if (try_index(f, start + o, buf + o, out))
				return true;
			if (f->tables > MAX_TABLES)
				return false;
		}
		end = start;
	}
	return false;
}

struct inodedump_error *idd_ksym_find(uint64_t lo, uint64_t hi, uint64_t first,
				      idd_kallsyms_read_fn read, void *arg,
				      bool big, struct idd_ksym_anchor *anchors,
				      size_t nanchors, struct idd_ksym_found *out)
{
	struct finder f = {
		.read = read,
		.arg = arg,
		.big = big,
		.lo = lo,
		.hi = hi,
		.anchors = anchors,
		.nanchors = nanchors,
	};

	memset(out, 0, sizeof(*out));
	if (hi <= lo || first < lo || first > hi)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kallsyms: no kernel image to search");
	if (scan(&f, lo, first, out) ||
	    (f.tables <= MAX_TABLES && scan(&f, first, hi, out))) {
		out->bytes_read = f.bytes_read;
		return NULL;
	}
	if (!f.candidates)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kallsyms: no kallsyms_token_index in the kernel "
				 "image (0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu64
				 " MiB read)", lo, hi, f.bytes_read >> 20);
	return idd_error(INODEDUMP_ERR_DUMP,
			 "kallsyms: %u places in the kernel image "
			 "(0x%" PRIx64 "-0x%" PRIx64 ") look like "
			 "kallsyms_token_index, none starts tables that agree "
			 "(the best: %s)", f.candidates, lo, hi,
			 f.furthest ? f.furthest : "?");
}
