// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The readers' page cache (lib/target/pagecache.c) alone: a page is read
 * once while it stays, each frame comes back with its own bytes, a set
 * keeps IDD_PAGE_CACHE_WAYS frames and then refills its slots in turn,
 * and a failed read caches nothing.
 */
#include <string.h>

#include "check.h"
#include "target/backend.h"

#define PAGE 4096

static unsigned long fills[1u << 16];
static bool fail_next;

/* A page whose bytes say which frame it is. */
static bool fill(void *arg, uint64_t pfn, uint8_t *page)
{
	(void)arg;
	if (fail_next) {
		fail_next = false;
		return false;
	}
	fills[pfn % (sizeof(fills) / sizeof(fills[0]))]++;
	memset(page, (int)(pfn & 0xff), PAGE);
	memcpy(page, &pfn, sizeof(pfn));
	return true;
}

static bool is_page_of(const uint8_t *page, uint64_t pfn)
{
	uint64_t got;

	memcpy(&got, page, sizeof(got));
	return page && got == pfn && page[PAGE - 1] == (uint8_t)(pfn & 0xff);
}

int main(void)
{
	struct idd_page_cache c;
	const uint8_t *p;
	size_t slots;

	CHECK(idd_page_cache_init(&c, PAGE));
	slots = c.nsets * IDD_PAGE_CACHE_WAYS;
	CHECKF(slots * PAGE == 4u << 20, "%zu slots of 4 KiB", slots);
	CHECK((c.nsets & (c.nsets - 1)) == 0);

	/* Every slot once: each frame read once, then all hits. */
	for (uint64_t pfn = 1000; pfn < 1000 + slots; pfn++)
		CHECK(is_page_of(idd_page_cache_get(&c, pfn, fill, NULL), pfn));
	for (uint64_t pfn = 1000; pfn < 1000 + slots; pfn++)
		CHECK(is_page_of(idd_page_cache_get(&c, pfn, fill, NULL), pfn));
	for (uint64_t pfn = 1000; pfn < 1000 + slots; pfn++)
		CHECKF(fills[pfn] == 1, "frame %llu read %lu times",
		       (unsigned long long)pfn, fills[pfn]);

	/*
	 * One more frame of set 0: its oldest frame goes (read again when
	 * asked for, taking the next slot in turn), the others stay.
	 */
	{
		uint64_t set0 = 1000 + ((0 - 1000) & (c.nsets - 1));
		uint64_t newer = set0 + IDD_PAGE_CACHE_WAYS * c.nsets;

		CHECK(is_page_of(idd_page_cache_get(&c, newer, fill, NULL),
				 newer));
		CHECK(is_page_of(idd_page_cache_get(&c, set0, fill, NULL),
				 set0));
		CHECKF(fills[set0] == 2, "evicted frame read %lu times",
		       fills[set0]);
		CHECK(is_page_of(idd_page_cache_get(&c, set0 + 2 * c.nsets,
						    fill, NULL),
				 set0 + 2 * c.nsets));
		CHECK(fills[set0 + 2 * c.nsets] == 1);
		CHECK(fills[newer] == 1);
	}

	/* A failed read: NULL, nothing cached, the next try reads again. */
	fail_next = true;
	CHECK(!idd_page_cache_get(&c, 50000, fill, NULL));
	p = idd_page_cache_get(&c, 50000, fill, NULL);
	CHECK(is_page_of(p, 50000));
	CHECKF(fills[50000] == 1, "read %lu times", fills[50000]);
	/* The frame that means "empty" is never a page. */
	CHECK(!idd_page_cache_get(&c, UINT64_MAX, fill, NULL));

	idd_page_cache_free(&c);
	return check_summary("page cache");
}
