// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ppc64 (Book3S-64) walk of the kernel's quadrant (0xc...): the radix
 * tree (POWER9 and later, the default under pseries and PowerNV) of a
 * little-endian kernel, and under the hash MMU the linear map alone.
 *
 * Radix (Power ISA 3.0 Book III, 6.7.10 "Radix Tree Translation"): the
 * kernel's tree is swapper_pg_dir, indexed by the effective address's
 * low 52 bits (RTS 52) with 2^13 root entries; each entry is big-endian
 * whatever the kernel's byte order. Bit 63 valid, bit 62 leaf; a
 * directory entry's next table is at bits 8..59 (NLB) and has 2^NLS
 * entries (bits 0..4); a leaf's real page is at bits 12..56 (RPN), and a
 * leaf above the last level maps the whole range of its entry (1 GiB at
 * the PUD, 2 MiB at the PMD with 64 KiB pages). Linux: 64 KiB pages
 * 13/9/9/5 index bits, 4 KiB pages 13/9/9/9.
 *
 * Hash: the kernel's linear map is bolted in the hashed page table, not in
 * swapper_pg_dir; slab objects (inodes) are in the linear map, whose
 * physical address is the address less PAGE_OFFSET (0xc000000000000000)
 * on both MMUs. Anything else under hash is said to be unknown.
 *
 * Which MMU: VMCOREINFO's NUMBER(RADIX_MMU) (6.3+, with the cpu_spec
 * offsets); an older kernel's is radix when swapper_pg_dir's entry for
 * the linear map's start is a directory of 2^9 entries, as radix_init_pgtable
 * writes it (under hash that entry is empty: the linear map is not there).
 * No KASLR on Book3S-64 (KERNELOFFSET=0): the image is at PAGE_OFFSET.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "target/arch.h"
#include "target/vmcoreinfo.h"

#define PAGE_OFFSET 0xc000000000000000ULL
#define E_VALID 0x8000000000000000ULL
#define E_LEAF 0x4000000000000000ULL
#define E_NLB 0x0fffffffffffff00ULL
#define E_NLS 0x1fULL
#define E_RPN 0x01fffffffffff000ULL
#define RTS_BITS 52
#define ROOT_BITS 13

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

bool idd_ppc64_walk_setup(struct idd_ppc64_walk *w, unsigned page_shift,
			  bool radix, uint64_t root)
{
	memset(w, 0, sizeof(*w));
	if (page_shift != 12 && page_shift != 16)
		return false;
	w->page_shift = (uint8_t)page_shift;
	w->root_bits = ROOT_BITS;
	w->radix = radix;
	w->root = root;
	snprintf(w->describe, sizeof(w->describe),
		 radix ? "inodedump (ppc64, %u KiB pages, radix MMU, "
			 "4-level page tables)"
		       : "inodedump (ppc64, %u KiB pages, hash MMU: the "
			 "linear map only)",
		 1u << (page_shift - 10));
	return true;
}

static bool read_entry(struct idd_ppc64_walk *w,
		       const struct idd_walk_env *env, uint64_t at, int level,
		       uint64_t table, uint64_t *e)
{
	uint8_t raw[8];

	if (!env->read_phys(env->arg, at, raw, 8)) {
		snprintf(w->broken, sizeof(w->broken),
			 "the level %d page table at physical 0x%llx is not "
			 "in the dump", level, (unsigned long long)table);
		return false;
	}
	*e = load_be64(raw);
	return true;
}

/*
 * Whether swapper_pg_dir's entry for PAGE_OFFSET is a radix directory of
 * a PUD (2^9 entries), as a radix kernel's linear map has it.
 */
static bool looks_radix(struct idd_ppc64_walk *w,
			const struct idd_walk_env *env, uint64_t root)
{
	uint64_t e;

	return read_entry(w, env, root, 0, root, &e) && (e & E_VALID) &&
	       !(e & E_LEAF) && (e & E_NLS) == 9 && (e & E_NLB);
}

static bool walk_init(union idd_arch_walk *aw,
		      const struct idd_walk_env *env)
{
	struct idd_ppc64_walk *w = &aw->ppc64;
	uint64_t page, pgd, radix;
	unsigned shift = 0;
	bool is_radix;

	memset(w, 0, sizeof(*w));
	if (!idd_vmcoreinfo_number(env->info, "PAGESIZE", 10, &page) ||
	    !idd_vmcoreinfo_number(env->info, "SYMBOL(swapper_pg_dir)", 16,
				  &pgd) ||
	    pgd < PAGE_OFFSET)
		return false;
	while (shift < 20 && (1ULL << shift) != page)
		shift++;
	if (idd_vmcoreinfo_number(env->info, "NUMBER(RADIX_MMU)", 10, &radix))
		is_radix = radix != 0;
	else
		is_radix = looks_radix(w, env, pgd - PAGE_OFFSET);
	return idd_ppc64_walk_setup(w, shift, is_radix, pgd - PAGE_OFFSET);
}

static bool leaf(struct idd_ppc64_walk *w, uint64_t va, uint64_t base,
		 unsigned shift, uint64_t *pa, uint64_t *left)
{
	return idd_walk_tlb_leaf(&w->tlb, va, base, 1ULL << shift, true, pa,
				 left);
}

static bool translate(union idd_arch_walk *aw, const struct idd_walk_env *env,
		      uint64_t va, uint64_t *pa, uint64_t *left)
{
	struct idd_ppc64_walk *w = &aw->ppc64;
	unsigned shift = RTS_BITS - w->root_bits, bits = w->root_bits;
	uint64_t table = w->root, seen[4];

	w->broken[0] = '\0';
	if (idd_walk_tlb_lookup(&w->tlb, va, pa, left))
		return true;
	/* Quadrant 3 (the kernel's); the bits between it and RTS are 0. */
	if (va >> 62 != 3 || (va << 2) >> (RTS_BITS + 2))
		return false;
	if (!w->radix) {
		/* Hash: the linear map, to its region's end (0xc008...). */
		if (va >= 0xc008000000000000ULL) {
			snprintf(w->broken, sizeof(w->broken),
				 "0x%llx is outside the linear map, and under "
				 "the hash MMU only the linear map is read",
				 (unsigned long long)va);
			return false;
		}
		return leaf(w, va, va - PAGE_OFFSET, 24, pa, left);
	}
	for (int level = 0;; level++) {
		uint64_t e, at = table + ((va >> shift) & ((1ULL << bits) - 1)) * 8;

		seen[level] = table;
		if (!read_entry(w, env, at, level, table, &e))
			return false;
		if (!(e & E_VALID))
			return false;
		/* Leaves: a page, 2 MiB at the PMD, 1 GiB at the PUD. */
		if (e & E_LEAF)
			return (shift == w->page_shift || shift == 21 ||
				shift == 30) &&
			       leaf(w, va, e & E_RPN, shift, pa, left);
		bits = (unsigned)(e & E_NLS);
		if (level == 3 || shift == w->page_shift || bits < 5 ||
		    bits > shift - w->page_shift) {
			snprintf(w->broken, sizeof(w->broken),
				 "a level %d entry at physical 0x%llx is a "
				 "directory of 2^%u entries where none can "
				 "be", level, (unsigned long long)at, bits);
			return false;
		}
		table = e & E_NLB;
		for (int i = 0; i <= level; i++)
			if (seen[i] == table) {
				snprintf(w->broken, sizeof(w->broken),
					 "the page tables loop: a level %d "
					 "entry points back at the table at "
					 "physical 0x%llx",
					 level, (unsigned long long)table);
				return false;
			}
		shift -= bits;
	}
}

static const char *describe(const union idd_arch_walk *w)
{
	return w->ppc64.describe;
}

static const char *broken(const union idd_arch_walk *w)
{
	return w->ppc64.broken[0] ? w->ppc64.broken : NULL;
}

/* Keys only ppc64's VMCOREINFO has (arch/powerpc/kexec/core.c). */
static bool owns_vmcoreinfo(const struct idd_vmcoreinfo *info)
{
	return idd_vmcoreinfo_get(info, "SYMBOL(mmu_vmemmap_psize)") ||
	       idd_vmcoreinfo_get(info, "NUMBER(RADIX_MMU)");
}

/*
 * The linear map is at PAGE_OFFSET on both MMUs; struct pages from the
 * kernel's `vmemmap` (radix 0xc00c..., hash elsewhere: it says where).
 */
static void kernel_map(const struct idd_vmcoreinfo *info,
		       struct idd_target_kernel_map *out)
{
	(void)info;
	out->direct_pa0 = PAGE_OFFSET;
	out->vmemmap_var = "vmemmap";
	/* FLATMEM (!NUMA): ARCH_PFN_OFFSET is MEMORY_START >> PAGE_SHIFT,
	 * MEMORY_START 0UL on PPC64 (asm/page.h) */
	out->flat_pfn_offset = 0;
	out->flat_pfn_offset_known = true;
}

static const char *const aliases[] = { "ppc64le", NULL };

const struct idd_arch_ops idd_ppc64_arch = {
	.name = "ppc64",
	.aliases = aliases,
	.elf_machine = EM_PPC64,
	.page_sizes = (1u << 12) | (1u << 16),
	.vmcoreinfo_in_memory = true, /* pseries has no fw_cfg */
	.owns_vmcoreinfo = owns_vmcoreinfo,
	.kernel_map = kernel_map,
	.walk_keys = "PAGESIZE, SYMBOL(swapper_pg_dir)",
	.walk_init = walk_init,
	.translate = translate,
	.describe = describe,
	.broken = broken,
};
