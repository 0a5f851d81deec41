// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aarch64 page walk (lib/target/aarch64.c) on synthetic page tables
 * in physical memory held in buffers (idd_target_open_physical), for
 * every granule (4, 16, 64 KiB) and VA mode the kernel runs: 39/48 bits
 * at 4K, 36/47/48 at 16K, 42/48 at 64K, 52 with LPA2 (4K: five levels,
 * 16K) and with LVA/LPA (64K), and a VA_BITS=52 kernel running with 48
 * (47) bits. Each mode: a page, a block at every level a block may be, a
 * physical address above 48 bits where the mode has one, contiguous
 * runs, a tagged pointer, an invalid entry at each level, a block where
 * none may be, an address outside the kernel's half, a table loop and a
 * table outside memory. The tables are built here from the descriptor
 * format (Arm ARM D8), not by the library's code; where libaddrxlat
 * (libkdumpfile) is there, each translation is checked against its
 * AArch64 page-table method too, and the modes it cannot do are said.
 * Then the linear map and memory map read from VMCOREINFO.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "target/target.h"

#ifdef IDD_HAVE_ADDRXLAT
#include <libkdumpfile/addrxlat.h>
#endif

#define MAX_PAGES 256
#define KIMAGE_VA UINT64_C(0xffffffc008000000) /* swapper_pg_dir's */
#define D_VALID 0x1ull
#define D_TABLE 0x2ull
#define D_AF (1ull << 10)
#define D_SH (3ull << 8) /* inner shareable: not address bits without LPA2 */
#define D_CONT (1ull << 52)
#define D_PXN (1ull << 53)
#define D_UXN (1ull << 54)

struct mode {
	unsigned ps, cfg, va; /* page shift, VA_BITS, running VA size */
};

/* A sparse physical memory of granule-sized pages. */
struct image {
	struct mode m;
	size_t gran;
	uint8_t *pages[MAX_PAGES];
	struct idd_memory_region regions[MAX_PAGES];
	size_t n;
	uint64_t root, next_table;
	unsigned levels, top_bits, stride;
	bool lpa2;
};

static uint8_t *page_at(struct image *im, uint64_t pa)
{
	pa &= ~(uint64_t)(im->gran - 1);
	for (size_t i = 0; i < im->n; i++)
		if (im->regions[i].start == pa)
			return im->pages[i];
	if (im->n == MAX_PAGES)
		abort();
	im->pages[im->n] = calloc(1, im->gran);
	if (!im->pages[im->n])
		abort();
	im->regions[im->n] = (struct idd_memory_region){ pa, im->pages[im->n],
							 im->gran };
	return im->pages[im->n++];
}

static uint64_t get_u64(struct image *im, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, page_at(im, pa) + pa % im->gran, 8);
	return v;
}

static void put_u64(struct image *im, uint64_t pa, uint64_t v)
{
	memcpy(page_at(im, pa) + pa % im->gran, &v, 8);
}

static unsigned levels_of(unsigned ps, unsigned va)
{
	return (va - ps + ps - 3 - 1) / (ps - 3);
}

static void image_init(struct image *im, struct mode m)
{
	for (size_t i = 0; i < im->n; i++)
		free(im->pages[i]);
	memset(im, 0, sizeof(*im));
	im->m = m;
	im->gran = (size_t)1 << m.ps;
	im->stride = m.ps - 3;
	im->levels = levels_of(m.ps, m.va);
	/* TTBR1 offset into a 52-bit root (64K), else the running size. */
	im->top_bits = (levels_of(m.ps, m.cfg) == im->levels ? m.cfg : m.va) -
		       (m.ps + im->stride * (im->levels - 1));
	im->lpa2 = m.ps != 16 && m.va == 52;
	im->root = 0x40000000ull + 0x100 * im->gran;
	im->next_table = im->root + im->gran;
	page_at(im, im->root);
}

static void image_free(struct image *im)
{
	for (size_t i = 0; i < im->n; i++)
		free(im->pages[i]);
	im->n = 0;
}

/* An output address in a descriptor, as the mode encodes it. */
static uint64_t encode(const struct image *im, uint64_t oa)
{
	uint64_t low = oa & ~(uint64_t)(im->gran - 1);

	if (im->m.ps == 16)
		return (low & 0x0000ffffffff0000ull) | ((oa >> 48) & 0xf) << 12;
	if (im->lpa2)
		return (low & 0x0003ffffffffffffull) | ((oa >> 50) & 3) << 8;
	return (low & 0x0000ffffffffffffull) | D_SH;
}

static uint64_t decode_oa(const struct image *im, uint64_t d)
{
	uint64_t oa = d & ~(uint64_t)(im->gran - 1);

	if (im->m.ps == 16)
		return (oa & 0x0000ffffffff0000ull) | ((d >> 12) & 0xf) << 48;
	if (im->lpa2)
		return (oa & 0x0003ffffffffffffull) | ((d >> 8) & 3) << 50;
	return oa & 0x0000ffffffffffffull;
}

static unsigned shift_of(const struct image *im, unsigned level)
{
	/* level 0 is the root, levels - 1 the last */
	return im->m.ps + im->stride * (im->levels - 1 - level);
}

static uint64_t index_of(const struct image *im, uint64_t va, unsigned level)
{
	unsigned bits = level ? im->stride : im->top_bits;

	return (va >> shift_of(im, level)) & ((1ull << bits) - 1);
}

/*
 * Map va to pa with a leaf of size 1 << leaf_shift (a page or a block),
 * extra bits in it; tables are made on the way. The slot of each level's
 * entry in slot[] (for tests to break).
 */
static void map(struct image *im, uint64_t va, uint64_t pa,
		unsigned leaf_shift, uint64_t extra, uint64_t slot[5])
{
	uint64_t table = im->root;

	for (unsigned level = 0;; level++) {
		uint64_t at = table + index_of(im, va, level) * 8;
		uint64_t e = get_u64(im, at);

		if (slot)
			slot[level] = at;
		if (shift_of(im, level) == leaf_shift) {
			put_u64(im, at, encode(im, pa) | D_AF | D_UXN | D_PXN |
						extra | D_VALID |
						(leaf_shift == im->m.ps
							 ? D_TABLE : 0));
			return;
		}
		if (!(e & D_VALID)) {
			uint64_t next = im->next_table;

			im->next_table += im->gran;
			page_at(im, next);
			e = (encode(im, next) & ~(im->lpa2 ? 0 : D_SH)) |
			    D_VALID | D_TABLE;
			put_u64(im, at, e);
		}
		table = decode_oa(im, e);
	}
}

static void fill(struct image *im, uint64_t pa, uint8_t seed)
{
	uint8_t *p = page_at(im, pa);

	for (size_t i = 0; i < im->gran; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

static char *vmcoreinfo(const struct image *im)
{
	char *s;

	if (asprintf(&s,
		     "OSRELEASE=6.12.0\nPAGESIZE=%zu\nNUMBER(VA_BITS)=%u\n"
		     "NUMBER(TCR_EL1_T1SZ)=0x%x\n"
		     "SYMBOL(swapper_pg_dir)=%" PRIx64 "\n"
		     "NUMBER(kimage_voffset)=0x%" PRIx64 "\n"
		     "NUMBER(PHYS_OFFSET)=0x40000000\nKERNELOFFSET=0\n",
		     im->gran, im->m.cfg, 64 - im->m.va, KIMAGE_VA,
		     KIMAGE_VA - im->root) < 0)
		abort();
	return s;
}

static struct idd_target *open_image(struct image *im)
{
	struct idd_target *t = NULL;
	char *info = vmcoreinfo(im);
	struct inodedump_error *err =
		idd_target_open_physical(im->regions, im->n, "aarch64", info, &t);

	free(info);
	if (err) {
		printf("FAIL open: %s\n", inodedump_error_message(err));
		exit(1);
	}
	return t;
}

/* ---- libaddrxlat's AArch64 method over the same image ---- */
static int xlat_checked, xlat_agreed;

#ifdef IDD_HAVE_ADDRXLAT
static void put_page(const addrxlat_buffer_t *buf)
{
	(void)buf; /* the image's pages live as long as the image */
}

static addrxlat_status get_page(const addrxlat_cb_t *cb,
				addrxlat_buffer_t *buf)
{
	struct image *im = cb->priv;
	uint64_t pa = buf->addr.addr & ~(uint64_t)(im->gran - 1);

	for (size_t i = 0; i < im->n; i++)
		if (im->regions[i].start == pa) {
			buf->addr.addr = pa;
			buf->ptr = im->pages[i];
			buf->size = im->gran;
			buf->byte_order = ADDRXLAT_LITTLE_ENDIAN;
			buf->put_page = put_page;
			return ADDRXLAT_OK;
		}
	return ADDRXLAT_ERR_NODATA;
}

static unsigned long read_caps(const addrxlat_cb_t *cb)
{
	(void)cb;
	return ADDRXLAT_CAPS(ADDRXLAT_MACHPHYSADDR);
}

/* What libaddrxlat makes of va: true and *pa, or false (not mapped). */
static bool xlat(struct image *im, uint64_t va, uint64_t *pa)
{
	addrxlat_ctx_t *ctx = addrxlat_ctx_new();
	addrxlat_cb_t *cb = ctx ? addrxlat_ctx_add_cb(ctx) : NULL;
	addrxlat_meth_t meth = { .kind = ADDRXLAT_PGT,
				 .target_as = ADDRXLAT_MACHPHYSADDR };
	addrxlat_step_t step = { 0 };
	addrxlat_status st;

	if (!cb)
		abort();
	cb->priv = im;
	cb->get_page = get_page;
	cb->read_caps = read_caps;
	meth.param.pgt.root.addr = im->root;
	meth.param.pgt.root.as = ADDRXLAT_MACHPHYSADDR;
	meth.param.pgt.pf.pte_format =
		im->m.ps == 16 && im->m.cfg == 52 ? ADDRXLAT_PTE_AARCH64_LPA
		: im->lpa2			  ? ADDRXLAT_PTE_AARCH64_LPA2
						  : ADDRXLAT_PTE_AARCH64;
	meth.param.pgt.pf.nfields = (unsigned short)(im->levels + 1);
	meth.param.pgt.pf.fieldsz[0] = (unsigned short)im->m.ps;
	for (unsigned i = 1; i < im->levels; i++)
		meth.param.pgt.pf.fieldsz[i] = (unsigned short)im->stride;
	meth.param.pgt.pf.fieldsz[im->levels] = (unsigned short)im->top_bits;
	step.ctx = ctx;
	step.sys = NULL;
	step.meth = &meth;
	st = addrxlat_launch(&step, va);
	while (st == ADDRXLAT_OK && step.remain)
		st = addrxlat_step(&step);
	*pa = step.base.addr;
	if (st != ADDRXLAT_OK && getenv("XLAT_DEBUG"))
		printf("  libaddrxlat: %s\n", addrxlat_ctx_get_err(ctx));
	addrxlat_ctx_decref(ctx);
	return st == ADDRXLAT_OK;
}
#endif

/* Ours against libaddrxlat's on one address (want: mapped or not). */
static void agree(struct image *im, struct idd_target *t, uint64_t va,
		  const char *what)
{
#ifdef IDD_HAVE_ADDRXLAT
	uint64_t ours = 0, theirs = 0;
	bool a = idd_target_walk(t, va, &ours), b = xlat(im, va, &theirs);

	xlat_checked++;
	if (a == b && (!a || ours == theirs))
		xlat_agreed++;
	else
		printf("  libaddrxlat differs: %uK/%u/%u %s va 0x%" PRIx64
		       ": ours %s 0x%" PRIx64 ", libaddrxlat %s 0x%" PRIx64 "\n",
		       1u << (im->m.ps - 10), im->m.cfg, im->m.va, what, va,
		       a ? "maps" : "no", ours, b ? "maps" : "no", theirs);
#else
	(void)im, (void)t, (void)va, (void)what;
#endif
}

static bool walks_to(struct idd_target *t, uint64_t va, uint64_t want)
{
	uint64_t pa = 0;

	return idd_target_walk(t, va, &pa) && pa == want;
}

static bool reads_as(struct image *im, struct idd_target *t, uint64_t va,
		     uint64_t pa)
{
	uint8_t got[64];
	struct inodedump_error *err = idd_target_read(t, va, got, sizeof(got));
	bool ok = !err && !memcmp(got, page_at(im, pa) + pa % im->gran,
				  sizeof(got));

	inodedump_error_free(err);
	return ok;
}

/* A read fails as a fault whose message holds what (NULL: any). */
static bool read_fails(struct idd_target *t, uint64_t va, const char *what)
{
	uint8_t got[8];
	struct inodedump_error *err = idd_target_read(t, va, got, sizeof(got));
	bool ok = err && inodedump_error_code(err) == INODEDUMP_ERR_FAULT &&
		  (!what || strstr(inodedump_error_message(err), what));

	if (!ok && err)
		printf("  (message: %s)\n", inodedump_error_message(err));
	inodedump_error_free(err);
	return ok;
}

/* The largest shift a block may have in the mode (Arm ARM D8.2). */
static unsigned block_max(const struct image *im)
{
	switch (im->m.ps) {
	case 12: return im->lpa2 ? 39 : 30;
	case 14: return im->lpa2 ? 36 : 25;
	default: return im->m.cfg == 52 ? 42 : 29;
	}
}

static int mode_checks;

static void test_mode(struct mode m)
{
	static struct image im;
	uint64_t base = ~0ull << m.va; /* the bottom of the kernel's half */
	uint64_t slot[5], va_page, pa_page;
	unsigned ncont, top_shift;
	struct idd_target *t;
	char what[96];
	int before = passed + failed;

	image_init(&im, m);
	top_shift = shift_of(&im, 0);
	/* A page. */
	va_page = base + 0x4321ull * im.gran;
	pa_page = 0x41000000ull + 7 * im.gran;
	map(&im, va_page, pa_page, m.ps, 0, slot);
	fill(&im, pa_page, 1);
	/* A block at each level one may be. */
	for (unsigned s = m.ps + im.stride, k = 0; s <= block_max(&im) &&
						 s <= top_shift; s += im.stride, k++) {
		uint64_t va = base + ((uint64_t)(k + 3) << (m.va - 4));
		uint64_t pb = (uint64_t)(k + 1) << s;

		map(&im, va, pb, s, 0, NULL);
		fill(&im, pb + 5 * im.gran, (uint8_t)(10 + k));
	}
	/* A physical address above 48 bits, and a table there. */
	if (m.ps == 16 ? m.cfg == 52 : im.lpa2) {
		uint64_t high = m.ps == 16 ? 0x000f000000000000ull
					   : 0x000c000000000000ull;

		im.next_table = high + 0x100 * im.gran;
		map(&im, base + 0x9876ull * im.gran + (1ull << (m.va - 3)),
		    high | 0x123ull << m.ps, m.ps, 0, NULL);
		fill(&im, high | 0x123ull << m.ps, 99);
		im.next_table = 0x48000000;
	}
	/* A contiguous run: 16 pages (4K), 128 (16K), 32 (64K). */
	ncont = m.ps == 12 ? 16 : m.ps == 14 ? 128 : 32;
	for (unsigned i = 0; i < ncont; i++)
		map(&im, base + (0x200ull << m.ps) * 16 + (uint64_t)i * im.gran,
		    0x42000000ull + (uint64_t)i * im.gran, m.ps, D_CONT, NULL);
	fill(&im, 0x42000000ull + 3 * im.gran, 50);

	t = open_image(&im);
	snprintf(what, sizeof(what), "%uK VA_BITS %u running %u", 1u << (m.ps - 10),
		 m.cfg, m.va);
	printf("%s: %s\n", what, idd_target_translation(t));
	CHECKF(!strncmp(idd_target_translation(t), "inodedump (aarch64", 18),
	       "%s: translation %s", what, idd_target_translation(t));
	CHECKF(walks_to(t, va_page + 0x18, pa_page + 0x18) &&
		       reads_as(&im, t, va_page + 0x18, pa_page + 0x18),
	       "%s: page", what);
	agree(&im, t, va_page + 0x18, "page");
	/* The tag (top byte) of a pointer is not an address bit. */
	CHECKF(walks_to(t, (va_page & ~(0xffull << 56)) | 0xf3ull << 56,
			pa_page), "%s: tagged pointer", what);
	for (unsigned s = m.ps + im.stride, k = 0; s <= block_max(&im) &&
						 s <= top_shift; s += im.stride, k++) {
		uint64_t va = base + ((uint64_t)(k + 3) << (m.va - 4));
		uint64_t pb = (uint64_t)(k + 1) << s;

		CHECKF(walks_to(t, va + 5 * im.gran + 0x40, pb + 5 * im.gran + 0x40) &&
			       reads_as(&im, t, va + 5 * im.gran + 0x40,
					pb + 5 * im.gran + 0x40),
		       "%s: block of 2^%u", what, s);
		agree(&im, t, va + 5 * im.gran + 0x40, "block");
	}
	if (m.ps == 16 ? m.cfg == 52 : im.lpa2) {
		uint64_t high = m.ps == 16 ? 0x000f000000000000ull
					   : 0x000c000000000000ull;
		uint64_t va = base + 0x9876ull * im.gran + (1ull << (m.va - 3));

		CHECKF(walks_to(t, va + 8, (high | 0x123ull << m.ps) + 8) &&
			       reads_as(&im, t, va + 8, (high | 0x123ull << m.ps) + 8),
		       "%s: 52-bit physical address", what);
		agree(&im, t, va + 8, "52-bit PA");
	}
	for (unsigned i = 0; i < ncont; i += ncont / 4) {
		uint64_t va = base + (0x200ull << m.ps) * 16 + (uint64_t)i * im.gran;

		CHECKF(walks_to(t, va + 0x10, 0x42000000ull + (uint64_t)i * im.gran + 0x10),
		       "%s: contiguous entry %u", what, i);
		agree(&im, t, va + 0x10, "contiguous");
	}
	CHECKF(reads_as(&im, t, base + (0x200ull << m.ps) * 16 + 3 * im.gran,
			0x42000000ull + 3 * im.gran), "%s: contiguous bytes", what);
	/* Outside the kernel's half: bit va of the address clear. */
	{
		uint64_t out = va_page & ~(1ull << (m.va < 56 ? m.va : 55));

		if (m.va < 55)
			CHECKF(!walks_to(t, out, pa_page) && read_fails(t, out, NULL),
			       "%s: address outside the kernel's half", what);
	}
	/* An unmapped neighbour: a fault, not a broken table. */
	CHECKF(read_fails(t, va_page + 2 * im.gran, "not mapped"),
	       "%s: unmapped page", what);
	agree(&im, t, va_page + 2 * im.gran, "unmapped");
	idd_target_close(t);

	/* An invalid entry at each level of the page's path. */
	for (unsigned level = 0; level < im.levels; level++) {
		uint64_t keep = get_u64(&im, slot[level]);

		put_u64(&im, slot[level], keep & ~D_VALID);
		t = open_image(&im);
		CHECKF(!walks_to(t, va_page, pa_page) &&
			       read_fails(t, va_page, "not mapped"),
		       "%s: invalid entry at level %u still maps", what, level);
		agree(&im, t, va_page, "invalid entry");
		idd_target_close(t);
		put_u64(&im, slot[level], keep);
	}
	/* The last level's 0b01 is reserved: not a page. */
	{
		uint64_t keep = get_u64(&im, slot[im.levels - 1]);

		put_u64(&im, slot[im.levels - 1], keep & ~D_TABLE);
		t = open_image(&im);
		CHECKF(!walks_to(t, va_page, pa_page),
		       "%s: reserved last-level descriptor taken", what);
		agree(&im, t, va_page, "reserved last level");
		idd_target_close(t);
		put_u64(&im, slot[im.levels - 1], keep);
	}
	/* A block in the root where none may be. */
	if (top_shift > block_max(&im)) {
		uint64_t keep = get_u64(&im, slot[0]);

		put_u64(&im, slot[0], encode(&im, 0) | D_AF | D_VALID);
		t = open_image(&im);
		CHECKF(!walks_to(t, va_page, va_page & ((1ull << top_shift) - 1)),
		       "%s: a block in the root taken", what);
		idd_target_close(t);
		put_u64(&im, slot[0], keep);
	}
	/* A loop: the last table's parent entry points at the root. */
	{
		uint64_t keep = get_u64(&im, slot[im.levels - 2]);

		put_u64(&im, slot[im.levels - 2],
			encode(&im, im.root) | D_VALID | D_TABLE);
		t = open_image(&im);
		CHECKF(read_fails(t, va_page, "loop"), "%s: table loop", what);
		idd_target_close(t);
		/* A table outside memory. */
		put_u64(&im, slot[im.levels - 2],
			encode(&im, 0x7f000000ull) | D_VALID | D_TABLE);
		t = open_image(&im);
		CHECKF(read_fails(t, va_page, "not in the dump"),
		       "%s: table outside memory", what);
		idd_target_close(t);
		put_u64(&im, slot[im.levels - 2], keep);
	}
	mode_checks = passed + failed - before;
	printf("  %d checks in this mode\n", mode_checks);
	image_free(&im);
}

/*
 * 5.10 writes no VMEMMAP_START: the memory map worked out as 5.4-5.10
 * define it, on the VMCOREINFO of Debian's arm64 5.10.223 (the arm64-510
 * set): frame 0's struct page where drgn 0.0.22 (pfn_to_page(0), with
 * the -dbg vmlinux) has it, and said to be worked out; without
 * SIZE(page), none; 5.11 (not that era's layout), none.
 */
static void test_kernel_map_510(void)
{
	static const char *const infos[] = {
		"OSRELEASE=5.10.0-32-arm64\nPAGESIZE=4096\nSIZE(page)=64\n"
		"NUMBER(VA_BITS)=48\nNUMBER(PHYS_OFFSET)=0xffffa55400000000\n"
		"NUMBER(kimage_voffset)=0xffffab6d45400000\n",
		"OSRELEASE=5.10.0-32-arm64\nPAGESIZE=4096\n"
		"NUMBER(VA_BITS)=48\nNUMBER(PHYS_OFFSET)=0xffffa55400000000\n",
		"OSRELEASE=5.11.0\nPAGESIZE=4096\nSIZE(page)=64\n"
		"NUMBER(VA_BITS)=48\nNUMBER(PHYS_OFFSET)=0xffffa55400000000\n",
	};
	struct idd_target_kernel_map km;
	struct idd_target *t = NULL;
	uint8_t byte = 0;
	struct idd_memory_region r = { 0x40000000, &byte, 1 };

	for (size_t i = 0; i < 3; i++) {
		if (idd_target_open_physical(&r, 1, "aarch64", infos[i], &t))
			abort();
		idd_target_kernel_map(t, &km);
		if (i == 0) {
			CHECKF(km.vmemmap_start - km.first_pfn * 64 ==
				       0xffffff6aafe00000ull,
			       "5.10 vmemmap 0x%" PRIx64,
			       km.vmemmap_start - km.first_pfn * 64);
			CHECKF(km.vmemmap_derived != NULL,
			       "5.10's memory map not said to be worked out");
		} else {
			CHECKF(!km.vmemmap_start && !km.vmemmap_derived,
			       "memory map 0x%" PRIx64 " worked out for %s",
			       km.vmemmap_start, i == 1 ? "5.10 without SIZE(page)"
							: "5.11");
		}
		idd_target_close(t);
	}
}

/*
 * Where the linear map and the memory map are, from VMCOREINFO alone: the
 * values of Debian's 6.12 arm64 kernel (VA_BITS=52) on a cortex-a57 (48
 * bits: PHYS_OFFSET lowered below zero), its inode at 0xffff692503ca5e30
 * in physical 0x43ca5e30 (drgn: virt_to_phys), with and without
 * SYMBOL(vmemmap); and before 5.4, the linear map in the upper half.
 */
static void test_kernel_map(void)
{
	static const char common[] =
		"OSRELEASE=6.12.0\nPAGESIZE=4096\nNUMBER(VA_BITS)=52\n"
		"NUMBER(TCR_EL1_T1SZ)=0x10\n"
		"NUMBER(VMEMMAP_START)=0xffffc1ffc0000000\n"
		"NUMBER(PHYS_OFFSET)=0xfff096db40000000\n"
		"NUMBER(kimage_voffset)=0xffffb03843800000\n";
	char *with_symbol;
	struct idd_target_kernel_map km;
	struct idd_target *t = NULL;
	uint8_t byte = 0;
	struct idd_memory_region r = { 0x40000000, &byte, 1 };

	if (asprintf(&with_symbol, "%sSYMBOL(vmemmap)=ffffffa453000000\n",
		     common) < 0)
		abort();
	for (int sym = 0; sym < 2; sym++) {
		if (idd_target_open_physical(&r, 1, "aarch64",
					     sym ? with_symbol : common, &t))
			abort();
		idd_target_kernel_map(t, &km);
		CHECKF(km.direct_pa0 + 0x43ca5e30 == 0xffff692503ca5e30ull,
		       "linear map of 0x43ca5e30: 0x%" PRIx64 " (symbol %d)",
		       km.direct_pa0 + 0x43ca5e30, sym);
		CHECKF(km.vmemmap_start - km.first_pfn * 64 ==
			       0xffffffa453000000ull,
		       "vmemmap 0x%" PRIx64 " (symbol %d)",
		       km.vmemmap_start - km.first_pfn * 64, sym);
		idd_target_close(t);
	}
	free(with_symbol);
	/* 4.19, VA_BITS=48: PAGE_OFFSET 0xffff800000000000. */
	if (idd_target_open_physical(&r, 1, "aarch64",
				     "OSRELEASE=4.19.0\nPAGESIZE=4096\n"
				     "NUMBER(VA_BITS)=48\n"
				     "NUMBER(PHYS_OFFSET)=0x40000000\n", &t))
		abort();
	idd_target_kernel_map(t, &km);
	CHECKF(km.direct_pa0 + 0x40000000 == 0xffff800000000000ull,
	       "4.19 linear map: 0x%" PRIx64, km.direct_pa0 + 0x40000000);
	idd_target_close(t);
	test_kernel_map_510();
}

int main(void)
{
	test_kernel_map();
	static const struct mode modes[] = {
		{ 12, 39, 39 }, { 12, 48, 48 }, { 12, 52, 52 }, { 12, 52, 48 },
		{ 14, 36, 36 }, { 14, 47, 47 }, { 14, 48, 48 }, { 14, 52, 52 },
		{ 14, 52, 47 },
		{ 16, 42, 42 }, { 16, 48, 48 }, { 16, 52, 52 }, { 16, 52, 48 },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		test_mode(modes[i]);
#ifdef IDD_HAVE_ADDRXLAT
	printf("libaddrxlat %s agreed on %d of %d translations\n",
	       "0.5.1", xlat_agreed, xlat_checked);
	CHECKF(xlat_checked > 0 && xlat_agreed == xlat_checked,
	       "libaddrxlat agreed on %d of %d", xlat_agreed, xlat_checked);
#else
	printf("libaddrxlat not built in: no cross-check\n");
#endif
	return check_summary("test_target_walk_aarch64");
}
