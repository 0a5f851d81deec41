// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bounded walks: the set of list nodes already seen, so a corrupt list
 * that loops is noticed at its first repeat instead of at a count limit.
 */
#include <stdlib.h>

#include "core/walk.h"

/*
 * The product's high bits: its low bits depend only on the address's low
 * bits, which aligned nodes share (every inode's i_sb_list sits at the same
 * offset in same-sized slab objects), and probing ran long.
 */
static size_t slot(uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static struct inodedump_error *grow(struct idd_visited *v)
{
	size_t cap = v->cap ? 2 * v->cap : 64;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return idd_nomem();
	for (size_t i = 0; i < v->cap; i++) {
		size_t h;

		if (!v->slots[i])
			continue;
		for (h = slot(v->slots[i], cap); slots[h]; h = (h + 1) & (cap - 1))
			;
		slots[h] = v->slots[i];
	}
	free(v->slots);
	v->slots = slots;
	v->cap = cap;
	return NULL;
}

struct inodedump_error *idd_visit(struct idd_visited *v, uint64_t addr,
				  bool *seen)
{
	struct inodedump_error *err;

	/*
	 * No node lives at 0 (it also marks an empty slot): a NULL link in a
	 * circular list is corruption, and counts as met before so that the
	 * walk stops there.
	 */
	if (!addr) {
		*seen = true;
		return NULL;
	}
	if (2 * (v->n + 1) > v->cap && (err = grow(v)))
		return err;
	for (size_t h = slot(addr, v->cap);; h = (h + 1) & (v->cap - 1)) {
		if (v->slots[h] == addr) {
			*seen = true;
			return NULL;
		}
		if (!v->slots[h]) {
			v->slots[h] = addr;
			v->n++;
			*seen = false;
			return NULL;
		}
	}
}

void idd_visited_free(struct idd_visited *v)
{
	free(v->slots);
	v->slots = NULL;
	v->cap = v->n = 0;
}

bool idd_visited_has(const struct idd_visited *v, uint64_t addr)
{
	if (!addr || !v->cap)
		return false;
	for (size_t h = slot(addr, v->cap);; h = (h + 1) & (v->cap - 1)) {
		if (v->slots[h] == addr)
			return true;
		if (!v->slots[h])
			return false;
	}
}
