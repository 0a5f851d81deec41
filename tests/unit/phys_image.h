/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Physical memory for the page-walk tests, built a GRAN-byte block at a
 * time as tables are written: the includer defines GRAN, MAX_PAGES and
 * struct image with pages[], regions[] (what idd_target_open_physical
 * takes) and n. Entries are written big-endian (ppc64's radix, s390x);
 * what a walk answers, and a read that fails.
 */
#ifndef IDD_TESTS_PHYS_IMAGE_H
#define IDD_TESTS_PHYS_IMAGE_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/target.h"

static uint8_t *page_at(struct image *im, uint64_t pa)
{
	pa &= ~(uint64_t)(GRAN - 1);
	for (size_t i = 0; i < im->n; i++)
		if (im->regions[i].start == pa)
			return im->pages[i];
	if (im->n == MAX_PAGES)
		abort();
	im->pages[im->n] = calloc(1, GRAN);
	if (!im->pages[im->n])
		abort();
	im->regions[im->n] = (struct idd_memory_region){ pa, im->pages[im->n],
							 GRAN };
	return im->pages[im->n++];
}

static uint64_t get_be(struct image *im, uint64_t pa)
{
	const uint8_t *p = page_at(im, pa) + pa % GRAN;
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(struct image *im, uint64_t pa, uint64_t v)
{
	uint8_t *p = page_at(im, pa) + pa % GRAN;

	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void image_free(struct image *im)
{
	for (size_t i = 0; i < im->n; i++)
		free(im->pages[i]);
	im->n = 0;
}

static bool walks_to(struct idd_target *t, uint64_t va, uint64_t want)
{
	uint64_t pa = 0;

	return idd_target_walk(t, va, &pa) && pa == want;
}

/* A read fails as a fault whose message holds what (NULL: any). */
static bool read_fails(struct idd_target *t, uint64_t va, const char *what)
{
	uint8_t got[8];
	struct inodedump_error *err = idd_target_read(t, va, got, sizeof(got));
	bool ok = err && inodedump_error_code(err) == INODEDUMP_ERR_FAULT &&
		  (!what || strstr(inodedump_error_message(err), what));

	if (err && !ok)
		printf("  read of 0x%" PRIx64 ": %s\n", va,
		       inodedump_error_message(err));
	inodedump_error_free(err);
	return ok;
}

#endif
