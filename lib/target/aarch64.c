// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aarch64 page-table walk of the kernel's half (TTBR1): granules of
 * 4, 16 and 64 KiB, VA sizes 36 to 52 bits (52 with FEAT_LPA2 at 4K/16K,
 * output bits [51:50] in descriptor bits [9:8], five levels at 4K; with
 * FEAT_LPA at 64K, bits [51:48] in descriptor bits [15:12]), block and
 * contiguous descriptors, the top byte of a pointer (its tag) ignored.
 * The VA size the MMU ran with is VMCOREINFO's TCR_EL1_T1SZ (a VA_BITS=52
 * kernel runs with 48 bits on a CPU without LPA2); the root is
 * swapper_pg_dir's physical address (its address less kimage_voffset),
 * so a dump of physical memory alone (QEMU's ELF) is walked too. The
 * constants are the architecture's (Arm ARM D8, "VMSAv8-64 translation")
 * and the kernel's memory map (arch/arm64/include/asm/memory.h).
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "target/arch.h"
#include "target/vmcoreinfo.h"

#define DESC_VALID 0x1ULL
#define DESC_TABLE 0x2ULL /* with VALID: a table, or a page at the last level */

static unsigned levels_for(unsigned page_shift, unsigned va_bits)
{
	unsigned stride = page_shift - 3;

	return (va_bits - page_shift + stride - 1) / stride;
}

bool idd_aarch64_walk_setup(struct idd_aarch64_walk *w, unsigned page_shift,
			    unsigned va_bits_config, unsigned va_bits,
			    uint64_t root)
{
	unsigned stride = page_shift - 3, levels, top_shift, index_va;

	memset(w, 0, sizeof(*w));
	if ((page_shift != 12 && page_shift != 14 && page_shift != 16) ||
	    va_bits < page_shift + stride + 1 || va_bits > 52 ||
	    va_bits_config < va_bits || va_bits_config > 52)
		return false;
	levels = levels_for(page_shift, va_bits);
	if (levels < 2 || levels > 5 || (levels == 5 && page_shift != 12))
		return false;
	/*
	 * A VA_BITS=52 kernel at 64K on a CPU without LVA keeps its 1024-
	 * entry root and points TTBR1 into it (TTBR1_BADDR_4852_OFFSET):
	 * with as many levels either way, the root is indexed with the
	 * built VA size. Where the sizes differ in levels (LPA2 at 4K and
	 * 16K), the kernel folds the top level at run time and the root is
	 * indexed with the running size.
	 */
	index_va = levels_for(page_shift, va_bits_config) == levels
			   ? va_bits_config : va_bits;
	top_shift = page_shift + stride * (levels - 1);
	w->page_shift = (uint8_t)page_shift;
	w->levels = (uint8_t)levels;
	w->va_bits = (uint8_t)va_bits;
	w->va_bits_config = va_bits_config;
	w->top_bits = (uint8_t)(index_va - top_shift);
	w->root = root;
	/* 4K/16K with a 52-bit VA: LPA2 (the kernel requires PA = VA size). */
	w->lpa2 = page_shift != 16 && va_bits == 52;
	w->oa_mask = (w->lpa2 ? 0x0003ffffffffffffULL : 0x0000ffffffffffffULL) &
		     ~((1ULL << page_shift) - 1);
	/* Where a block may be: level 2 up to level 1 (level 0 with LPA2). */
	w->block_min = (uint8_t)(page_shift + stride);
	switch (page_shift) {
	case 12: w->block_max = w->lpa2 ? 39 : 30; break;
	case 14: w->block_max = w->lpa2 ? 36 : 25; break;
	default: w->block_max = va_bits_config == 52 ? 42 : 29; break;
	}
	snprintf(w->describe, sizeof(w->describe),
		 "inodedump (aarch64, %u KiB pages, %u-bit VA%s, %u-level "
		 "page tables)", 1u << (page_shift - 10), va_bits,
		 w->lpa2 ? " with LPA2" : page_shift == 16 && va_bits == 52
						 ? " with LVA" : "",
		 levels);
	return true;
}

/* The output address of a descriptor (a table's, a block's, a page's). */
static uint64_t output_address(const struct idd_aarch64_walk *w, uint64_t d)
{
	uint64_t oa = d & w->oa_mask;

	if (w->page_shift == 16) /* FEAT_LPA: OA[51:48], else RES0 */
		oa |= ((d >> 12) & 0xf) << 48;
	else if (w->lpa2) /* FEAT_LPA2: OA[51:50] */
		oa |= ((d >> 8) & 0x3) << 50;
	return oa;
}

static bool walk_init(union idd_arch_walk *aw,
		      const struct idd_walk_env *env)
{
	struct idd_aarch64_walk *w = &aw->aarch64;
	uint64_t page, va_bits, t1sz, pgd, voffset;
	unsigned shift = 0, running;

	memset(w, 0, sizeof(*w));
	if (!idd_vmcoreinfo_number(env->info, "PAGESIZE", 10, &page) ||
	    !idd_vmcoreinfo_number(env->info, "NUMBER(VA_BITS)", 10, &va_bits) ||
	    !idd_vmcoreinfo_number(env->info, "SYMBOL(swapper_pg_dir)", 16,
				  &pgd) ||
	    !idd_vmcoreinfo_number(env->info, "NUMBER(kimage_voffset)", 16,
				  &voffset))
		return false;
	while (shift < 20 && (1ULL << shift) != page)
		shift++;
	running = (unsigned)va_bits;
	/* The VA size the MMU runs with (5.9+, "0x10"); before, VA_BITS. */
	if (idd_vmcoreinfo_number(env->info, "NUMBER(TCR_EL1_T1SZ)", 16, &t1sz)) {
		if (t1sz < 12 || t1sz > 40)
			return false;
		running = 64 - (unsigned)t1sz;
	}
	/* __pa_symbol(swapper_pg_dir): the image is at kimage_voffset. */
	return va_bits <= 52 &&
	       idd_aarch64_walk_setup(w, shift, (unsigned)va_bits, running,
				      pgd - voffset);
}

static bool root(const union idd_arch_walk *w, const struct idd_walk_env *env,
		 uint64_t *va, uint64_t *pa)
{
	if (!idd_vmcoreinfo_number(env->info, "SYMBOL(swapper_pg_dir)", 16,
				   va))
		return false;
	*pa = w->aarch64.root;
	return true;
}

static bool leaf(struct idd_aarch64_walk *w, uint64_t va, uint64_t d,
		 unsigned shift, uint64_t *pa, uint64_t *left)
{
	/* The contiguous bit (52) is a hint: every entry maps its own part. */
	return idd_walk_tlb_leaf(&w->tlb, va, output_address(w, d),
				 1ULL << shift, true, pa, left);
}

static bool translate(union idd_arch_walk *aw, const struct idd_walk_env *env,
		      uint64_t va, uint64_t *pa, uint64_t *left)
{
	struct idd_aarch64_walk *w = &aw->aarch64;
	unsigned stride = w->page_shift - 3u;
	unsigned shift = w->page_shift + stride * (w->levels - 1u);
	uint64_t table = w->root, entries = 1ULL << w->top_bits;
	uint64_t seen[5];

	w->broken[0] = '\0';
	/* The tag: bits 63:56 copy bit 55 in the kernel's half (TBI1). */
	if (va >> 55 & 1)
		va |= 0xff00000000000000ULL;
	if (idd_walk_tlb_lookup(&w->tlb, va, pa, left))
		return true;
	/* TTBR1 maps only addresses whose bits above the VA size are set. */
	if ((va | ((1ULL << w->va_bits) - 1)) != UINT64_MAX)
		return false;
	for (unsigned level = 0;; level++) {
		uint8_t raw[8];
		uint64_t d;

		seen[level] = table;
		if (!env->read_phys(env->arg,
				    table + ((va >> shift) & (entries - 1)) * 8,
				    raw, 8)) {
			snprintf(w->broken, sizeof(w->broken),
				 "the level %d page table at physical 0x%llx "
				 "is not in the dump",
				 (int)level + 4 - (int)w->levels,
				 (unsigned long long)table);
			return false;
		}
		d = idd_load_le(raw, 8);
		if (!(d & DESC_VALID))
			return false;
		if (shift == w->page_shift) /* a page, or reserved */
			return (d & DESC_TABLE) && leaf(w, va, d, shift, pa, left);
		if (!(d & DESC_TABLE)) /* a block where one may be */
			return shift >= w->block_min && shift <= w->block_max &&
			       leaf(w, va, d, shift, pa, left);
		table = output_address(w, d);
		for (unsigned i = 0; i <= level; i++)
			if (seen[i] == table) {
				snprintf(w->broken, sizeof(w->broken),
					 "the page tables loop: a level %d "
					 "entry points back at the table at "
					 "physical 0x%llx",
					 (int)level + 4 - (int)w->levels,
					 (unsigned long long)table);
				return false;
			}
		shift -= stride;
		entries = 1ULL << stride;
	}
}

static const char *describe(const union idd_arch_walk *w)
{
	return w->aarch64.describe;
}

static const char *broken(const union idd_arch_walk *w)
{
	return w->aarch64.broken[0] ? w->aarch64.broken : NULL;
}

/* Keys only arm64's VMCOREINFO has (arch/arm64/kernel/vmcore_info.c). */
static bool owns_vmcoreinfo(const struct idd_vmcoreinfo *info)
{
	return idd_vmcoreinfo_get(info, "NUMBER(kimage_voffset)") ||
	       idd_vmcoreinfo_get(info, "NUMBER(TCR_EL1_T1SZ)");
}

/* OSRELEASE's major and minor, as one number (5.4: 504); 0 unknown. */
static unsigned release_of(const struct idd_vmcoreinfo *info)
{
	const char *v = idd_vmcoreinfo_get(info, "OSRELEASE");
	char *end;
	unsigned long major, minor;

	if (!v)
		return 0;
	major = strtoul(v, &end, 10);
	if (*end != '.')
		return 0;
	minor = strtoul(end + 1, &end, 10);
	return major < 100 && minor < 100 ? (unsigned)(major * 100 + minor) : 0;
}

/*
 * VMEMMAP_START of 5.4 to 5.10 (the "flipped" layout, before VMCOREINFO
 * had NUMBER(VMEMMAP_START)), from arch/arm64/include/asm/memory.h of
 * that era: the memory map sits 2 MiB below the top, sized to cover the
 * linear map, (_PAGE_END(VA_BITS_MIN) - PAGE_OFFSET) >> (PAGE_SHIFT -
 * STRUCT_PAGE_MAX_SHIFT), STRUCT_PAGE_MAX_SHIFT being order_base_2 of
 * sizeof(struct page) (VMCOREINFO's SIZE(page), the kernel's own type).
 * False for other releases, or without SIZE(page).
 */
static bool vmemmap_start_510(const struct idd_vmcoreinfo *info,
			      unsigned release, uint64_t va_bits,
			      unsigned page_shift, uint64_t *start)
{
	uint64_t sz, va_min = va_bits > 48 ? 48 : va_bits, span;
	unsigned order = 0;

	if (release < 504 || release > 510 ||
	    !idd_vmcoreinfo_number(info, "SIZE(page)", 10, &sz) || !sz ||
	    sz > 4096)
		return false;
	while ((1ULL << order) < sz)
		order++;
	if (order > page_shift)
		return false;
	span = (-(1ULL << (va_min - 1))) - (-(1ULL << va_bits));
	*start = -(span >> (page_shift - order)) - (2ULL << 20);
	return true;
}

/*
 * The linear map: PAGE_OFFSET is the bottom of the kernel's half (-(1 <<
 * VA_BITS)) since 5.4 ("flipped" layout), its middle (-(1 << (VA_BITS -
 * 1))) before; physical PHYS_OFFSET is at PAGE_OFFSET (a VA_BITS=52
 * kernel running with 48 bits lowers PHYS_OFFSET so that memory starts
 * at the 48-bit half). The memory map: VMCOREINFO's SYMBOL(vmemmap), the
 * struct page of frame 0, where it is written; else VMEMMAP_START less
 * PHYS_OFFSET's frames (memstart_addr is signed: its shift keeps the sign
 * of a lowered PHYS_OFFSET). 5.4 to 5.10 write no VMEMMAP_START: it is
 * worked out as those kernels define it (vmemmap_start_510), and said so.
 */
static void kernel_map(const struct idd_vmcoreinfo *info,
		       struct idd_target_kernel_map *out)
{
	uint64_t va_bits, phys_offset, page, start;
	unsigned release = release_of(info), shift = 0;

	if (!idd_vmcoreinfo_number(info, "NUMBER(VA_BITS)", 10, &va_bits) ||
	    !idd_vmcoreinfo_number(info, "NUMBER(PHYS_OFFSET)", 16,
				  &phys_offset) ||
	    !release || va_bits < 36 || va_bits > 52)
		return;
	out->direct_pa0 = (release >= 504 ? -(1ULL << va_bits)
					  : -(1ULL << (va_bits - 1))) -
			  phys_offset;
	/* FLATMEM (before arm64 made SPARSEMEM_VMEMMAP its only model):
	 * ARCH_PFN_OFFSET is PHYS_PFN_OFFSET, asm/memory.h */
	if (idd_vmcoreinfo_number(info, "PAGESIZE", 10, &page) && page &&
	    !(page & (page - 1))) {
		out->flat_pfn_offset = phys_offset / page;
		out->flat_pfn_offset_known = true;
	}
	if (idd_vmcoreinfo_number(info, "SYMBOL(vmemmap)", 16, &start) &&
	    start) {
		out->vmemmap_start = start;
		out->first_pfn = 0;
		return;
	}
	if (!idd_vmcoreinfo_number(info, "PAGESIZE", 10, &page))
		return;
	while (shift < 20 && (1ULL << shift) != page)
		shift++;
	if (shift == 20)
		return;
	if (!idd_vmcoreinfo_number(info, "NUMBER(VMEMMAP_START)", 16, &start)) {
		if (!vmemmap_start_510(info, release, va_bits, shift, &start))
			return;
		out->vmemmap_derived =
			"VMCOREINFO has no VMEMMAP_START: worked out as 5.4 to "
			"5.10 define it on arm64, from NUMBER(VA_BITS), "
			"SIZE(page) and PHYS_OFFSET (memstart_addr)";
	}
	out->vmemmap_start = start;
	out->first_pfn = (uint64_t)((int64_t)phys_offset >> shift);
}

static const char *const aliases[] = { "arm64", NULL };

const struct idd_arch_ops idd_aarch64_arch = {
	.name = "aarch64",
	.aliases = aliases,
	.elf_machine = EM_AARCH64,
	.page_sizes = (1u << 12) | (1u << 14) | (1u << 16),
	.owns_vmcoreinfo = owns_vmcoreinfo,
	.kernel_map = kernel_map,
	.walk_keys = "PAGESIZE, NUMBER(VA_BITS), SYMBOL(swapper_pg_dir), "
		     "NUMBER(kimage_voffset), NUMBER(TCR_EL1_T1SZ)",
	.walk_init = walk_init,
	.root = root,
	.translate = translate,
	.describe = describe,
	.broken = broken,
};
