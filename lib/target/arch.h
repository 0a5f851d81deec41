/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: one architecture's page-table walk behind one ops table (one
 * file each: x86_64.c), chosen by the name the dump's architecture goes
 * by (libkdumpfile's: "x86_64"). A walk reads page tables by physical
 * address through the target's reader and takes its root from
 * VMCOREINFO; it calls nothing else of the target, so a new architecture
 * is a file and a row in arch.c.
 */
#ifndef IDD_TARGET_ARCH_H
#define IDD_TARGET_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/x86_64.h"

struct idd_vmcoreinfo;

/* What a walk may use of the dump. */
struct idd_walk_env {
	const struct idd_vmcoreinfo *info;
	/* Bytes at a physical address, all or false. */
	bool (*read_phys)(void *arg, uint64_t pa, void *buf, size_t len);
	void *arg;
};

/* One walk's state, whichever architecture's. */
union idd_arch_walk {
	struct idd_x86_64_walk x86_64;
};

struct idd_arch_ops {
	const char *name;   /* the architecture's name in a dump */
	uint64_t page_size; /* the only page size it walks (little-endian) */
	/* Set up from env; false when the dump lacks what the walk needs. */
	bool (*walk_init)(union idd_arch_walk *w, const struct idd_walk_env *env);
	/*
	 * The physical address of va and the bytes left in its page
	 * (*left); false when the tables do not map it, or cannot be read.
	 */
	bool (*translate)(union idd_arch_walk *w, const struct idd_walk_env *env,
			  uint64_t va, uint64_t *pa, uint64_t *left);
	/* What --info says of the walk. */
	const char *(*describe)(const union idd_arch_walk *w);
};

/* The architecture named so whose walk we have, or NULL. */
const struct idd_arch_ops *idd_arch_find(const char *name);

extern const struct idd_arch_ops idd_x86_64_arch;

#endif
