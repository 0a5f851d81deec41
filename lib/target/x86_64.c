// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The x86-64 page-table walk: 4- or 5-level tables, 1 GiB and 2 MiB
 * leaves, the SME encryption bit masked off. Page tables are read by
 * physical address through the reader the target hands it (arch.h), so
 * any backend with physical reads gets it. The constants are the
 * architecture's (Intel SDM vol. 3, 4.5), not a kernel's layout.
 */
#include <elf.h>
#include <string.h>

#include "core/bytes.h"
#include "target/arch.h"
#include "target/vmcoreinfo.h"

/* __START_KERNEL_map: where x86-64 maps the kernel image. */
#define X86_64_KERNEL_MAP 0xffffffff80000000ULL
#define PTE_PRESENT 0x1ULL
#define PTE_PSE 0x80ULL /* a leaf above level 1 (PDPTE: 1 GiB, PDE: 2 MiB) */
#define PTE_ADDR 0x000ffffffffff000ULL /* bits 12..51 */
#define PAGE_SHIFT 12
#define LEVEL_BITS 9
#define ENTRIES (1u << LEVEL_BITS)

static bool info_number(const struct idd_walk_env *env, const char *key,
			int base, uint64_t *out)
{
	return idd_vmcoreinfo_number(env->info, key, base, out);
}

static bool walk_init(union idd_arch_walk *aw,
		      const struct idd_walk_env *env)
{
	struct idd_x86_64_walk *w = &aw->x86_64;
	uint64_t pgd, phys_base, l5 = 0, sme = 0;

	memset(w, 0, sizeof(*w));
	if (!info_number(env, "SYMBOL(init_top_pgt)", 16, &pgd) &&
	    !info_number(env, "SYMBOL(init_level4_pgt)", 16, &pgd))
		return false;
	if (!info_number(env, "NUMBER(phys_base)", 10, &phys_base) ||
	    pgd < X86_64_KERNEL_MAP)
		return false;
	info_number(env, "NUMBER(pgtable_l5_enabled)", 10, &l5);
	info_number(env, "NUMBER(sme_mask)", 10, &sme);
	/* The kernel image's physical address: __pa_symbol(). */
	w->root = pgd - X86_64_KERNEL_MAP + phys_base;
	w->l5 = l5 != 0;
	w->pte_mask = PTE_ADDR & ~sme;
	return true;
}

static bool root(const union idd_arch_walk *w, const struct idd_walk_env *env,
		 uint64_t *va, uint64_t *pa)
{
	if (!info_number(env, "SYMBOL(init_top_pgt)", 16, va) &&
	    !info_number(env, "SYMBOL(init_level4_pgt)", 16, va))
		return false;
	*pa = w->x86_64.root;
	return true;
}

static bool translate(union idd_arch_walk *aw, const struct idd_walk_env *env,
		      uint64_t va, uint64_t *pa, uint64_t *left)
{
	struct idd_x86_64_walk *w = &aw->x86_64;
	unsigned top_shift = w->l5 ? 48 : 39, shift = top_shift;
	unsigned unused = 64 - (top_shift + LEVEL_BITS);
	uint64_t table = w->root;

	if (idd_walk_tlb_lookup(&w->tlb, va, pa, left))
		return true;
	/* Canonical: the bits above the top level copy its highest bit. */
	if ((uint64_t)((int64_t)(va << unused) >> unused) != va)
		return false;
	for (;;) {
		uint8_t raw[8];
		uint64_t pte, size = 1ULL << shift;

		if (!env->read_phys(env->arg,
				    table + ((va >> shift) & (ENTRIES - 1)) * 8,
				    raw, 8))
			return false;
		pte = idd_load_le(raw, 8);
		if (!(pte & PTE_PRESENT))
			return false;
		if (shift == PAGE_SHIFT ||
		    ((shift == 21 || shift == 30) && (pte & PTE_PSE))) {
			return idd_walk_tlb_leaf(&w->tlb, va,
						 pte & w->pte_mask, size, true,
						 pa, left);
		}
		if (pte & PTE_PSE) /* PS in a PML4/PML5 entry is reserved */
			return false;
		table = pte & w->pte_mask;
		shift -= LEVEL_BITS;
	}
}

static const char *describe(const union idd_arch_walk *w)
{
	return w->x86_64.l5 ? "inodedump (x86-64, 5-level page tables)"
		     : "inodedump (x86-64, 4-level page tables)";
}

/* Keys only x86-64's VMCOREINFO has (arch/x86/kernel/crash_core_64.c). */
static bool owns_vmcoreinfo(const struct idd_vmcoreinfo *info)
{
	return idd_vmcoreinfo_get(info, "SYMBOL(init_top_pgt)") ||
	       idd_vmcoreinfo_get(info, "NUMBER(phys_base)");
}

/*
 * The kernel's variables (KASLR moves both; 4.11+). vmemmap_base exists
 * in every x86-64 kernel, SPARSEMEM_VMEMMAP or not: the memory model is
 * chosen from VMCOREINFO (decode/memmap.c). x86 defines no
 * ARCH_PFN_OFFSET: asm-generic's 0 (a FLATMEM kernel is 32-bit only).
 */
static void kernel_map(const struct idd_vmcoreinfo *info,
		       struct idd_target_kernel_map *out)
{
	(void)info;
	out->direct_var = "page_offset_base";
	out->vmemmap_var = "vmemmap_base";
	out->flat_pfn_offset = 0;
	out->flat_pfn_offset_known = true;
}

const struct idd_arch_ops idd_x86_64_arch = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.page_sizes = 1u << PAGE_SHIFT,
	.owns_vmcoreinfo = owns_vmcoreinfo,
	.kernel_map = kernel_map,
	.walk_keys = "SYMBOL(init_top_pgt), NUMBER(phys_base)",
	.walk_init = walk_init,
	.root = root,
	.translate = translate,
	.describe = describe,
};
