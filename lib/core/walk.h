/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* core: bounded walks over lists read from the dump (visited.c). */
#ifndef IDD_CORE_WALK_H
#define IDD_CORE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- bounded walks (visited.c) ---- */
struct idd_visited {
	uint64_t *slots; /* open addressing; 0 is empty (never a node) */
	size_t cap, n;
};

/* Remember addr; true if it was seen before (the list loops). */
bool idd_visit(struct idd_visited *v, uint64_t addr);
void idd_visited_free(struct idd_visited *v);

#endif
