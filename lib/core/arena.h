/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core: memory that lives as long as one owner (a decoded inode), from a
 * block inside the owner, malloc'd only when the block is full (arena.c).
 */
#ifndef IDD_CORE_ARENA_H
#define IDD_CORE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * A decoded inode's strings and arrays (symbol names, flag names, notes):
 * a sweep decodes every inode, and a dozen malloc/free pairs an inode
 * cost more than reading it. Zero it (used = 0) before the first use.
 */
#define IDD_ARENA_SIZE 2048

struct idd_arena {
	size_t used;
	_Alignas(16) char bytes[IDD_ARENA_SIZE];
};

/*
 * size bytes (16-aligned) that live as long as the arena's owner: from the
 * arena, else malloc'd. NULL: out of memory. idd_arena_release() frees
 * what was malloc'd and leaves the arena's.
 */
void *idd_arena_alloc(struct idd_arena *a, size_t size);
char *idd_arena_strdup(struct idd_arena *a, const char *s);
char *idd_arena_strndup(struct idd_arena *a, const char *s, size_t n);

static inline bool idd_arena_owns(const struct idd_arena *a, const void *p)
{
	return (const char *)p >= a->bytes &&
	       (const char *)p < a->bytes + sizeof(a->bytes);
}

/* Free p unless it lives in the arena (any pointer its owner holds). */
static inline void idd_arena_release(const struct idd_arena *a, void *p)
{
	if (!idd_arena_owns(a, p))
		free(p);
}

#endif
