/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* core: integers in the dump's byte order (little-endian targets). */
#ifndef IDD_CORE_BYTES_H
#define IDD_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* The n <= 8 bytes at p as a little-endian unsigned integer. */
static inline uint64_t idd_load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
