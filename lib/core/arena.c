// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The arena of one owner (a decoded inode): its strings and arrays from a
 * block it holds, malloc only when that is full.
 */
#include <stdint.h>
#include <string.h>

#include "core/arena.h"

void *idd_arena_alloc(struct idd_arena *a, size_t size)
{
	size_t at = (a->used + 15) & ~(size_t)15;

	if (size <= sizeof(a->bytes) && at <= sizeof(a->bytes) - size) {
		a->used = at + size;
		return a->bytes + at;
	}
	return malloc(size ? size : 1);
}

char *idd_arena_strndup(struct idd_arena *a, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *copy = idd_arena_alloc(a, len + 1);

	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

char *idd_arena_strdup(struct idd_arena *a, const char *s)
{
	return idd_arena_strndup(a, s, SIZE_MAX);
}
