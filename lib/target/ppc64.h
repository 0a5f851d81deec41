/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: our ppc64 (Book3S-64, little-endian kernels) walk (ppc64.c):
 * its state, and its setup from the facts alone, for tests that build
 * tables with no VMCOREINFO.
 */
#ifndef IDD_TARGET_PPC64_H
#define IDD_TARGET_PPC64_H

#include <stdbool.h>
#include <stdint.h>

#include "target/walk_tlb.h"

struct idd_ppc64_walk {
	uint8_t page_shift; /* 12 or 16: the kernel's base page */
	uint8_t root_bits;  /* index bits of the root table (13) */
	bool radix;	    /* false: the hash MMU, the linear map only */
	uint64_t root;	    /* physical address of swapper_pg_dir */
	char broken[112];   /* why the last walk cannot be answered */
	char describe[96];
	struct idd_walk_tlb tlb;
};

/*
 * The radix walk (radix) over root for a kernel with 1 << page_shift
 * pages, or the hash MMU's linear map alone (!radix); false for a page
 * size no Book3S-64 kernel has.
 */
bool idd_ppc64_walk_setup(struct idd_ppc64_walk *w, unsigned page_shift,
			  bool radix, uint64_t root);

/* Its ops table is idd_ppc64_arch (arch.h). */

#endif
