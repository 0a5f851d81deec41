/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* core: integers in the dump's byte order (little-endian targets). */
#ifndef IDD_CORE_BYTES_H
#define IDD_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The n <= 8 bytes at p as a little-endian unsigned integer. */
static inline uint64_t idd_load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The common sizes in one load (a sweep reads ~50 members an inode). */
	if (n == 8 || n == 4 || n == 2) {
		memcpy(&v, p, n);
		return v;
	}
#endif
	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
