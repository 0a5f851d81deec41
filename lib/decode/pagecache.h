/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: one page of a file's page cache (pagecache.c): the folio at an
 * index of an address_space's i_pages xarray, and where its bytes are.
 */
#ifndef IDD_DECODE_PAGECACHE_H
#define IDD_DECODE_PAGECACHE_H

#include <stdint.h>

#include "decode/session.h"

struct pagecache_layout;

/*
 * The direct-map address of the page at index of the page cache of the
 * address_space at mapping: true and *va, or false and *why (static
 * text: not cached, a shadow or swap entry, a damaged node, ...) and
 * *damaged when the xarray or its entry cannot be what the kernel wrote.
 */
bool idd_pagecache_page(struct inodedump *id, uint64_t mapping,
			uint64_t index, uint64_t *va, const char **why,
			bool *damaged);
void idd_pagecache_layout_free(struct pagecache_layout *l);

#endif
