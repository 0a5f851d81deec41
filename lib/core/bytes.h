/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core: integers in the dump's byte order. Every kernel value between a
 * dump's bytes and a decoded field is loaded here, in the order the
 * target chose with the architecture (idd_target_big_endian()): a branch
 * on a flag per value, never a call per byte.
 */
#ifndef IDD_CORE_BYTES_H
#define IDD_CORE_BYTES_H

#include <stdbool.h>
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

/* The n <= 8 bytes at p as a big-endian unsigned integer. */
static inline uint64_t idd_load_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The n <= 8 bytes at p in the byte order big (true) or little. */
static inline uint64_t idd_load(const uint8_t *p, size_t n, bool big)
{
	return big ? idd_load_be(p, n) : idd_load_le(p, n);
}

/* The n bytes at p, n in 2, 4 or 8, stored as v in byte order big. */
static inline void idd_store(uint8_t *p, size_t n, uint64_t v, bool big)
{
	for (size_t i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/*
 * The count words of width bytes at p put in the host's order from order
 * big, in place (BTF records, kallsyms tables): nothing when they already
 * are.
 */
static inline void idd_words_to_host(void *p, size_t count, size_t width,
				     bool big)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const bool host_big = false;
#else
	const bool host_big = true;
#endif
	uint8_t *b = p;

	if (big == host_big)
		return;
	for (size_t i = 0; i < count; i++, b += width)
		for (size_t lo = 0, hi = width - 1; lo < hi; lo++, hi--) {
			uint8_t t = b[lo];

			b[lo] = b[hi];
			b[hi] = t;
		}
}

static inline void idd_words32_to_host(void *p, size_t count, bool big)
{
	idd_words_to_host(p, count, 4, big);
}

/* kallsyms_token_index's */
static inline void idd_words16_to_host(void *p, size_t count, bool big)
{
	idd_words_to_host(p, count, 2, big);
}

#endif
