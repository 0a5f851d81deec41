// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where a frame's struct page is (lib/decode/memmap.c), in each memory
 * model, on synthetic images laid out as the kernel lays them out
 * (include/linux/mmzone.h, mm/sparse.c, asm-generic/memory_model.h):
 * SPARSEMEM_EXTREME's roots and a map per section, a static mem_section,
 * a vmemmap kernel told by its sections decoding to vmemmap, FLATMEM's
 * mem_map less ARCH_PFN_OFFSET; and every case the model cannot be
 * known, each with its reason. The proof on a real kernel is the patched
 * fixture set (a SPARSEMEM kernel without VMEMMAP).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decode/memmap.h"

#define PAGE_BYTES 64 /* sizeof(struct page) */
#define FLAGS_OFF 0
#define MS_BYTES 16 /* struct mem_section: section_mem_map, usage */
#define PRESENT 0x1ULL
#define HAS_MAP 0x2ULL
#define ONLINE 0x4ULL

/* Regions of the image: addresses in an x86-64 direct map. */
#define ROOTS 0xffff888000100000ULL
#define SECT0 0xffff888000200000ULL /* sections 0..255 (root 0) */
#define SECT3 0xffff888000300000ULL /* sections 768..1023 (root 3) */
#define MAPA 0xffff888010000000ULL  /* section 0's map */
#define MAPB 0xffff888020000000ULL  /* section 1's map */
#define MAPC 0xffff888030000000ULL  /* section 770's map */

static uint8_t roots[2048 * 8], sect0[256 * MS_BYTES], sect3[256 * MS_BYTES];
static uint8_t mapa[16 * PAGE_BYTES], mapb[16 * PAGE_BYTES],
	mapc[16 * PAGE_BYTES];

static void put(uint8_t *buf, size_t off, uint64_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

/* SECTION_SIZE_BITS 27, PAGE_SHIFT 12: 32768 frames a section. */
#define PPS 32768ULL
#define WIDTH 19 /* MAX_PHYSMEM_BITS 46 - SECTION_SIZE_BITS 27 */

static void page_at(uint8_t *map, unsigned i, uint64_t section)
{
	put(map, i * PAGE_BYTES + FLAGS_OFF, section << (64 - WIDTH) | 0x200);
}

/* The EXTREME image: sections 0, 1 and 770 with a map, 2 present without. */
static void build_extreme(void)
{
	memset(roots, 0, sizeof(roots));
	put(roots, 0, SECT0);
	put(roots, 3 * 8, SECT3);
	/* sparse_encode_mem_map(): map less the section's first pfn */
	put(sect0, 0 * MS_BYTES, MAPA | PRESENT | HAS_MAP | ONLINE);
	put(sect0, 1 * MS_BYTES,
	    (MAPB - 1 * PPS * PAGE_BYTES) | PRESENT | HAS_MAP | ONLINE);
	put(sect0, 2 * MS_BYTES, PRESENT);
	put(sect3, 2 * MS_BYTES,
	    (MAPC - 770 * PPS * PAGE_BYTES) | PRESENT | HAS_MAP);
	for (unsigned i = 0; i < 16; i++) {
		page_at(mapa, i, 0);
		page_at(mapb, i, 1);
		page_at(mapc, i, 770);
	}
	put(mapa, 9 * PAGE_BYTES, 0xdeadULL << 48); /* flags that lie */
}

static const char extreme_info[] =
	"PAGESIZE=4096\n"
	"SYMBOL(mem_section)=ffff888000100000\n"
	"LENGTH(mem_section)=2048\n"
	"SIZE(mem_section)=16\n"
	"OFFSET(mem_section.section_mem_map)=0\n"
	"NUMBER(SECTION_SIZE_BITS)=27\n"
	"NUMBER(MAX_PHYSMEM_BITS)=46\n";

/* The regions outlive each target (idd_target_open_memory keeps them). */
static struct idd_target *open_image(const char *info, bool with_roots)
{
	static const struct idd_memory_region r[] = {
		{ SECT0, sect0, sizeof(sect0) }, { SECT3, sect3, sizeof(sect3) },
		{ MAPA, mapa, sizeof(mapa) },	 { MAPB, mapb, sizeof(mapb) },
		{ MAPC, mapc, sizeof(mapc) },	 { ROOTS, roots, sizeof(roots) },
	};
	struct idd_target *t = NULL;
	struct inodedump_error *err = idd_target_open_memory(
		r, with_roots ? 6 : 5, info, &t);

	if (err) {
		printf("open: %s\n", inodedump_error_message(err));
		exit(1);
	}
	return t;
}

static const struct idd_memmap_inputs base_in = {
	.page_bytes = PAGE_BYTES,
	.flags_offset = FLAGS_OFF,
	.flags_present = true,
};

static void test_extreme(void)
{
	struct idd_target *t = open_image(extreme_info, true);
	struct idd_memmap m;
	uint64_t page = 0, pfn = 0;
	struct inodedump_error *err;

	idd_memmap_init(&m, t, &base_in);
	CHECKF(m.model == IDD_MEMMAP_SECTIONS, "model %d (%s)", m.model,
	       m.why ? m.why : "-");
	CHECK(m.extreme && m.per_root == 256 && m.nr_roots == 2048);

	/* pfn -> page in each section, as __pfn_to_page() */
	CHECK(!idd_memmap_page(&m, t, 5, &page) && page == MAPA + 5 * 64);
	CHECK(!idd_memmap_page(&m, t, PPS + 7, &page) && page == MAPB + 7 * 64);
	CHECK(!idd_memmap_page(&m, t, 770 * PPS + 1, &page) &&
	      page == MAPC + 64);
	/* a section without a map, a root not allocated, past the table */
	err = idd_memmap_page(&m, t, 2 * PPS + 3, &page);
	CHECKF(err && err->code == INODEDUMP_ERR_FAULT && !err->has_address &&
		       strstr(inodedump_error_message(err), "section 2 has no"),
	       "%s", err ? inodedump_error_message(err) : "no error");
	inodedump_error_free(err);
	err = idd_memmap_page(&m, t, 300 * PPS, &page);
	CHECK(err && !err->has_address);
	inodedump_error_free(err);
	err = idd_memmap_page(&m, t, 1ULL << 40, &page);
	CHECK(err && !err->has_address);
	inodedump_error_free(err);
	/* a run ends with its section */
	CHECK(idd_memmap_run(&m, 5) == PPS - 5);
	CHECK(idd_memmap_run(&m, PPS) == PPS);

	/* page -> pfn: the section atop page->flags, checked */
	CHECK(idd_memmap_pfn(&m, t, MAPB + 7 * 64, &pfn) && pfn == PPS + 7);
	CHECK(idd_memmap_pfn(&m, t, MAPC + 64, &pfn) && pfn == 770 * PPS + 1);
	/* flags that lie: the first section's map, checked */
	CHECK(idd_memmap_pfn(&m, t, MAPA + 9 * 64, &pfn) && pfn == 9);
	/* not a struct page: between two, or in no map */
	CHECK(!idd_memmap_pfn(&m, t, MAPB + 7 * 64 + 8, &pfn));
	CHECK(!idd_memmap_pfn(&m, t, 0xffff888040000000ULL, &pfn));
	idd_memmap_fini(&m);

	/* SECTION_MAP_MASK from the alignment: ONLINE (bit 2) is no address */
	CHECK(m.map_mask == ~0xfffULL);
	idd_target_close(t);
}

/* A vmemmap kernel: its sections decode to vmemmap itself. */
static void test_vmemmap_confirmed(void)
{
	struct idd_target *t = open_image(extreme_info, true);
	struct idd_memmap_inputs in = base_in;
	struct idd_memmap m;
	uint64_t page = 0, pfn = 0;

	in.vmemmap = MAPA; /* section 0 decodes to MAPA */
	idd_memmap_init(&m, t, &in);
	CHECK(m.model == IDD_MEMMAP_VMEMMAP && m.base == MAPA);
	CHECK(!idd_memmap_page(&m, t, 123456, &page) &&
	      page == MAPA + 123456 * 64);
	CHECK(idd_memmap_pfn(&m, t, MAPA + 77 * 64, &pfn) && pfn == 77);
	CHECK(idd_memmap_run(&m, 5) == UINT64_MAX);
	idd_memmap_fini(&m);

	/* an architecture's vmemmap the sections do not confirm is not used */
	in.vmemmap = 0xffffea0000000000ULL;
	idd_memmap_init(&m, t, &in);
	CHECK(m.model == IDD_MEMMAP_SECTIONS);
	CHECK(!idd_memmap_page(&m, t, 5, &page) && page == MAPA + 5 * 64);
	idd_memmap_fini(&m);
	idd_target_close(t);
}

/* A static mem_section[NR_SECTION_ROOTS][1]: 32 sections of 128 MiB. */
static void test_static(void)
{
	static const char info[] = "PAGESIZE=4096\n"
				   "SYMBOL(mem_section)=ffff888000200000\n"
				   "LENGTH(mem_section)=32\n"
				   "SIZE(mem_section)=16\n"
				   "OFFSET(mem_section.section_mem_map)=0\n"
				   "NUMBER(SECTION_SIZE_BITS)=27\n"
				   "NUMBER(MAX_PHYSMEM_BITS)=32\n";
	struct idd_target *t = open_image(info, true);
	struct idd_memmap m;
	uint64_t page = 0;
	struct inodedump_error *err;

	idd_memmap_init(&m, t, &base_in);
	CHECK(m.model == IDD_MEMMAP_SECTIONS && !m.extreme && m.per_root == 1);
	CHECK(!idd_memmap_page(&m, t, PPS + 3, &page) && page == MAPB + 3 * 64);
	err = idd_memmap_page(&m, t, 40 * PPS, &page); /* past NR_MEM_SECTIONS */
	CHECK(err && !err->has_address);
	inodedump_error_free(err);
	idd_memmap_fini(&m);
	idd_target_close(t);
}

/* FLATMEM: mem_map + (pfn - ARCH_PFN_OFFSET). */
static void test_flatmem(void)
{
	static const char info[] = "PAGESIZE=4096\n"
				   "SYMBOL(mem_map)=ffff888000200000\n";
	struct idd_target *t;
	struct idd_memmap_inputs in = base_in;
	struct idd_memmap m;
	uint64_t page = 0, pfn = 0;
	struct inodedump_error *err;

	put(sect0, 0, MAPA); /* the variable mem_map */
	t = open_image(info, true);
	in.flat_pfn_offset = 0x80000;
	in.flat_pfn_offset_known = true;
	idd_memmap_init(&m, t, &in);
	CHECK(m.model == IDD_MEMMAP_FLATMEM);
	CHECK(!idd_memmap_page(&m, t, 0x80003, &page) && page == MAPA + 3 * 64);
	err = idd_memmap_page(&m, t, 0x7ffff, &page);
	CHECK(err && !err->has_address);
	inodedump_error_free(err);
	CHECK(idd_memmap_run(&m, 0x7fff0) == 0x10);
	CHECK(idd_memmap_pfn(&m, t, MAPA + 3 * 64, &pfn) && pfn == 0x80003);
	CHECK(!idd_memmap_pfn(&m, t, MAPA - 64, &pfn));
	idd_memmap_fini(&m);

	in.flat_pfn_offset_known = false;
	idd_memmap_init(&m, t, &in);
	CHECK(m.model == IDD_MEMMAP_UNKNOWN && strstr(m.why, "ARCH_PFN_OFFSET"));
	idd_memmap_fini(&m);
	idd_target_close(t);
	build_extreme();
}

static void expect_unknown(const char *info, bool with_roots,
			   const char *why_has)
{
	struct idd_target *t = open_image(info, with_roots);
	struct idd_memmap m;
	uint64_t page = 0;
	struct inodedump_error *err;

	idd_memmap_init(&m, t, &base_in);
	CHECKF(m.model == IDD_MEMMAP_UNKNOWN && m.why && strstr(m.why, why_has),
	       "model %d, why '%s', wanted '%s'", m.model, m.why ? m.why : "-",
	       why_has);
	/* never an address: the reason instead */
	err = idd_memmap_page(&m, t, 5, &page);
	CHECK(err && strstr(inodedump_error_message(err), why_has));
	inodedump_error_free(err);
	idd_memmap_fini(&m);
	idd_target_close(t);
}

static void test_unknown(void)
{
	char info[512];

	/* SPARSEMEM without the section size */
	expect_unknown("PAGESIZE=4096\nSYMBOL(mem_section)=ffff888000100000\n"
		       "LENGTH(mem_section)=2048\nNUMBER(MAX_PHYSMEM_BITS)=46\n",
		       true, "SECTION_SIZE_BITS");
	/* a length that is neither layout */
	snprintf(info, sizeof(info), "%s", extreme_info);
	memcpy(strstr(info, "=2048"), "=2047", 5);
	expect_unknown(info, true, "LENGTH(mem_section) fits neither");
	/* the roots not in the dump */
	expect_unknown(extreme_info, false, "no memory section's map");
	/* no model named and no vmemmap */
	expect_unknown("PAGESIZE=4096\n", true, "names no memory model");
	/* no size of struct page */
	{
		struct idd_target *t = open_image(extreme_info, true);
		struct idd_memmap_inputs in = base_in;
		struct idd_memmap m;

		in.page_bytes = 0;
		idd_memmap_init(&m, t, &in);
		CHECK(m.model == IDD_MEMMAP_UNKNOWN &&
		      strstr(m.why, "size of struct page"));
		idd_memmap_fini(&m);
		idd_target_close(t);
	}
}

int main(void)
{
	build_extreme();
	test_extreme();
	test_vmemmap_confirmed();
	test_static();
	test_flatmem();
	test_unknown();
	return check_summary("memmap");
}
