/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the printk ring tests' memory images share (test_log_ring.c, types
 * from vmlinux; test_log_ring_vmcoreinfo.c, layout from VMCOREINFO): where
 * the ring's pieces are, its size, and little-endian stores.
 */
#ifndef IDD_TESTS_RING_IMAGE_H
#define IDD_TESTS_RING_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "target/target.h"

#define PRB_SYM 0xffffffff82000000ull /* the variable prb: a pointer */
#define RB_ADDR 0xffff888000100000ull /* struct printk_ringbuffer */
#define DESCS 0xffff888000200000ull
#define INFOS 0xffff888000300000ull
#define DATA 0xffff888000400000ull
#define COUNT_BITS 3 /* 8 descriptors */
#define SIZE_BITS 10 /* 1 KiB of text */

/* v's low n bytes at p, little-endian. */
static inline void put(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The image: prb, the ring, its descriptors, infos and text. */
static uint8_t prb[8], rb[4096], descs[4096], infos[4096],
	data[1 << SIZE_BITS];
static size_t data_used; /* text blocks written so far */

static const struct idd_memory_region ring_regions[] = {
	{ PRB_SYM, prb, sizeof(prb) },
	{ RB_ADDR, rb, sizeof(rb) },
	{ DESCS, descs, sizeof(descs) },
	{ INFOS, infos, sizeof(infos) },
	{ DATA, data, sizeof(data) },
};
#define N_RING_REGIONS (sizeof(ring_regions) / sizeof(ring_regions[0]))

/* Every byte zero, no text, prb pointing to the ring. */
static inline void ring_clear(void)
{
	memset(rb, 0, sizeof(rb));
	memset(descs, 0, sizeof(descs));
	memset(infos, 0, sizeof(infos));
	memset(data, 0, sizeof(data));
	data_used = 0;
	put(prb, RB_ADDR, 8);
}

#endif
