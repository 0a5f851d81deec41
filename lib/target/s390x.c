// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The s390x walk: dynamic address translation (z/Architecture Principles
 * of Operation, chapter 3, "Dynamic Address Translation") of the kernel's
 * address space, whose tables are big-endian as the kernel is.
 *
 * The virtual address is cut in region-first (bits 53..63 of the address,
 * 11 bits), region-second (42..52), region-third (31..41), segment
 * (20..30, each 11 bits) and page (12..19, 8 bits) indexes. The kernel's
 * root (swapper_pg_dir) is a table of any of the four top types; each
 * entry says its table's type (TT, bits 2..3: 3 region-first .. 0
 * segment), so the root's first entry says how many levels there are, as
 * the kernel itself reads it. A region entry: the next table's origin
 * (bits 12..63; an index adds to it), the part of that table present in
 * 4 KiB parts of 512 entries (from TF, bits 6..7, to TL, 0..1: an index
 * outside is not mapped), invalid (0x20). A
 * region-third entry with FC (0x400) maps 2 GiB; a segment entry with FC
 * maps 1 MiB, else points at a 2 KiB page table of 256 entries; a page
 * entry is invalid with 0x400. Linux's software bits sit in the rest.
 *
 * Where the kernel is: before 6.10 the kernel's virtual addresses are its
 * physical ones (the identity map at 0, the image in it, KASLR moving
 * both); since 6.10 the identity map is at IDENTITYBASE and the image's
 * physical place is its virtual one less KERNELOFFSET plus KERNELOFFPHYS
 * (VMCOREINFO). The lowcore: real addresses 0..8 KiB are each CPU's own
 * prefix page, which absolute 0 is not; nothing a decode reads is there,
 * so a translation that lands there is said, never read from absolute 0
 * (a NULL pointer followed before 6.10 would land there).
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "core/bytes.h"
#include "target/arch.h"
#include "target/vmcoreinfo.h"

#define E_INVALID 0x20ULL	/* region and segment entries */
#define E_FC 0x400ULL		/* region-third, segment: a large frame */
#define PTE_INVALID 0x400ULL
#define E_TT(e) (((e) >> 2) & 3)
#define E_TF(e) (((e) >> 6) & 3)
#define E_TL(e) ((e) & 3)
#define LOWCORE_SIZE 0x2000ULL /* the prefix area: two pages */

/* Level l (0 page table .. 4 region-first): index shift and bits. */
static const uint8_t shifts[5] = { 12, 20, 31, 42, 53 };
static const uint8_t bits[5] = { 8, 11, 11, 11, 11 };
static const char *const names[5] = { "page", "segment", "region-third",
				      "region-second", "region-first" };

static bool read_entry(struct idd_s390x_walk *w,
		       const struct idd_walk_env *env, uint64_t at, int level,
		       uint64_t *e)
{
	uint8_t raw[8];

	if (!env->read_phys(env->arg, at, raw, 8)) {
		snprintf(w->broken, sizeof(w->broken),
			 "the %s table entry at physical 0x%llx is not in "
			 "the dump", names[level], (unsigned long long)at);
		return false;
	}
	*e = idd_load_be(raw, 8);
	return true;
}

bool idd_s390x_walk_setup(struct idd_s390x_walk *w, uint64_t root,
			  bool (*read_phys)(void *arg, uint64_t pa, void *buf,
					    size_t len),
			  void *arg)
{
	uint8_t raw[8];

	memset(w, 0, sizeof(*w));
	if (root & 0xfff || !read_phys(arg, root, raw, 8))
		return false;
	w->root = root;
	/* a segment table is level 1's, a region-first table level 4's */
	w->levels = (uint8_t)(2 + E_TT(idd_load_be(raw, 8)));
	snprintf(w->describe, sizeof(w->describe),
		 "inodedump (s390x, 4 KiB pages, %u-level DAT tables from "
		 "a %s table)", (unsigned)w->levels, names[w->levels - 1]);
	return true;
}

/* The root's physical address: its virtual one, placed as the kernel is. */
static bool walk_init(union idd_arch_walk *aw,
		      const struct idd_walk_env *env)
{
	uint64_t pgd, off = 0, off_phys = 0;

	if (!idd_vmcoreinfo_number(env->info, "SYMBOL(swapper_pg_dir)", 16,
				  &pgd))
		return false;
	/* 6.10+: the image's physical place is not its virtual one */
	if (idd_vmcoreinfo_number(env->info, "KERNELOFFPHYS", 16, &off_phys) &&
	    (!idd_vmcoreinfo_number(env->info, "KERNELOFFSET", 16, &off) ||
	     pgd < off))
		return false;
	return idd_s390x_walk_setup(&aw->s390x, pgd - off + off_phys,
				    env->read_phys, env->arg);
}

static bool root(const union idd_arch_walk *aw,
		 const struct idd_walk_env *env, uint64_t *va, uint64_t *pa)
{
	*pa = aw->s390x.root;
	return idd_vmcoreinfo_number(env->info, "SYMBOL(swapper_pg_dir)", 16,
				     va);
}

/* va in the frame at base of 1 << shift bytes; the lowcore refused. */
static bool leaf(struct idd_s390x_walk *w, uint64_t va, uint64_t base,
		 unsigned shift, uint64_t *pa, uint64_t *left)
{
	uint64_t size = 1ULL << shift, real = (base & ~(size - 1)) +
					       (va & (size - 1));

	if (real < LOWCORE_SIZE) {
		snprintf(w->broken, sizeof(w->broken),
			 "0x%llx is real address 0x%llx, in the lowcore, "
			 "which each CPU's prefix places elsewhere: not read",
			 (unsigned long long)va, (unsigned long long)real);
		return false;
	}
	/* a frame holding the lowcore is walked again: each read is checked */
	return idd_walk_tlb_leaf(&w->tlb, va, base, size,
				 base >= LOWCORE_SIZE, pa, left);
}

/* An entry of the wrong type for its table: the tables are damaged. */
static bool wrong_type(struct idd_s390x_walk *w, int level, uint64_t at,
		       uint64_t e)
{
	snprintf(w->broken, sizeof(w->broken),
		 "the %s table entry at physical 0x%llx says it is of a %s "
		 "table", names[level], (unsigned long long)at,
		 names[E_TT(e) + 1]);
	return false;
}

static bool translate(union idd_arch_walk *aw, const struct idd_walk_env *env,
		      uint64_t va, uint64_t *pa, uint64_t *left)
{
	struct idd_s390x_walk *w = &aw->s390x;
	int level = w->levels - 1;
	uint64_t table = w->root, first = 0, last = 2047;

	w->broken[0] = '\0';
	if (idd_walk_tlb_lookup(&w->tlb, va, pa, left))
		return true;
	/* beyond what the root's type translates */
	if (level < 4 && va >> (shifts[level] + bits[level]))
		return false;
	for (;; level--) {
		uint64_t i = (va >> shifts[level]) & ((1ULL << bits[level]) - 1),
			 at = table + i * 8, e;

		if (i < first || i > last)
			return false; /* outside the table's offset and length */
		if (!read_entry(w, env, at, level, &e))
			return false;
		if (level == 0) {
			if (e & PTE_INVALID)
				return false;
			return leaf(w, va, e & ~0xfffULL, 12, pa, left);
		}
		if (E_TT(e) != (uint64_t)level - 1)
			return wrong_type(w, level, at, e);
		if (e & E_INVALID)
			return false;
		if (level == 2 && (e & E_FC))
			return leaf(w, va, e & ~((1ULL << 31) - 1), 31, pa, left);
		if (level == 1 && (e & E_FC))
			return leaf(w, va, e & ~((1ULL << 20) - 1), 20, pa, left);
		if (level == 1) {
			table = e & ~0x7ffULL; /* 2 KiB page tables */
			first = 0;
			last = 255;
		} else {
			table = e & ~0xfffULL;
			first = E_TF(e) * 512;
			last = E_TL(e) * 512 + 511;
		}
	}
}

static const char *describe(const union idd_arch_walk *w)
{
	return w->s390x.describe;
}

static const char *broken(const union idd_arch_walk *w)
{
	return w->s390x.broken[0] ? w->s390x.broken : NULL;
}

/* Keys only s390's VMCOREINFO has (arch/s390/kernel/crash_dump.c). */
static bool owns_vmcoreinfo(const struct idd_vmcoreinfo *info)
{
	return idd_vmcoreinfo_get(info, "SYMBOL(lowcore_ptr)") ||
	       idd_vmcoreinfo_get(info, "SAMODE31");
}

/*
 * The identity map at IDENTITYBASE (6.10+), else at 0; struct pages from
 * the kernel's `vmemmap` (SPARSEMEM_VMEMMAP is all s390 has).
 */
static void kernel_map(const struct idd_vmcoreinfo *info,
		       struct idd_target_kernel_map *out)
{
	uint64_t base = 0;

	idd_vmcoreinfo_number(info, "IDENTITYBASE", 16, &base);
	out->direct_pa0 = base;
	out->direct_at_zero = !base;
	out->vmemmap_var = "vmemmap";
}

/* QEMU's kdump header names it so (its ELF_MACHINE_UNAME). */
static const char *const aliases[] = { "S390X", NULL };

const struct idd_arch_ops idd_s390x_arch = {
	.name = "s390x",
	.aliases = aliases,
	.elf_machine = EM_S390,
	.big_endian = true,
	.own_user_space = true,
	.page_sizes = 1u << 12,
	.vmcoreinfo_in_memory = true, /* QEMU's ELF and kdump write none */
	.owns_vmcoreinfo = owns_vmcoreinfo,
	.kernel_map = kernel_map,
	.walk_keys = "SYMBOL(swapper_pg_dir) (and KERNELOFFSET with "
		     "KERNELOFFPHYS)",
	.root = root,
	.walk_init = walk_init,
	.translate = translate,
	.describe = describe,
	.broken = broken,
};
