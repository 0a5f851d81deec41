/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: our x86-64 page-table walk (x86_64.c). It reads the dump's page
 * tables through the target's physical reads, from the root VMCOREINFO
 * names (arch.h); libaddrxlat's generic setup costs more than everything else a
 * one-inode decode does.
 */
#ifndef IDD_TARGET_X86_64_H
#define IDD_TARGET_X86_64_H

#include <stdbool.h>
#include <stdint.h>

#include "target/walk_tlb.h"

struct idd_x86_64_walk {
	bool l5;	    /* 5-level paging (pgtable_l5_enabled) */
	uint64_t root;	    /* physical address of the top table */
	uint64_t pte_mask;  /* the address bits of an entry, less sme_mask */
	/* The last leaves found, as a TLB: a decode reads near itself. */
	struct idd_walk_tlb tlb;
};

/* Its ops table is idd_x86_64_arch (arch.h). */

#endif
