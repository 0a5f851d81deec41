// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One page of a file's page cache, from memory: an address_space's i_pages
 * xarray walked down to an index as xa_load() does (lib/xarray.c), the
 * entry found turned into its page's direct-map address (pages.c). For a
 * symlink whose target the filesystem keeps in the page cache
 * (page_get_link(), shmem_get_link()) and the block device's cache.
 *
 * The xarray's shape comes from this kernel's types: where xa_head is in
 * the address_space, xa_node's shift and slots (XA_CHUNK_SIZE is the
 * slots' count). Entry encoding (include/linux/xarray.h) is an ABI of the
 * xarray: bit 0 set is a value entry (a shadow or swap entry: the page is
 * not in memory); low bits 10 are internal: a node pointer above 4096, a
 * sibling below (its slot number << 2). A node's shift is checked to
 * fall by one chunk per level, so a damaged or cyclic tree ends the walk.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/pagecache.h"
#include "decode/session.h"

#define XARRAY_CU "lib/xarray.c"

struct pagecache_layout {
	bool ok;
	uint64_t head;	      /* address_space.i_pages.xa_head */
	struct idd_member shift; /* xa_node.shift (offset: shift_at) */
	uint64_t shift_at;
	uint64_t slots;	      /* xa_node.slots */
	unsigned chunk_shift;  /* log2 of the slots' count */
	struct idd_member index; /* struct page's index (offset: index_at) */
	uint64_t index_at;
	uint64_t page_size;   /* sizeof(struct page) */
};

void idd_pagecache_layout_free(struct pagecache_layout *l)
{
	free(l);
}

static struct pagecache_layout *layout(struct inodedump *id)
{
	struct pagecache_layout *l = id->pagecache_layout;
	struct idd_struct as, node, page;
	struct idd_member m;
	struct inodedump_error *e;

	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	id->pagecache_layout = l;
	{
		/* xa_node is lib/xarray.c's: found through its unit */
		static const char *const fns[] = { "xa_load", "xas_load",
						   NULL };

		idd_anchor(id->types, id->syms, XARRAY_CU, fns);
	}
	if ((e = idd_types_struct(id->types, "address_space", &as)) ||
	    (e = idd_types_struct_in(id->types, "xa_node", XARRAY_CU,
				     &node)) ||
	    (e = idd_types_struct(id->types, "page", &page))) {
		inodedump_error_free(e);
		return l;
	}
	idd_types_member(id->types, &as, "i_pages.xa_head", &m);
	if (!m.present)
		return l;
	l->head = m.offset;
	idd_types_member(id->types, &node, "shift", &l->shift);
	idd_types_member(id->types, &node, "slots", &m);
	if (!l->shift.present || !m.present || m.size < 8)
		return l;
	l->slots = m.offset;
	l->shift_at = l->shift.offset;
	for (uint64_t n = m.size / 8; n > 1; n >>= 1)
		l->chunk_shift++;
	if ((8ull << l->chunk_shift) != m.size)
		return l; /* not a power of two: not what this reads */
	idd_types_member(id->types, &page, "index", &l->index);
	if (!l->index.present) /* a union's member in some kernels */
		idd_types_member(id->types, &page, "__folio_index", &l->index);
	l->index_at = l->index.offset;
	l->page_size = page.size;
	/* read alone: each value from a buffer of the member's own bytes */
	l->shift.offset = 0;
	l->index.offset = 0;
	l->ok = l->shift.size && l->shift.size <= 8 && l->index.size <= 8;
	return l;
}

static bool read_u64(struct inodedump *id, uint64_t addr, uint64_t *v)
{
	struct inodedump_error *e = idd_target_read_u64(id->target, addr, v);

	inodedump_error_free(e);
	return !e;
}

#define XA_MAX_DEPTH 16 /* 64-bit indexes, at least 4 bits a level */

bool idd_pagecache_page(struct inodedump *id, uint64_t mapping,
			uint64_t index, uint64_t *va, const char **why,
			bool *damaged)
{
	const struct pagecache_layout *l = layout(id);
	uint64_t entry, folio_index = 0;
	unsigned depth = 0, last_shift = 64;
	struct inodedump_error *e;

	*va = 0;
	*damaged = false;
	if (!l || !l->ok) {
		*why = "this kernel's address_space or xa_node is not what "
		       "this reads";
		return false;
	}
	if (!read_u64(id, mapping + l->head, &entry)) {
		*why = "its address_space is not in the dump";
		return false;
	}
	for (;;) {
		uint64_t node, off;
		uint8_t sb[8];

		if (!entry) {
			*why = "not in the page cache";
			return false;
		}
		if (entry & 1) {
			*why = "not in memory (a shadow or swap entry in the "
			       "page cache)";
			return false;
		}
		if ((entry & 3) != 2)
			break; /* a folio */
		if (entry <= 4096) {
			*why = "a sibling or retry entry where a node was "
			       "expected: the page cache is damaged";
			*damaged = true;
			return false;
		}
		node = entry - 2;
		if (++depth > XA_MAX_DEPTH) {
			*why = "the page cache's tree is deeper than any "
			       "index: cyclic or damaged";
			*damaged = true;
			return false;
		}
		e = idd_target_read(id->target, node + l->shift_at, sb,
				    l->shift.size);
		if (e) {
			inodedump_error_free(e);
			*why = "a node of the page cache is not in the dump";
			return false;
		}
		{
			unsigned shift = (unsigned)idd_member_uval(&l->shift,
								  sb) &
					 0xff;
			/* a chunk less at each level, down to 0 */
			if (shift >= 64 || shift % l->chunk_shift ||
			    (last_shift != 64 &&
			     shift + l->chunk_shift != last_shift)) {
				*why = "a node of the page cache has a shift "
				       "that does not fit its place: cyclic "
				       "or damaged";
				*damaged = true;
				return false;
			}
			if (last_shift == 64 && shift + l->chunk_shift < 64 &&
			    index >> (shift + l->chunk_shift)) {
				*why = "not in the page cache (beyond its "
				       "tree)";
				return false;
			}
			last_shift = shift;
			off = (index >> shift) & ((1ull << l->chunk_shift) - 1);
		}
		if (!read_u64(id, node + l->slots + off * 8, &entry)) {
			*why = "a node of the page cache is not in the dump";
			return false;
		}
		/* a large folio's other slots point to its first */
		if ((entry & 3) == 2 &&
		    (entry >> 2) < (1ull << l->chunk_shift)) {
			off = entry >> 2;
			if (!read_u64(id, node + l->slots + off * 8, &entry)) {
				*why = "a node of the page cache is not in "
				       "the dump";
				return false;
			}
		}
	}
	if (last_shift == 64 && index) {
		*why = "not in the page cache";
		return false;
	}
	/* a large folio: the page at index within it */
	if (l->index.present) {
		uint8_t b[8];

		e = idd_target_read(id->target, entry + l->index_at, b,
				    l->index.size);
		if (e) {
			inodedump_error_free(e);
			*why = "its struct page is not in the dump";
			return false;
		}
		folio_index = idd_member_uval(&l->index, b);
	}
	if (folio_index > index || index - folio_index >= 512) {
		*why = "the page cache's entry is not the page of that index";
		*damaged = true;
		return false;
	}
	e = idd_pages_slab_base(id, entry + (index - folio_index) *
						  l->page_size, va);
	if (e) {
		inodedump_error_free(e);
		*why = "the page cache's entry is no struct page this kernel "
		       "has";
		*damaged = true;
		return false;
	}
	return true;
}
