// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The DWARF index of one vmlinux, kept in the per-kernel cache (cache.c)
 * as CACHE_DIR/dwarf.index: every answer a session needed of the DWARF by
 * name (a unit by its file name, a struct in any unit or in one unit, an
 * enum, an enumerator, a function a unit defines), found or not. A name is
 * looked for in the DIEs the first time it is asked of this kernel, never
 * again: a struct or an enum this kernel lacks costs one walk of every unit
 * on the first run, and a lookup here on every run after it.
 *
 * Why answers, not every name indexed in one pass: through libdw, reading
 * the top-level names of every unit of Debian's 6.12 vmlinux costs 3.9 G
 * instructions (each unit's DIE alone, 0.2 G: libdw reads the unit's whole
 * abbreviation table to find the DIE's), against 30 M for a whole cold
 * decode that finds what it needs early in the units.
 *
 * The file: a header (magic, version, build-id, the DWARF's fingerprint,
 * a checksum of the rest, counts), the answers, then their strings. A file
 * that fails any check is made again, and the caller told why.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "types/dwarf_internal.h"
#include "types/types.h"

#define DWX_MAGIC "IDDDWX1\n"
#define DWX_VERSION 2u
#define DWX_FILE "dwarf.index"

struct dwx_header {
	char magic[8];
	uint32_t version, header_size;
	uint64_t fingerprint;
	uint64_t checksum; /* of everything after the header */
	uint32_t nmemo, pad;
	uint64_t pool_size;
	char build_id[136];
};

struct dwx_memo {
	uint64_t cu;
	int64_t value;
	uint64_t aux[2]; /* more of an answer (a member's type and shape) */
	uint32_t name;
	uint16_t question, found;
	uint32_t aux_name; /* a second string (an enumerator's name), or 0 */
	uint32_t pad;
};

struct idd_dwx {
	const struct dwx_memo *memo;
	const char *pool;
	size_t nmemo, pool_size;
	/* Answers learned in this session; their names in extra. */
	struct dwx_memo *learned;
	size_t nlearned, learned_cap;
	char *extra;
	size_t extra_size, extra_cap;
	struct idd_cache_file file; /* what memo and pool point into */
	char *dir, *build_id;
	uint64_t fingerprint;
	bool from_cache;
	/*
	 * Every answer by its question: an open-addressing table of indexes
	 * (i < nmemo: memo[i], else learned[i - nmemo]) plus one, 0 empty. A
	 * warm decode asks ~1,000 questions of ~1,000 answers.
	 */
	uint32_t *slots;
	size_t nslots;
};

static const char *str_at(const struct idd_dwx *x, uint32_t off)
{
	if (off < x->pool_size)
		return x->pool + off;
	return x->extra + (off - x->pool_size);
}

/* ---- the file ---- */

static const char not_this_version[] = "it is not an index of this version";

/* Why the mapped file cannot be used; NULL: it can, x points into it. */
static const char *check_file(struct idd_dwx *x, const char *data,
			      size_t size)
{
	struct dwx_header h;
	uint64_t want;

	if (size < sizeof(h))
		return "it is shorter than its header";
	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, DWX_MAGIC, sizeof(h.magic)) ||
	    h.version != DWX_VERSION || h.header_size != sizeof(h))
		return not_this_version;
	if (h.build_id[sizeof(h.build_id) - 1] ||
	    strcmp(h.build_id, x->build_id))
		return "it was made for another build-id";
	if (h.fingerprint != x->fingerprint)
		return "it was made for other DWARF of this build-id";
	want = sizeof(h) + (uint64_t)h.nmemo * sizeof(struct dwx_memo) +
	       h.pool_size;
	if (h.pool_size > UINT32_MAX || want != size)
		return "its size does not match its counts";
	if (idd_dwarf_hash(0, data + sizeof(h), size - sizeof(h)) != h.checksum)
		return "its checksum does not match";
	x->memo = (const void *)(data + sizeof(h));
	x->pool = (const char *)(x->memo + h.nmemo);
	x->nmemo = h.nmemo;
	x->pool_size = h.pool_size;
	if (x->pool_size && x->pool[x->pool_size - 1])
		return "its strings are not terminated";
	for (size_t i = 0; i < x->nmemo; i++)
		if (x->memo[i].name >= x->pool_size ||
		    !x->memo[i].question ||
		    x->memo[i].question >= IDD_DWX_QUESTIONS ||
		    x->memo[i].found > 1 ||
		    x->memo[i].aux_name >= x->pool_size)
			return "an answer is outside its strings";
	return NULL;
}

static bool store(struct idd_dwx *x)
{
	struct dwx_header h = {
		.version = DWX_VERSION,
		.header_size = sizeof(h),
		.fingerprint = x->fingerprint,
		.nmemo = (uint32_t)(x->nmemo + x->nlearned),
		.pool_size = x->pool_size + x->extra_size,
	};
	struct idd_cache_part parts[] = {
		{ &h, sizeof(h) },
		{ x->memo, x->nmemo * sizeof(*x->memo) },
		{ x->learned, x->nlearned * sizeof(*x->learned) },
		{ x->pool, x->pool_size },
		{ x->extra, x->extra_size },
	};
	size_t n = sizeof(parts) / sizeof(parts[0]), size = 0;
	struct idd_cache_part whole[2];
	_cleanup_free_ char *body = NULL;

	memcpy(h.magic, DWX_MAGIC, sizeof(h.magic));
	snprintf(h.build_id, sizeof(h.build_id), "%s", x->build_id);
	/* The checksum is of the body as one run of bytes, as it is read. */
	for (size_t i = 1; i < n; i++)
		size += parts[i].size;
	if (!(body = malloc(size ? size : 1))) {
		errno = ENOMEM;
		return false;
	}
	size = 0;
	for (size_t i = 1; i < n; i++) {
		if (parts[i].size)
			memcpy(body + size, parts[i].data, parts[i].size);
		size += parts[i].size;
	}
	h.checksum = idd_dwarf_hash(0, body, size);
	whole[0] = (struct idd_cache_part){ &h, sizeof(h) };
	whole[1] = (struct idd_cache_part){ body, size };
	return idd_cache_store(x->dir, DWX_FILE, whole, 2);
}

static char *store_note(const struct idd_dwx *x)
{
	return idd_strdup_printf("cannot keep the DWARF index in %s (%s): "
				 "its names are looked for again on the next "
				 "run", x->dir, strerror(errno));
}

static bool slots_grow(struct idd_dwx *x, size_t n);

static void free_index(struct idd_dwx *x)
{
	if (!x)
		return;
	idd_cache_unmap(&x->file);
	free(x->slots);
	free(x->learned);
	free(x->extra);
	free(x->dir);
	free(x->build_id);
	free(x);
}

static void free_indexp(struct idd_dwx **x)
{
	free_index(*x);
}

struct idd_dwx *idd_dwx_open(const struct idd_dwarf_id *id,
			     const char *cache_dir, char **note)
{
	_cleanup_(free_indexp) struct idd_dwx *x = NULL;
	const char *why = NULL;

	*note = NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	if (cache_dir && id->build_id) {
		x->dir = strdup(cache_dir);
		x->build_id = strdup(id->build_id);
		if (!x->dir || !x->build_id)
			return NULL;
		x->fingerprint = id->fingerprint;
	}
	if (x->dir && idd_cache_map(x->dir, DWX_FILE, &x->file)) {
		why = check_file(x, x->file.data, x->file.size);
		if (!why && !slots_grow(x, x->nmemo))
			return NULL;
		if (!why) {
			x->from_cache = true;
			return TAKE_PTR(x);
		}
		idd_cache_unmap(&x->file);
		x->nmemo = x->pool_size = 0;
		x->memo = NULL;
		x->pool = NULL;
		/*
		 * An index an older inodedump wrote is no damage: made again
		 * for this version without a word.
		 */
		if (why != not_this_version)
			*note = idd_strdup_printf("the DWARF index in %s was "
						  "not used (%s): made again",
						  x->dir, why);
	}
	return TAKE_PTR(x);
}

bool idd_dwx_from_cache(const struct idd_dwx *x)
{
	return x->from_cache;
}

bool idd_dwx_kept(const struct idd_dwx *x)
{
	return x->dir != NULL;
}

static const struct dwx_memo *memo_at(const struct idd_dwx *x, size_t i)
{
	return i < x->nmemo ? &x->memo[i] : &x->learned[i - x->nmemo];
}

static uint64_t question_hash(enum idd_dwx_question q, Dwarf_Off cu,
			      const char *name)
{
	uint64_t h = idd_dwarf_hash((uint64_t)q * 0x9e3779b97f4a7c15u ^ cu,
				    name, strlen(name));

	return h ^ (h >> 29);
}

static bool same_question(const struct idd_dwx *x, const struct dwx_memo *m,
			  enum idd_dwx_question q, Dwarf_Off cu,
			  const char *name)
{
	return m->question == q && m->cu == cu &&
	       !strcmp(str_at(x, m->name), name);
}

/* Put answer i (memo_at()) in the table; the table has room. */
static void slot_put(struct idd_dwx *x, size_t i)
{
	const struct dwx_memo *m = memo_at(x, i);
	size_t mask = x->nslots - 1;
	size_t at = question_hash(m->question, m->cu, str_at(x, m->name)) &
		    mask;

	while (x->slots[at]) {
		/* The first answer to a question is the one kept. */
		if (same_question(x, memo_at(x, x->slots[at] - 1), m->question,
				  m->cu, str_at(x, m->name)))
			return;
		at = (at + 1) & mask;
	}
	x->slots[at] = (uint32_t)(i + 1);
}

/* A table for n answers at most half full; false: no memory. */
static bool slots_grow(struct idd_dwx *x, size_t n)
{
	size_t want = 64, total = x->nmemo + x->nlearned;
	uint32_t *slots;

	while (want < 2 * n)
		want *= 2;
	if (want <= x->nslots)
		return true;
	if (!(slots = calloc(want, sizeof(*slots))))
		return false;
	free(x->slots);
	x->slots = slots;
	x->nslots = want;
	for (size_t i = 0; i < total; i++)
		slot_put(x, i);
	return true;
}

static const struct dwx_memo *find(const struct idd_dwx *x,
				   enum idd_dwx_question q, Dwarf_Off cu,
				   const char *name)
{
	size_t mask, at;

	if (!x->nslots)
		return NULL;
	mask = x->nslots - 1;
	for (at = question_hash(q, cu, name) & mask; x->slots[at];
	     at = (at + 1) & mask) {
		const struct dwx_memo *m = memo_at(x, x->slots[at] - 1);

		if (same_question(x, m, q, cu, name))
			return m;
	}
	return NULL;
}

bool idd_dwx_recall(const struct idd_dwx *x, enum idd_dwx_question q,
		    Dwarf_Off cu, const char *name, bool *found,
		    int64_t *value)
{
	struct idd_dwx_answer a;

	if (!idd_dwx_recall_answer(x, q, cu, name, &a))
		return false;
	*found = a.found;
	if (a.found)
		*value = a.value;
	return true;
}

bool idd_dwx_recall_answer(const struct idd_dwx *x, enum idd_dwx_question q,
			   Dwarf_Off cu, const char *name,
			   struct idd_dwx_answer *out)
{
	const struct dwx_memo *m = find(x, q, cu, name);

	if (!m)
		return false;
	*out = (struct idd_dwx_answer){
		.found = m->found,
		.value = m->found ? m->value : 0,
		.aux = { m->aux[0], m->aux[1] },
		.aux_name = m->aux_name ? str_at(x, m->aux_name) : NULL,
	};
	return true;
}

/* name's copy among the strings: its offset, 0 when it cannot be kept. */
static uint32_t keep_string(struct idd_dwx *x, const char *name)
{
	size_t n = strlen(name) + 1;
	uint32_t at;

	if (x->pool_size + x->extra_size + n > UINT32_MAX)
		return 0;
	if (x->extra_size + n > x->extra_cap) {
		size_t cap = x->extra_cap ? 2 * x->extra_cap : 1024;
		char *p;

		while (cap < x->extra_size + n)
			cap *= 2;
		if (!(p = realloc(x->extra, cap)))
			return 0;
		x->extra = p;
		x->extra_cap = cap;
	}
	memcpy(x->extra + x->extra_size, name, n);
	at = (uint32_t)(x->pool_size + x->extra_size);
	x->extra_size += n;
	return at;
}

void idd_dwx_remember(struct idd_dwx *x, enum idd_dwx_question q, Dwarf_Off cu,
		      const char *name, bool found, int64_t value)
{
	idd_dwx_remember_answer(x, q, cu, name,
				&(struct idd_dwx_answer){ .found = found,
							  .value = value });
}

void idd_dwx_remember_answer(struct idd_dwx *x, enum idd_dwx_question q,
			     Dwarf_Off cu, const char *name,
			     const struct idd_dwx_answer *a)
{
	uint32_t at, aux_name = 0;

	if (find(x, q, cu, name))
		return;
	if (!slots_grow(x, x->nmemo + x->nlearned + 1))
		return;
	if (x->nlearned == x->learned_cap) {
		size_t cap = x->learned_cap ? 2 * x->learned_cap : 16;
		struct dwx_memo *m = realloc(x->learned, cap * sizeof(*m));

		if (!m)
			return;
		x->learned = m;
		x->learned_cap = cap;
	}
	/* The strings start with "": offset 0 is no string (aux_name). */
	if (!x->pool_size && !x->extra_size) {
		if (!(x->extra = malloc(1024)))
			return;
		x->extra[0] = '\0';
		x->extra_cap = 1024;
		x->extra_size = 1;
	}
	if (!(at = keep_string(x, name)))
		return;
	if (a->found && a->aux_name && !(aux_name = keep_string(x, a->aux_name)))
		return;
	x->learned[x->nlearned++] = (struct dwx_memo){
		.cu = cu,
		.value = a->found ? a->value : 0,
		.aux = { a->found ? a->aux[0] : 0, a->found ? a->aux[1] : 0 },
		.name = at,
		.question = (uint16_t)q,
		.found = a->found,
		.aux_name = aux_name,
	};
	slot_put(x, x->nmemo + x->nlearned - 1);
}

void idd_dwx_close(struct idd_dwx *x, char **note)
{
	if (note)
		*note = NULL;
	if (x && x->dir && x->nlearned && !store(x) && note)
		*note = store_note(x);
	free_index(x);
}
