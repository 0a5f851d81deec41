/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: our s390x walk (s390x.c): its state, and its setup from the
 * facts alone, for tests that build tables with no VMCOREINFO.
 */
#ifndef IDD_TARGET_S390X_H
#define IDD_TARGET_S390X_H

#include <stdbool.h>
#include <stdint.h>

#include "target/walk_tlb.h"

struct idd_s390x_walk {
	uint64_t root;	 /* physical address of swapper_pg_dir */
	uint8_t levels;	 /* 2..5: segment table .. region-first table */
	char broken[128]; /* why the last walk cannot be answered */
	char describe[96];
	struct idd_walk_tlb tlb;
};

/*
 * The walk over the table at root, of the type its entries say; false
 * when its first entry cannot be read.
 */
bool idd_s390x_walk_setup(struct idd_s390x_walk *w, uint64_t root,
			  bool (*read_phys)(void *arg, uint64_t pa, void *buf,
					    size_t len),
			  void *arg);

/* Its ops table is idd_s390x_arch (arch.h). */

#endif
