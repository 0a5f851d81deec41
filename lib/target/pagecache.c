// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pages a reader last read (backend.h): 4 MiB (at least 64 pages),
 * 4-way set associative by page frame, each set refilled in turn. A sweep
 * walks slab pages that hold a few inodes each and comes back to a page
 * several times; a miss is a decompression (~80 k instructions for a zlib
 * page) or a pread(2). Consecutive frames fall in different sets.
 */
#include <stdlib.h>

#include "target/backend.h"

#define CACHE_BYTES (4u << 20)
#define CACHE_MIN_PAGES 64u
#define NO_PFN UINT64_MAX

bool idd_page_cache_init(struct idd_page_cache *c, size_t page_size)
{
	size_t slots;

	c->page_size = page_size;
	c->nsets = CACHE_MIN_PAGES / IDD_PAGE_CACHE_WAYS;
	while (c->nsets * 2 * IDD_PAGE_CACHE_WAYS * page_size <= CACHE_BYTES)
		c->nsets *= 2;
	slots = c->nsets * IDD_PAGE_CACHE_WAYS;
	c->pfn = malloc(slots * sizeof(*c->pfn));
	c->next_way = calloc(c->nsets, 1);
	/* untouched until used: a one-inode decode pays for a few pages */
	c->pages = malloc(slots * page_size);
	for (size_t i = 0; c->pfn && i < slots; i++)
		c->pfn[i] = NO_PFN;
	return c->pfn && c->next_way && c->pages;
}

void idd_page_cache_free(struct idd_page_cache *c)
{
	free(c->pfn);
	free(c->next_way);
	free(c->pages);
}

const uint8_t *idd_page_cache_get(struct idd_page_cache *c, uint64_t pfn,
				  bool (*fill)(void *arg, uint64_t pfn,
					       uint8_t *page),
				  void *arg)
{
	size_t set = (size_t)(pfn & (c->nsets - 1)), slot;
	uint64_t *tag = c->pfn + set * IDD_PAGE_CACHE_WAYS;
	uint8_t *page;

	for (unsigned w = 0; w < IDD_PAGE_CACHE_WAYS; w++)
		if (tag[w] == pfn)
			return c->pages + (set * IDD_PAGE_CACHE_WAYS + w) *
						  c->page_size;
	slot = set * IDD_PAGE_CACHE_WAYS + c->next_way[set];
	c->next_way[set] =
		(uint8_t)((c->next_way[set] + 1) % IDD_PAGE_CACHE_WAYS);
	page = c->pages + slot * c->page_size;
	c->pfn[slot] = NO_PFN;
	if (pfn == NO_PFN || !fill(arg, pfn, page))
		return NULL;
	c->pfn[slot] = pfn;
	return page;
}
