// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The x86-64 page walk (lib/target/x86_64.c) on synthetic page tables in
 * physical memory held in buffers (idd_target_open_physical): 4- and
 * 5-level tables, 1 GiB / 2 MiB / 4 KiB leaves, a non-present entry at
 * each level, a read across a page boundary, the SME bit, phys_base.
 * The tables are fixed synthetic data built here from the architecture's
 * entry format (Intel SDM vol. 3, 4.5), not from the library's code.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "target/target.h"



#define PAGE 4096u
#define MAX_PAGES 64
#define P_PRESENT 0x1ull
#define P_RW 0x2ull
#define P_PSE 0x80ull
#define P_NX (1ull << 63)
#define KERNEL_MAP UINT64_C(0xffffffff80000000)

/* A sparse physical memory: pages at chosen physical addresses. */
struct image {
	uint8_t pages[MAX_PAGES][PAGE];
	struct idd_memory_region regions[MAX_PAGES];
	size_t n;
	uint64_t next_table; /* where the next page table goes */
	uint64_t sme;	     /* the encryption bit set in every entry */
	bool l5;
	uint64_t root;
};

static uint8_t *page_at(struct image *im, uint64_t pa)
{
	pa &= ~(uint64_t)(PAGE - 1);
	for (size_t i = 0; i < im->n; i++)
		if (im->regions[i].start == pa)
			return im->pages[i];
	if (im->n == MAX_PAGES)
		abort();
	memset(im->pages[im->n], 0, PAGE);
	im->regions[im->n] = (struct idd_memory_region){ pa, im->pages[im->n],
							 PAGE };
	return im->pages[im->n++];
}

static uint64_t get_u64(struct image *im, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, page_at(im, pa) + pa % PAGE, 8);
	return v;
}

static void put_u64(struct image *im, uint64_t pa, uint64_t v)
{
	memcpy(page_at(im, pa) + pa % PAGE, &v, 8);
}

static void image_init(struct image *im, bool l5, uint64_t root, uint64_t sme)
{
	im->n = 0;
	im->l5 = l5;
	im->root = root;
	im->sme = sme;
	im->next_table = 0x200000;
	page_at(im, root);
}

/*
 * Map va to pa with a leaf at level leaf (1: 4 KiB, 2: 2 MiB, 3: 1 GiB);
 * tables are made on the way down. Returns the physical address of the
 * entry at each level in entry_pa[level] (for tests to clear).
 */
static void map(struct image *im, uint64_t va, uint64_t pa, int leaf,
		uint64_t entry_pa[6])
{
	int top = im->l5 ? 5 : 4;
	uint64_t table = im->root;

	for (int level = top;; level--) {
		unsigned shift = 12 + 9 * (level - 1);
		uint64_t slot = table + ((va >> shift) & 511) * 8;
		uint64_t e = get_u64(im, slot);

		if (entry_pa)
			entry_pa[level] = slot;
		if (level == leaf) {
			put_u64(im, slot, pa | im->sme | P_PRESENT | P_RW | P_NX |
					  (leaf > 1 ? P_PSE : 0));
			return;
		}
		if (!(e & P_PRESENT)) {
			uint64_t next = im->next_table;

			im->next_table += PAGE;
			page_at(im, next);
			e = next | im->sme | P_PRESENT | P_RW;
			put_u64(im, slot, e);
		}
		table = e & 0x000ffffffffff000ull & ~im->sme;
	}
}

/* Distinct bytes at pa: a page's worth of its own pattern. */
static void fill(struct image *im, uint64_t pa, uint8_t seed)
{
	uint8_t *p = page_at(im, pa);

	for (unsigned i = 0; i < PAGE; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static struct idd_target *open_image(struct image *im, const char *info)
{
	struct idd_target *t = NULL;
	struct inodedump_error *err =
		idd_target_open_physical(im->regions, im->n, "x86_64", info, &t);

	if (err) {
		printf("FAIL open: %s\n", inodedump_error_message(err));
		exit(1);
	}
	return t;
}

/* VMCOREINFO naming root through init_top_pgt and phys_base. */
static char *vmcoreinfo(uint64_t root, uint64_t phys_base, bool l5,
			uint64_t sme, const char *extra)
{
	/* KASLR moved the image: the symbol is the relocated address. */
	uint64_t pgd = KERNEL_MAP + (root - phys_base);
	char *s;

	if (asprintf(&s,
		     "OSRELEASE=6.12.0\nPAGESIZE=4096\n"
		     "SYMBOL(init_top_pgt)=%" PRIx64 "\n"
		     "NUMBER(phys_base)=%" PRIu64 "\n"
		     "NUMBER(pgtable_l5_enabled)=%d\n"
		     "NUMBER(sme_mask)=%" PRIu64 "\n%s",
		     pgd, phys_base, l5, sme, extra ? extra : "") < 0)
		abort();
	return s;
}

static bool walks_to(struct idd_target *t, uint64_t va, uint64_t want)
{
	uint64_t pa = 0;

	return idd_target_walk(t, va, &pa) && pa == want;
}

static bool reads_as(struct idd_target *t, uint64_t va, struct image *im,
		     uint64_t pa, size_t len)
{
	uint8_t got[64];
	struct inodedump_error *err = idd_target_read(t, va, got, len);
	bool ok = !err && !memcmp(got, page_at(im, pa) + pa % PAGE, len);

	inodedump_error_free(err);
	return ok;
}

static bool read_fails(struct idd_target *t, uint64_t va)
{
	uint8_t got[8];
	struct inodedump_error *err = idd_target_read(t, va, got, sizeof(got));
	bool ok = err && inodedump_error_code(err) == INODEDUMP_ERR_FAULT;

	inodedump_error_free(err);
	return ok;
}

/* Each leaf size, at both depths, read back through the walk. */
static void test_leaves(bool l5, uint64_t sme)
{
	static struct image im;
	uint64_t root = 0x9e0a000, phys_base = 0x7a00000;
	/* Direct-map (4 KiB, 2 MiB, 1 GiB) and vmemmap-like addresses. */
	uint64_t va4k = l5 ? 0xff11000012345000ull : 0xffff888012345000ull;
	uint64_t va2m = l5 ? 0xff11000040200000ull : 0xffff888040200000ull;
	uint64_t va1g = l5 ? 0xff110000c0000000ull : 0xffff8880c0000000ull;
	char *info;
	struct idd_target *t;

	image_init(&im, l5, root, sme);
	map(&im, va4k, 0x1234000, 1, NULL);
	map(&im, va2m, 0x40200000, 2, NULL);
	map(&im, va1g, 0x100000000ull, 3, NULL);
	fill(&im, 0x1234000, 1);
	fill(&im, 0x40200000 + 0x5000, 2);
	fill(&im, 0x100000000ull + 0x12345000, 3);
	info = vmcoreinfo(root, phys_base, l5, sme, NULL);
	t = open_image(&im, info);

	CHECKF(!strcmp(idd_target_translation(t),
		      l5 ? "inodedump (x86-64, 5-level page tables)"
			 : "inodedump (x86-64, 4-level page tables)"),
	      "translation: %s", idd_target_translation(t));
	CHECKF(walks_to(t, va4k + 0x123, 0x1234123), "4 KiB leaf (l5 %d)", l5);
	CHECKF(reads_as(t, va4k + 0x123, &im, 0x1234123, 64),
	      "4 KiB leaf bytes (l5 %d)", l5);
	CHECKF(walks_to(t, va2m + 0x5010, 0x40205010), "2 MiB leaf (l5 %d)", l5);
	CHECKF(reads_as(t, va2m + 0x5010, &im, 0x40205010, 64),
	      "2 MiB leaf bytes (l5 %d)", l5);
	CHECKF(walks_to(t, va1g + 0x12345678, 0x112345678ull),
	      "1 GiB leaf (l5 %d)", l5);
	CHECKF(reads_as(t, va1g + 0x12345678, &im, 0x112345678ull, 64),
	      "1 GiB leaf bytes (l5 %d)", l5);
	/* A page the 2 MiB leaf maps but the image lacks: a fault. */
	CHECKF(walks_to(t, va2m + 0x7000, 0x40207000) &&
		      read_fails(t, va2m + 0x7000),
	      "mapped page missing from the image (l5 %d)", l5);
	/* Not canonical: bits above the top level differ from its top bit. */
	CHECKF(!walks_to(t, va4k ^ (1ull << 60), 0x1234000),
	      "non-canonical address (l5 %d)", l5);
	idd_target_close(t);
	free(info);
}

/* Clearing the present bit at each level makes the address unmapped. */
static void test_not_present(bool l5)
{
	static struct image im;
	uint64_t root = 0x1000000, phys_base = 0;
	uint64_t va = l5 ? 0xff11000012345000ull : 0xffff888012345000ull;
	int top = l5 ? 5 : 4;
	char *info = vmcoreinfo(root, phys_base, l5, 0, NULL);

	for (int level = 1; level <= top; level++) {
		uint64_t entry_pa[6] = { 0 };
		struct idd_target *t;

		image_init(&im, l5, root, 0);
		map(&im, va, 0x1234000, 1, entry_pa);
		fill(&im, 0x1234000, 4);
		/* A neighbour sharing every table down to this level's. */
		map(&im, va + (1ull << (12 + 9 * (level - 1))), 0x1235000, 1,
		    NULL);
		fill(&im, 0x1235000, 5);
		put_u64(&im, entry_pa[level],
			get_u64(&im, entry_pa[level]) & ~P_PRESENT);
		t = open_image(&im, info);
		CHECKF(!walks_to(t, va, 0x1234000) && read_fails(t, va),
		      "level %d entry not present (l5 %d): still mapped",
		      level, l5);
		CHECKF(reads_as(t, va + (1ull << (12 + 9 * (level - 1))), &im,
			       0x1235000, 64),
		      "level %d neighbour (l5 %d) unreadable", level, l5);
		idd_target_close(t);
	}
	free(info);
}

/* A read across a page boundary: two pages, far apart physically. */
static void test_page_boundary(void)
{
	static struct image im;
	uint64_t root = 0x1000000, va = 0xffff888000400000ull;
	uint8_t got[32], want[32];
	struct inodedump_error *err;
	char *info = vmcoreinfo(root, 0, false, 0, NULL);
	struct idd_target *t;

	image_init(&im, false, root, 0);
	map(&im, va, 0x5000000, 1, NULL);
	map(&im, va + PAGE, 0x3000000, 1, NULL);
	fill(&im, 0x5000000, 10);
	fill(&im, 0x3000000, 20);
	t = open_image(&im, info);
	memcpy(want, page_at(&im, 0x5000000) + PAGE - 16, 16);
	memcpy(want + 16, page_at(&im, 0x3000000), 16);
	err = idd_target_read(t, va + PAGE - 16, got, sizeof(got));
	CHECKF(!err && !memcmp(got, want, sizeof(got)),
	      "read across a page boundary: %s",
	      err ? inodedump_error_message(err) : "bytes differ");
	inodedump_error_free(err);
	/* The second page unmapped: the whole read fails, naming why. */
	idd_target_close(t);
	put_u64(&im, root + ((va >> 39) & 511) * 8, 0); /* cut everything */
	t = open_image(&im, info);
	CHECKF(read_fails(t, va + PAGE - 4), "read of an unmapped pair");
	idd_target_close(t);
	free(info);
}

/* phys_base and KASLR: the root is the symbol less the image map plus
 * phys_base; KERNELOFFSET is already in the symbol's value. */
static void test_phys_base(void)
{
	static struct image im;
	uint64_t phys_base = 0x29000000, root = phys_base + 0x2c0a000;
	uint64_t va = 0xffff888000010000ull;
	char *info, *wrong;
	struct idd_target *t;

	image_init(&im, false, root, 0);
	map(&im, va, 0x10000, 1, NULL);
	fill(&im, 0x10000, 30);
	info = vmcoreinfo(root, phys_base, false, 0, "KERNELOFFSET=1c000000\n");
	t = open_image(&im, info);
	CHECKF(walks_to(t, va, 0x10000), "root from init_top_pgt + phys_base");
	idd_target_close(t);
	/* The same symbol with phys_base 0 points elsewhere: no walk. */
	if (asprintf(&wrong, "SYMBOL(init_top_pgt)=%" PRIx64
			     "\nNUMBER(phys_base)=0\n",
		     KERNEL_MAP + (root - phys_base)) < 0)
		abort();
	t = open_image(&im, wrong);
	CHECKF(!walks_to(t, va, 0x10000), "phys_base ignored");
	idd_target_close(t);
	free(wrong);
	/* init_level4_pgt, the name before 4.13, is taken too. */
	if (asprintf(&wrong, "SYMBOL(init_level4_pgt)=%" PRIx64
			     "\nNUMBER(phys_base)=%" PRIu64 "\n",
		     KERNEL_MAP + (root - phys_base), phys_base) < 0)
		abort();
	t = open_image(&im, wrong);
	CHECKF(walks_to(t, va, 0x10000), "init_level4_pgt");
	idd_target_close(t);
	free(wrong);
	free(info);
}

/* Without what the walk needs, it says so and reads fail cleanly. */
static void test_no_walk(void)
{
	static struct image im;
	uint64_t pa;
	struct idd_target *t;

	image_init(&im, false, 0x1000000, 0);
	map(&im, 0xffff888000010000ull, 0x10000, 1, NULL);
	t = open_image(&im, "OSRELEASE=6.12.0\n"); /* no init_top_pgt */
	CHECKF(!idd_target_walk(t, 0xffff888000010000ull, &pa), "walk w/o root");
	CHECKF(strncmp(idd_target_translation(t), "inodedump", 9),
	      "translation: %s", idd_target_translation(t));
	CHECKF(read_fails(t, 0xffff888000010000ull), "read w/o a walk");
	idd_target_close(t);
	/* PS set in a PML4 entry is reserved: not a leaf, not a table. */
	image_init(&im, false, 0x1000000, 0);
	put_u64(&im, 0x1000000 + 273 * 8, 0x40000000 | P_PRESENT | P_PSE);
	{
		char *info = vmcoreinfo(0x1000000, 0, false, 0, NULL);

		t = open_image(&im, info);
		CHECKF(!idd_target_walk(t, 0xffff888000010000ull, &pa),
		      "PS in a PML4 entry taken as a leaf");
		idd_target_close(t);
		free(info);
	}
}

int main(void)
{
	const uint64_t sme = 1ull << 47; /* AMD SME's C-bit, as on EPYC */

	test_leaves(false, 0);
	test_leaves(true, 0);
	test_leaves(false, sme);
	test_leaves(true, sme);
	test_not_present(false);
	test_not_present(true);
	test_page_boundary();
	test_phys_base();
	test_no_walk();
	return check_summary("test_target_walk");
}
