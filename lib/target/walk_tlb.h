/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: the few last leaves a page walk found (each architecture's
 * walk keeps one): a read of the next bytes of the same page, or of the
 * same 1 GiB frame, walks no table again.
 */
#ifndef IDD_TARGET_WALK_TLB_H
#define IDD_TARGET_WALK_TLB_H

#include <stdbool.h>
#include <stdint.h>

#define IDD_WALK_TLB_SIZE 8

struct idd_walk_tlb {
	struct { uint64_t va, size, pa; } e[IDD_WALK_TLB_SIZE];
	unsigned next;
};

static inline bool idd_walk_tlb_lookup(const struct idd_walk_tlb *t,
				       uint64_t va, uint64_t *pa,
				       uint64_t *left)
{
	for (unsigned i = 0; i < IDD_WALK_TLB_SIZE; i++) {
		const __typeof__(t->e[0]) *e = &t->e[i];

		if (e->size && va - e->va < e->size) {
			*pa = e->pa + (va - e->va);
			*left = e->size - (va - e->va);
			return true;
		}
	}
	return false;
}

/*
 * va in the leaf at base of size bytes (a power of two): kept (keep), and
 * *pa, *left answered; true.
 */
static inline bool idd_walk_tlb_leaf(struct idd_walk_tlb *t, uint64_t va,
				     uint64_t base, uint64_t size, bool keep,
				     uint64_t *pa, uint64_t *left)
{
	base &= ~(size - 1);
	if (keep) {
		__typeof__(t->e[0]) *e = &t->e[t->next++ % IDD_WALK_TLB_SIZE];

		e->va = va & ~(size - 1);
		e->size = size;
		e->pa = base;
	}
	*pa = base + (va & (size - 1));
	*left = size - (va & (size - 1));
	return true;
}

#endif
