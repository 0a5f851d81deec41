// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The name index of BTF parsed whole: the named structs, unions and enums
 * by name, built in one pass over the types (libbpf's
 * btf__find_by_name_kind() walks every type on each call), and kept in
 * the cache for the next run of that kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "types/btf_internal.h"

/* Type id of BTF parsed whole, NULL: none. */
static const struct btf_type *whole_type(const struct idd_btf *b, uint32_t id)
{
	if (!id || id >= b->ntypes)
		return NULL;
	return idd_bpf.type_by_id(b->btf, id);
}

static const char *whole_name(const struct idd_btf *b, const struct btf_type *t)
{
	const char *n = idd_bpf.name_by_offset(b->btf, t->name_off);

	return n ? n : "";
}

static uint32_t hash_name(const char *s, int class)
{
	uint32_t h = 2166136261u ^ (uint32_t)class;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/*
 * One pass over every type keeps the ids of structs, unions and enums
 * (a tenth of vmlinux's ~130 k types); the hash of names is sized and
 * filled from those alone.
 */
struct inodedump_error *idd_btf_index_build(struct idd_btf *b)
{
	_cleanup_free_ uint32_t *kept = NULL;
	size_t nkept = 0, kept_cap = 0, named = 0, cap;

	for (uint32_t id = b->first_id; id < b->ntypes; id++) {
		const struct btf_type *t = idd_bpf.type_by_id(b->btf, id);
		int class = t ? idd_btf_class(t) : -1;

		if (class < 0 || (class == 0 && !t->name_off))
			continue;
		if (nkept == kept_cap) {
			uint32_t *grown;

			kept_cap = kept_cap ? 2 * kept_cap : 4096;
			grown = realloc(kept, kept_cap * sizeof(*kept));
			if (!grown)
				return idd_nomem();
			kept = grown;
		}
		kept[nkept++] = id;
		named += t->name_off != 0;
		b->nenums += class == 1;
	}
	for (cap = 64; cap < 2 * named; cap *= 2)
		;
	b->slots = calloc(cap, sizeof(*b->slots));
	b->enums = malloc((b->nenums + 1) * sizeof(*b->enums));
	if (!b->slots || !b->enums)
		return idd_nomem();
	b->mask = (uint32_t)cap - 1;
	b->nenums = 0;
	for (size_t k = 0; k < nkept; k++) {
		const uint32_t id = kept[k];
		const struct btf_type *t = idd_bpf.type_by_id(b->btf, id);
		int class = idd_btf_class(t);
		const char *n;

		if (class == 1)
			b->enums[b->nenums++] = id;
		if (!t->name_off)
			continue;
		n = whole_name(b, t);
		for (uint32_t h = hash_name(n, class) & b->mask;; h = (h + 1) & b->mask) {
			const struct btf_type *o;

			if (!b->slots[h]) {
				b->slots[h] = id; /* the first of a name wins */
				break;
			}
			o = idd_bpf.type_by_id(b->btf, b->slots[h]);
			if (idd_btf_class(o) == class && !strcmp(whole_name(b, o), n))
				break;
		}
	}
	return NULL;
}

uint32_t idd_btf_index_lookup(const struct idd_btf *b, const char *name,
			      int class)
{
	if (!b->slots)
		return 0;
	uint32_t h = hash_name(name, class) & b->mask;

	/* Bounded, and each id checked: the index may come from the cache. */
	for (uint32_t probes = 0; b->slots[h] && probes <= b->mask;
	     probes++, h = (h + 1) & b->mask) {
		const struct btf_type *o = whole_type(b, b->slots[h]);

		if (o && idd_btf_class(o) == class &&
		    !strcmp(whole_name(b, o), name))
			return b->slots[h];
	}
	return 0;
}

#define INDEX_MAGIC "IDDBTFX1"
#define INDEX_NAME "vmlinux.btf.index"

/*
 * The index as the cache keeps it: magic, the BTF's size and type count,
 * the slot count, the enum count, then the slots and the enum ids. Only
 * its shape is checked here: every id is checked where it is used.
 */
bool idd_btf_index_from_cache(struct idd_btf *b, const char *dir)
{
	uint64_t h[5];

	if (!idd_cache_map(dir, INDEX_NAME, &b->index))
		return false;
	if (b->index.size < sizeof(h))
		goto bad;
	memcpy(h, b->index.data, sizeof(h));
	if (memcmp(&h[0], INDEX_MAGIC, 8) || h[1] != b->size ||
	    h[2] != b->ntypes || h[3] < 64 || h[3] > (1u << 26) ||
	    (h[3] & (h[3] - 1)) || h[4] > b->ntypes ||
	    b->index.size != sizeof(h) + 4 * (h[3] + h[4]))
		goto bad;
	b->slots = (uint32_t *)((uint8_t *)b->index.data + sizeof(h));
	b->mask = (uint32_t)h[3] - 1;
	b->enums = b->slots + h[3];
	b->nenums = h[4];
	return true;
bad:
	idd_cache_unmap(&b->index);
	return false;
}

void idd_btf_index_to_cache(const struct idd_btf *b, const char *dir)
{
	uint64_t h[5] = { 0, b->size, b->ntypes, (uint64_t)b->mask + 1,
			  b->nenums };
	struct idd_cache_part parts[] = {
		{ h, sizeof(h) },
		{ b->slots, 4 * ((size_t)b->mask + 1) },
		{ b->enums, 4 * b->nenums },
	};

	memcpy(&h[0], INDEX_MAGIC, 8);
	idd_cache_store(dir, INDEX_NAME, parts, 3);
}
