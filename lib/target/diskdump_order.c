// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * target: a diskdump's byte order. Its writer (makedumpfile on the dumped
 * machine, QEMU for its guest) writes the header, the sub-header and the
 * page descriptors in the machine's order: big-endian for s390x. Each is
 * put in little-endian order as it is read, so that the reader and the
 * header's checks read one order; the bitmaps are bytes already.
 */
#include <stdbool.h>
#include <stddef.h>

#include "core/bytes.h"
#include "target/diskdump_format.h"

/* A field of disk_dump_header / kdump_sub_header / page_desc: at, size. */
struct dd_field {
	unsigned short at, size;
};

/* struct disk_dump_header: version, timestamp, then ten ints */
static const struct dd_field header_fields[] = {
	{ DD_VERSION, 4 }, { 408, 8 }, { 416, 8 },
	{ 424, 4 }, { 428, 4 }, { 432, 4 }, { 436, 4 }, { 440, 4 },
	{ 444, 4 }, { 448, 4 }, { 452, 4 }, { 456, 4 }, { 460, 4 },
};

/* struct kdump_sub_header: phys_base, dump_level, split, then longs */
static const struct dd_field sub_fields[] = {
	{ 0, 8 }, { DD_SUB_DUMP_LEVEL, 4 }, { DD_SUB_SPLIT, 4 },
	{ 16, 8 }, { 24, 8 }, { 32, 8 }, { 40, 8 }, { 48, 8 }, { 56, 8 },
	{ 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 8 }, { DD_SUB_MAX_PFN, 8 },
};

/* struct page_desc: offset, size, flags, page_flags */
static const struct dd_field desc_fields[] = {
	{ 0, 8 }, { 8, 4 }, { 12, 4 }, { 16, 8 },
};

bool idd_diskdump_big_endian(const uint8_t *h, size_t len)
{
	/* a version no writer reaches read one way, a small one the other */
	return len >= DD_VERSION + 4 && idd_load_le(h + DD_VERSION, 4) > 0xffff &&
	       idd_load_be(h + DD_VERSION, 4) <= 0xffff;
}

static void to_le(uint8_t *p, size_t len, const struct dd_field *f,
		  size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].at + f[i].size <= len)
			idd_store(p + f[i].at, f[i].size,
				  idd_load_be(p + f[i].at, f[i].size), false);
}

void idd_diskdump_header_to_le(uint8_t *h, size_t h_len, uint8_t *sub,
			       size_t sub_len)
{
	if (h)
		to_le(h, h_len, header_fields,
		      sizeof(header_fields) / sizeof(*header_fields));
	if (sub)
		to_le(sub, sub_len, sub_fields,
		      sizeof(sub_fields) / sizeof(*sub_fields));
}

void idd_diskdump_descs_to_le(uint8_t *descs, size_t n, bool big)
{
	if (!big)
		return;
	for (size_t i = 0; i < n; i++)
		to_le(descs + i * DD_DESC_SIZE, DD_DESC_SIZE, desc_fields,
		      sizeof(desc_fields) / sizeof(*desc_fields));
}
