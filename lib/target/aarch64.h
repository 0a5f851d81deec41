/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: our aarch64 walk (aarch64.c): its state, and its setup from
 * the facts alone, for tests that build tables with no VMCOREINFO.
 */
#ifndef IDD_TARGET_AARCH64_H
#define IDD_TARGET_AARCH64_H

#include <stdbool.h>
#include <stdint.h>

#include "target/walk_tlb.h"

struct idd_aarch64_walk {
	uint8_t page_shift;   /* 12, 14, 16: the granule */
	uint8_t levels;	      /* table levels walked, 2..5 */
	uint8_t va_bits;      /* the VA size the MMU runs with (T1SZ) */
	uint8_t top_bits;     /* index bits of the root table */
	uint8_t block_min;    /* the smallest shift a block may have... */
	uint8_t block_max;    /* ...and the largest */
	bool lpa2;	      /* 4K/16K: OA[51:50] in descriptor bits [9:8] */
	uint64_t root;	      /* physical address of the root table */
	uint64_t oa_mask;     /* a descriptor's output-address bits */
	unsigned va_bits_config;
	char broken[112];     /* why the last walk cannot be answered */
	char describe[96];
	struct idd_walk_tlb tlb;
};

/*
 * The walk over root for a kernel built with va_bits_config (its
 * VA_BITS) running with va_bits (64 - TCR_EL1.T1SZ) at granule
 * 1 << page_shift; false for a combination no kernel runs.
 */
bool idd_aarch64_walk_setup(struct idd_aarch64_walk *w, unsigned page_shift,
			    unsigned va_bits_config, unsigned va_bits,
			    uint64_t root);

/* Its ops table is idd_aarch64_arch (arch.h). */

#endif
