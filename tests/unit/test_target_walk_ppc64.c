// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ppc64 page walk (lib/target/ppc64.c) on synthetic radix trees in
 * physical memory held in buffers (idd_target_open_physical), for both
 * base page sizes a Book3S-64 kernel has (64 KiB: 13/9/9/5 index bits,
 * 4 KiB: 13/9/9/9): the linear map's 1 GiB leaves (as radix_init_pgtable
 * writes them), a 2 MiB leaf, a page above 2^48 physical, software bits
 * in a leaf, an invalid entry at each level, a leaf in the root, a
 * directory of an impossible size, a loop, a table outside memory,
 * addresses outside the kernel's quadrant or above RTS. The MMU from
 * NUMBER(RADIX_MMU), and without it (6.1) from the tables; the hash MMU:
 * the linear map alone. The entries are written big-endian from the
 * Power ISA's format (3.0 Book III 6.7.10.2), not by the library's code.
 * libaddrxlat 0.5.1 has no radix method (only the hash-era Linux tables,
 * ADDRXLAT_PTE_PPC64_LINUX_RPN30): nothing to cross-check against here;
 * the walk is checked against drgn on real dumps (tests/test_ppc64.py).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "target/target.h"

#define MAX_PAGES 64
#define GRAN 0x10000u /* the image's pages: a 64 KiB root fits one */
#define ROOT UINT64_C(0x2740000) /* Debian 6.1's swapper_pg_dir, less 0xc... */
#define E_VALID UINT64_C(0x8000000000000000)
#define E_LEAF UINT64_C(0x4000000000000000)
#define E_FLAGS UINT64_C(0x18f) /* privileged, RWX, referenced, changed */
#define E_SW1 UINT64_C(0x800)

struct image {
	unsigned ps;
	unsigned bits[4], shifts[4];
	uint8_t *pages[MAX_PAGES];
	struct idd_memory_region regions[MAX_PAGES];
	size_t n;
	uint64_t next_table;
};

#include "phys_image.h"

static void image_init(struct image *im, unsigned ps)
{
	memset(im, 0, sizeof(*im));
	im->ps = ps;
	im->bits[0] = 13, im->bits[1] = 9, im->bits[2] = 9;
	im->bits[3] = ps == 16 ? 5 : 9;
	im->shifts[3] = ps, im->shifts[2] = 21, im->shifts[1] = 30;
	im->shifts[0] = 39;
	im->next_table = 0x3000000;
	page_at(im, ROOT);
}

/* The entry's address at each level of va's path (slot[0..level]). */
static uint64_t slot_of(struct image *im, uint64_t table, unsigned level,
			uint64_t va)
{
	return table + ((va >> im->shifts[level]) &
			((1ull << im->bits[level]) - 1)) * 8;
}

/* Map va to pa with a leaf at level (3: a page, 2: 2 MiB, 1: 1 GiB). */
static void map(struct image *im, uint64_t va, uint64_t pa, unsigned level,
		uint64_t slot[4])
{
	uint64_t table = ROOT;

	for (unsigned l = 0;; l++) {
		uint64_t at = slot_of(im, table, l, va), e = get_be(im, at);

		if (slot)
			slot[l] = at;
		if (l == level) {
			put_be(im, at, E_VALID | E_LEAF | E_FLAGS | E_SW1 | pa);
			return;
		}
		if (!(e & E_VALID)) {
			uint64_t size = 8ull << im->bits[l + 1];

			table = (im->next_table + size - 1) & ~(size - 1);
			im->next_table = table + size;
			page_at(im, table);
			put_be(im, at, E_VALID | table | im->bits[l + 1]);
		} else {
			table = e & UINT64_C(0x0fffffffffffff00);
		}
	}
}

static void fill(struct image *im, uint64_t pa, unsigned seed)
{
	uint8_t *p = page_at(im, pa);

	for (size_t i = 0; i < GRAN; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static struct idd_target *open_image(struct image *im, const char *radix)
{
	struct idd_target *t = NULL;
	char *info;
	struct inodedump_error *err;

	if (asprintf(&info,
		     "OSRELEASE=6.1.0-50-powerpc64le\nPAGESIZE=%u\n"
		     "SYMBOL(swapper_pg_dir)=%" PRIx64 "\n"
		     "SYMBOL(mmu_vmemmap_psize)=c0000000027593c0\n%s"
		     "KERNELOFFSET=0\n",
		     1u << im->ps, UINT64_C(0xc000000000000000) + ROOT,
		     radix) < 0)
		abort();
	err = idd_target_open_physical(im->regions, im->n, "ppc64le", info,
				       &t);
	free(info);
	if (err) {
		printf("FAIL open: %s\n", inodedump_error_message(err));
		exit(1);
	}
	return t;
}

static bool reads_as(struct image *im, struct idd_target *t, uint64_t va,
		     uint64_t pa)
{
	uint8_t got[64];
	struct inodedump_error *err = idd_target_read(t, va, got, sizeof(got));
	bool ok = !err && !memcmp(got, page_at(im, pa) + pa % GRAN,
				  sizeof(got));

	inodedump_error_free(err);
	return ok;
}

#define LINEAR UINT64_C(0xc000000000000000)
#define VMALLOC UINT64_C(0xc008000000000000)
#define VMEMMAP UINT64_C(0xc00c000000000000)

static void test_radix(unsigned ps)
{
	struct image im;
	struct idd_target *t;
	uint64_t slot[4], page_va = VMALLOC + 0x1230000 + (5ull << ps);
	uint64_t page_pa = UINT64_C(0x00f0000001230000) + (3ull << ps);
	uint64_t big_va = VMEMMAP + 0x400000, big_pa = 0x40000000;
	char what[64];
	const char *modes[] = { "NUMBER(RADIX_MMU)=1\n", "" };

	image_init(&im, ps);
	/* The linear map: 1 GiB leaves from physical 0 (radix_init_pgtable). */
	map(&im, LINEAR, 0, 1, NULL);
	map(&im, LINEAR + 0x40000000, 0x40000000, 1, NULL);
	fill(&im, 0x12340000, 1);
	fill(&im, 0x41230000, 2);
	map(&im, big_va, big_pa, 2, NULL);
	fill(&im, big_pa + 0x10000, 3);
	map(&im, page_va, page_pa, 3, slot);
	fill(&im, page_pa, 4);
	for (int m = 0; m < 2; m++) {
		snprintf(what, sizeof(what), "%uK %s", 1u << (ps - 10),
			 m ? "(radix from the tables)" : "RADIX_MMU=1");
		t = open_image(&im, modes[m]);
		printf("%s: %s\n", what, idd_target_translation(t));
		CHECKF(strstr(idd_target_translation(t), "radix"),
		       "%s: %s", what, idd_target_translation(t));
		CHECKF(walks_to(t, LINEAR + 0x12345678, 0x12345678) &&
			       reads_as(&im, t, LINEAR + 0x12345678, 0x12345678),
		       "%s: linear map, first GiB", what);
		CHECKF(walks_to(t, LINEAR + 0x41234560, 0x41234560) &&
			       reads_as(&im, t, LINEAR + 0x41234560, 0x41234560),
		       "%s: linear map, second GiB", what);
		CHECKF(walks_to(t, big_va + 0x10040, big_pa + 0x10040) &&
			       reads_as(&im, t, big_va + 0x10040, big_pa + 0x10040),
		       "%s: 2 MiB leaf", what);
		CHECKF(walks_to(t, page_va + 0x88, page_pa + 0x88) &&
			       reads_as(&im, t, page_va + 0x88, page_pa + 0x88),
		       "%s: page above 2^48 physical", what);
		CHECKF(read_fails(t, page_va + (1ull << ps), "not mapped"),
		       "%s: the next page is not mapped", what);
		CHECKF(!walks_to(t, 0x0000000012345678, 0x12345678) &&
			       read_fails(t, 0x0000000012345678, NULL),
		       "%s: quadrant 0 is not the kernel's", what);
		CHECKF(!walks_to(t, LINEAR | 1ull << 52 | 0x12345678,
				 0x12345678),
		       "%s: an address above RTS", what);
		idd_target_close(t);
	}
	/* An invalid entry at each level of the page's path. */
	for (unsigned l = 0; l < 4; l++) {
		uint64_t keep = get_be(&im, slot[l]);

		put_be(&im, slot[l], keep & ~E_VALID);
		t = open_image(&im, modes[0]);
		CHECKF(!walks_to(t, page_va, page_pa) &&
			       read_fails(t, page_va, "not mapped"),
		       "%uK: invalid entry at level %u still maps", 1u << (ps - 10), l);
		idd_target_close(t);
		put_be(&im, slot[l], keep);
	}
	/* A leaf in the root (512 GiB) is no page size. */
	{
		uint64_t keep = get_be(&im, slot[0]);

		put_be(&im, slot[0], E_VALID | E_LEAF | E_FLAGS);
		t = open_image(&im, modes[0]);
		CHECKF(!walks_to(t, page_va, page_va & ((1ull << 39) - 1)),
		       "%uK: a leaf in the root taken", 1u << (ps - 10));
		idd_target_close(t);
		/* A directory whose next table cannot be (NLS 3). */
		put_be(&im, slot[0], (keep & ~UINT64_C(0x1f)) | 3);
		t = open_image(&im, modes[0]);
		CHECKF(read_fails(t, page_va, "where none can be"),
		       "%uK: a directory of 2^3 entries", 1u << (ps - 10));
		idd_target_close(t);
		put_be(&im, slot[0], keep);
	}
	/* A loop, then a table outside memory. */
	{
		uint64_t keep = get_be(&im, slot[2]);

		put_be(&im, slot[2], E_VALID | ROOT | im.bits[3]);
		t = open_image(&im, modes[0]);
		CHECKF(read_fails(t, page_va, "loop"), "%uK: table loop",
		       1u << (ps - 10));
		idd_target_close(t);
		put_be(&im, slot[2], E_VALID | UINT64_C(0x7f000000) | im.bits[3]);
		t = open_image(&im, modes[0]);
		CHECKF(read_fails(t, page_va, "not in the dump"),
		       "%uK: table outside memory", 1u << (ps - 10));
		idd_target_close(t);
		put_be(&im, slot[2], keep);
	}
	/* The same tables little-endian are not a radix tree. */
	{
		uint64_t keep = get_be(&im, slot[0]);
		uint64_t le = __builtin_bswap64(keep);

		put_be(&im, slot[0], le);
		t = open_image(&im, modes[0]);
		CHECKF(!walks_to(t, page_va, page_pa),
		       "%uK: a little-endian entry taken", 1u << (ps - 10));
		idd_target_close(t);
		put_be(&im, slot[0], keep);
	}
	image_free(&im);
}

/* The hash MMU: the linear map without tables, nothing else. */
static void test_hash(void)
{
	struct image im;
	struct idd_target *t;
	const char *modes[] = { "NUMBER(RADIX_MMU)=0\n", "" };

	for (int m = 0; m < 2; m++) {
		image_init(&im, 16);
		fill(&im, 0x12340000, 5);
		/* Under hash swapper_pg_dir holds vmalloc, not the linear map. */
		map(&im, VMALLOC + 0x10000, 0x5550000, 3, NULL);
		fill(&im, 0x5550000, 6);
		t = open_image(&im, modes[m]);
		printf("hash %s: %s\n", m ? "(from the tables)" : "RADIX_MMU=0",
		       idd_target_translation(t));
		CHECKF(strstr(idd_target_translation(t), "hash MMU"),
		       "hash %d: %s", m, idd_target_translation(t));
		CHECKF(walks_to(t, LINEAR + 0x12345678, 0x12345678) &&
			       reads_as(&im, t, LINEAR + 0x12345678, 0x12345678),
		       "hash %d: linear map", m);
		CHECKF(!walks_to(t, VMALLOC + 0x10000, 0x5550000),
		       "hash %d: vmalloc read through hash-format tables", m);
		idd_target_close(t);
		image_free(&im);
	}
}

static void test_kernel_map(void)
{
	struct idd_target_kernel_map km;
	struct idd_target *t = NULL;
	uint8_t byte = 0;
	struct idd_memory_region r = { 0, &byte, 1 };

	if (idd_target_open_physical(&r, 1, "ppc64le",
				     "OSRELEASE=6.1.0\nPAGESIZE=65536\n"
				     "SYMBOL(mmu_vmemmap_psize)=c0000000027593c0\n",
				     &t))
		abort();
	idd_target_kernel_map(t, &km);
	CHECKF(km.direct_pa0 == UINT64_C(0xc000000000000000),
	       "linear map 0x%" PRIx64, km.direct_pa0);
	CHECKF(km.vmemmap_var && !strcmp(km.vmemmap_var, "vmemmap"),
	       "memory map from %s", km.vmemmap_var ? km.vmemmap_var : "(none)");
	CHECKF(!strcmp(idd_target_vmcoreinfo_arch(t), "ppc64"),
	       "VMCOREINFO's architecture %s", idd_target_vmcoreinfo_arch(t));
	idd_target_close(t);
	CHECK(idd_target_same_arch("ppc64le", "ppc64"));
	CHECK(!idd_target_same_arch("ppc64", "x86_64"));
	CHECK(!idd_target_same_arch("ppc64", "aarch64"));
	CHECK(idd_target_arch_elf_machine("ppc64le") == 21 /* EM_PPC64 */);
}

int main(void)
{
	test_kernel_map();
	test_radix(16);
	test_radix(12);
	test_hash();
	return check_summary("test_target_walk_ppc64");
}
