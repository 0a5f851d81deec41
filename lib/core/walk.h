/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* core: bounded walks over lists read from the dump (visited.c). */
#ifndef IDD_CORE_WALK_H
#define IDD_CORE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* ---- bounded walks (visited.c) ---- */
struct idd_visited {
	uint64_t *slots; /* open addressing; 0 is empty (never a node) */
	size_t cap, n;
};

/*
 * Remember addr; *seen says it was met before: the list loops (0, a NULL
 * link, always counts as met). Fails only when the set cannot grow (out
 * of memory): the walk then stops with that error, not as at a loop.
 */
struct inodedump_error *idd_visit(struct idd_visited *v, uint64_t addr,
				  bool *seen);
void idd_visited_free(struct idd_visited *v);
/* Was addr remembered? (A lookup only: nothing is added.) */
bool idd_visited_has(const struct idd_visited *v, uint64_t addr);

/* struct idd_visited seen _cleanup_visited_ = { 0 }; */
#define _cleanup_visited_ __attribute__((__cleanup__(idd_visited_free)))

#endif
