/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: our x86-64 page-table walk (x86_64.c). It reads the dump's page
 * tables through the target's physical reads, from the root VMCOREINFO
 * names; libaddrxlat's generic setup costs more than everything else a
 * one-inode decode does.
 */
#ifndef IDD_TARGET_X86_64_H
#define IDD_TARGET_X86_64_H

#include <stdbool.h>
#include <stdint.h>

struct idd_target;

struct idd_x86_64_walk {
	bool l5;	    /* 5-level paging (pgtable_l5_enabled) */
	uint64_t root;	    /* physical address of the top table */
	uint64_t pte_mask;  /* the address bits of an entry, less sme_mask */
	/* The last leaves found, as a TLB: a decode reads near itself. */
	struct { uint64_t va, size, pa; } tlb[8];
	unsigned tlb_next;
};

/*
 * Set up from t's VMCOREINFO (SYMBOL(init_top_pgt) or init_level4_pgt,
 * NUMBER(phys_base), NUMBER(pgtable_l5_enabled), NUMBER(sme_mask)); false
 * when it lacks what the walk needs.
 */
bool idd_x86_64_walk_init(struct idd_x86_64_walk *w, struct idd_target *t);
/*
 * The physical address of va and the bytes left in its page (*left);
 * false when the tables do not map it, or cannot be read.
 */
bool idd_x86_64_translate(struct idd_x86_64_walk *w, struct idd_target *t,
			  uint64_t va, uint64_t *pa, uint64_t *left);
/* What --info says of it. */
const char *idd_x86_64_describe(const struct idd_x86_64_walk *w);

#endif
