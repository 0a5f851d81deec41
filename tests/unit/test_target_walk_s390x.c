// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The s390x walk (lib/target/s390x.c) on synthetic DAT tables in physical
 * memory held in buffers (idd_target_open_physical), written big-endian
 * from the z/Architecture Principles of Operation's formats (chapter 3:
 * region-, segment- and page-table entries), not by the library's code:
 * roots of three and five levels, 4 KiB pages with Linux's software bits,
 * 1 MiB segment and 2 GiB region-third frames, an invalid entry at each
 * level, an index outside a table's length, an entry of the wrong table
 * type, a table outside memory, an address beyond the root's reach, the
 * lowcore refused, the 6.10+ image placed by KERNELOFFSET/KERNELOFFPHYS;
 * values read through the target in the dump's order (big-endian), the
 * order chosen with the architecture (named, or VMCOREINFO's keys).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "target/target.h"

#define MAX_PAGES 96
#define GRAN 0x4000u		  /* a region or segment table: 2048 entries */
#define ROOT UINT64_C(0x1200000) /* where Debian's 6.1 puts swapper_pg_dir */
#define INVALID UINT64_C(0x20)
#define FC UINT64_C(0x400)
#define PTE_INVALID UINT64_C(0x400)
#define PTE_SW UINT64_C(0x0a1) /* young, dirty, present: Linux's soft bits */

struct image {
	uint8_t *pages[MAX_PAGES];
	struct idd_memory_region regions[MAX_PAGES];
	size_t n;
	unsigned levels;
	uint64_t next_table;
};

#include "phys_image.h"

/* Level l (0 page .. 4 region-first): its index's shift and width. */
static const unsigned shift[5] = { 12, 20, 31, 42, 53 };
static const unsigned width[5] = { 8, 11, 11, 11, 11 };

/* An empty table of level l (>= 1) at pa: every entry invalid, its TT. */
static void empty_table(struct image *im, uint64_t pa, unsigned l)
{
	for (unsigned i = 0; i < (l ? 2048u : 256u); i++)
		put_be(im, pa + 8 * i, l ? INVALID | (uint64_t)(l - 1) << 2
					 : PTE_INVALID);
}

static void image_init(struct image *im, unsigned levels)
{
	memset(im, 0, sizeof(*im));
	im->levels = levels;
	im->next_table = 0x2000000;
	empty_table(im, ROOT, levels - 1);
}

static uint64_t slot_of(uint64_t table, unsigned l, uint64_t va)
{
	return table + ((va >> shift[l]) & ((1ull << width[l]) - 1)) * 8;
}

/* Map va to pa by an entry at leaf (0: 4 KiB, 1: 1 MiB, 2: 2 GiB). */
static uint64_t map(struct image *im, uint64_t va, uint64_t pa,
		    unsigned leaf)
{
	uint64_t table = ROOT;

	for (unsigned l = im->levels - 1;; l--) {
		uint64_t at = slot_of(table, l, va), e = get_be(im, at);

		if (l == leaf) {
			put_be(im, at, !l ? pa | PTE_SW
					  : pa | FC | (uint64_t)(l - 1) << 2);
			return at;
		}
		if (e & INVALID) {
			table = im->next_table;
			im->next_table += GRAN;
			empty_table(im, table, l - 1);
			/* region entries: TF 0, TL 3 (all four parts) */
			put_be(im, at, l == 1 ? table
					      : table | (uint64_t)(l - 1) << 2 | 3);
		} else {
			table = e & (l == 1 ? ~UINT64_C(0x7ff) : ~UINT64_C(0xfff));
		}
	}
}

/* The image as machine arch (NULL: none named), its root at va. */
static struct idd_target *open_at(struct image *im, const char *arch,
				  uint64_t va, const char *extra)
{
	struct idd_target *t = NULL;
	char *info;
	struct inodedump_error *err;

	if (asprintf(&info,
		     "OSRELEASE=6.1.0-41-s390x\nPAGESIZE=4096\n"
		     "SYMBOL(swapper_pg_dir)=%" PRIx64 "\n"
		     "SYMBOL(lowcore_ptr)=1b4c2d8\nSAMODE31=1000\n%s",
		     va, extra) < 0)
		abort();
	err = idd_target_open_physical(im->regions, im->n, arch, info, &t);
	free(info);
	if (err) {
		printf("FAIL open: %s\n", inodedump_error_message(err));
		inodedump_error_free(err);
		failed++;
		return NULL;
	}
	return t;
}

static struct idd_target *open_image(struct image *im, const char *extra)
{
	return open_at(im, "s390x", ROOT, extra);
}

/* The identity map and its three leaf sizes, under a root of levels. */
static void test_identity(unsigned levels)
{
	struct image im;
	struct idd_target *t;
	uint64_t v = 0;
	struct inodedump_error *err;

	image_init(&im, levels);
	map(&im, ROOT, ROOT, 1);		   /* the image: 1 MiB frames */
	map(&im, 0x3fe00000, 0x3fe00000, 1);
	map(&im, 0x80000000, 0x80000000, 2);	   /* 2 GiB at 2 GiB */
	map(&im, 0x3ff000, 0x7f5000, 0);	   /* a 4 KiB page elsewhere */
	map(&im, 0x0, 0x0, 1);			   /* the lowcore's segment */
	put_be(&im, 0x7f5008, UINT64_C(0x0123456789abcdef));
	page_at(&im, 0x80000000 + 0x12345000);
	put_be(&im, 0x80000000 + 0x12345018, UINT64_C(0x00000000fedcba98));
	t = open_image(&im, "KERNELOFFSET=0\n");
	if (!t)
		return;
	CHECK(idd_target_big_endian(t));
	CHECKF(walks_to(t, ROOT + 0x40, ROOT + 0x40), "%u levels: image", levels);
	CHECK(walks_to(t, 0x3fe12345, 0x3fe12345));
	CHECK(walks_to(t, 0x3ff123, 0x7f5123));
	CHECK(walks_to(t, 0x80000000 + 0x12345018, 0x80000000 + 0x12345018));
	/* a value read through the walk, in the dump's order */
	err = idd_target_read_u64(t, 0x3ff008, &v);
	CHECKF(!err && v == UINT64_C(0x0123456789abcdef), "%" PRIx64, v);
	inodedump_error_free(err);
	err = idd_target_read_uint(t, 0x92345018 + 4, 4, &v);
	CHECKF(!err && v == 0xfedcba98, "%" PRIx64, v);
	inodedump_error_free(err);
	/* not mapped: an invalid page, segment, region entry */
	CHECK(!walks_to(t, 0x3fe000, 0) && read_fails(t, 0x3fe000, NULL));
	CHECK(read_fails(t, 0x40000000, NULL));
	CHECK(read_fails(t, UINT64_C(0x100000000) * 3, NULL));
	/* beyond a 3-level root's 4 TiB; a 5-level root reaches it */
	if (levels == 3)
		CHECK(read_fails(t, UINT64_C(1) << 42, NULL));
	/* the lowcore: each CPU's, not absolute 0's */
	CHECK(read_fails(t, 0x10, "lowcore"));
	CHECK(read_fails(t, 0x1ff8, "lowcore"));
	CHECK(walks_to(t, 0x2000, 0x2000));
	CHECK(strstr(idd_target_translation(t), "s390x") != NULL);
	idd_target_close(t);
	image_free(&im);
}

/* Damage: a table outside memory, an entry of the wrong type, TL. */
static void test_damage(void)
{
	struct image im;
	struct idd_target *t;
	uint64_t at;

	image_init(&im, 3);
	map(&im, ROOT, ROOT, 1);
	/* a region-third entry whose segment table is not in the dump */
	put_be(&im, slot_of(ROOT, 2, UINT64_C(0x40000000000) - 0x80000000),
	       UINT64_C(0x7ff0000000) | 1 << 2 | 3);
	/* a segment table entry that says it is a region-third table's */
	at = map(&im, 0x500000, 0x500000, 1);
	put_be(&im, at, 0x500000 | FC | 1 << 2);
	/* a region-third entry covering only the first 512 segment entries */
	at = slot_of(ROOT, 2, UINT64_C(0x100000000));
	map(&im, UINT64_C(0x100000000), UINT64_C(0x100000000), 1);
	put_be(&im, at, (get_be(&im, at) & ~UINT64_C(3)) | 0);
	t = open_image(&im, "");
	if (!t)
		return;
	CHECK(read_fails(t, UINT64_C(0x40000000000) - 0x80000000,
			 "is not in the dump"));
	CHECK(read_fails(t, 0x500000, "says it is of a region-third table"));
	CHECK(walks_to(t, UINT64_C(0x100000000), UINT64_C(0x100000000)));
	CHECK(read_fails(t, UINT64_C(0x100000000) + (UINT64_C(512) << 20),
			 NULL));
	idd_target_close(t);
	image_free(&im);
}

/* 6.10+: the image at a virtual place, its physical one elsewhere. */
static void test_kernel_offset_phys(void)
{
	const uint64_t va_root = UINT64_C(0x3ffe0000000) + ROOT;
	struct image im;
	struct idd_target *t;
	struct idd_target_kernel_map km = { 0 };
	char info[256];

	image_init(&im, 3);
	map(&im, va_root & ~UINT64_C(0xfffff), ROOT & ~UINT64_C(0xfffff), 1);
	map(&im, UINT64_C(0x20000000000) + 0x100000, 0x100000, 1);
	snprintf(info, sizeof(info),
		 "KERNELOFFSET=3ffe0000000\nKERNELOFFPHYS=0\n"
		 "IDENTITYBASE=20000000000\n");
	/* no machine named: the order from VMCOREINFO's keys */
	t = open_at(&im, NULL, va_root, info);
	CHECK(t && idd_target_big_endian(t));
	idd_target_close(t);
	t = open_at(&im, "s390x", va_root, info);
	if (!t)
		return;
	CHECK(walks_to(t, va_root + 8, ROOT + 8));
	CHECK(walks_to(t, UINT64_C(0x20000000000) + 0x100010, 0x100010));
	idd_target_kernel_map(t, &km);
	CHECK(km.direct_pa0 == UINT64_C(0x20000000000));
	CHECK(km.vmemmap_var && !strcmp(km.vmemmap_var, "vmemmap"));
	idd_target_close(t);
	image_free(&im);
}

/* A little-endian image named s390x: its tables are not walked. */
static void test_order_chosen(void)
{
	static const uint8_t le[8] = { 0xef, 0xcd, 0xab, 0x89,
				       0x67, 0x45, 0x23, 0x01 };
	struct idd_memory_region r = { 0x1000, le, sizeof(le) };
	struct idd_target *t = NULL;
	uint64_t v = 0;
	struct inodedump_error *err;

	/* a memory image: the order of VMCOREINFO's architecture */
	err = idd_target_open_memory(&r, 1, "OSRELEASE=6.1.0\n"
				     "SYMBOL(lowcore_ptr)=1b4c2d8\n", &t);
	CHECK(!err && idd_target_big_endian(t));
	err = idd_target_read_u64(t, 0x1000, &v);
	CHECKF(!err && v == UINT64_C(0xefcdab8967452301), "%" PRIx64, v);
	CHECK(idd_target_uint(t, le, 2) == 0xefcd);
	idd_target_close(t);
	err = idd_target_open_memory(&r, 1, "OSRELEASE=6.1.0\n", &t);
	CHECK(!err && !idd_target_big_endian(t));
	err = idd_target_read_u64(t, 0x1000, &v);
	CHECKF(!err && v == UINT64_C(0x0123456789abcdef), "%" PRIx64, v);
	idd_target_close(t);
}

int main(void)
{
	test_identity(3);
	test_identity(5);
	test_damage();
	test_kernel_offset_phys();
	test_order_chosen();
	return check_summary("s390x walk");
}
