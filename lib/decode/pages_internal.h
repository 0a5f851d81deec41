/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: what pages.c (a page's struct page read, classified, judged)
 * and pages_layout.c (this kernel's struct page and memory map, found
 * once a session) share. Not for the other files.
 */
#ifndef IDD_DECODE_PAGES_INTERNAL_H
#define IDD_DECODE_PAGES_INTERNAL_H

#include "decode/memmap.h"
#include "decode/session.h"

#define MAX_FLAGS 64
#define MAX_TYPES 16

struct page_layout {
	bool usable;
	const char *why_not;
	uint64_t size;
	struct idd_memmap mm; /* where each frame's struct page is */
	uint64_t page_offset; /* the direct map's start, */
	bool direct_known;    /* when known (s390x's may be 0) */
	char *why_buf;	      /* why_not when it is made (freed with l) */
	const char *derived;  /* vmemmap worked out, not given: how */
	struct idd_member flags, mapping, private_, compound, page_type,
		refcount;
	bool compound_info; /* 7.x: a tail's word may be a mask */
	char *flag_name[MAX_FLAGS];
	int64_t nr_flags, pg_lru, pg_private, pg_swapcache, pg_swapbacked,
		pg_head, pg_reserved, pg_hwpoison, pg_slab;
	struct {
		char *name;
		int64_t value;
	} type[MAX_TYPES];
	size_t ntypes;
	bool types_whole; /* type[].value is page_type's whole word */
	unsigned orders; /* NR_PAGE_ORDERS: the buddy blocks' orders */
	struct idd_member slab_cache, cache_name, host, i_ino, i_sb, s_id;
	char *excluded, *excluded_kinds; /* --info's, made on first ask */
};

/* The session's layout, made on first use (NULL: no memory). */
struct page_layout *idd_pages_layout(struct inodedump *id);

#endif
