// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A BTF blob put in the host's byte order once, where it is read whole:
 * a big-endian kernel's BTF (s390x) is big-endian throughout. Its header
 * after the magic and every record of its type section are 4-byte words
 * (struct btf_type and what follows each kind), its strings bytes: a
 * swap of words, no kind parsed.
 */
#include <string.h>

#include "core/bytes.h"
#include "types/types.h"

#define BTF_MAGIC 0xeB9F
#define BTF_HEADER_WORDS 5 /* hdr_len, type_off, type_len, str_off, str_len */

int idd_btf_to_host(uint8_t *data, size_t size)
{
	uint16_t magic;
	uint32_t h[BTF_HEADER_WORDS];
	bool big;

	if (size < 4 + sizeof(h))
		return -1;
	memcpy(&magic, data, 2);
	if (magic == BTF_MAGIC)
		return 0;
	if (magic != (uint16_t)(BTF_MAGIC >> 8 | (BTF_MAGIC & 0xff) << 8))
		return -1;
	big = data[0] == (BTF_MAGIC >> 8); /* the swapped order's */
	data[0] = (uint8_t)(big ? BTF_MAGIC : BTF_MAGIC >> 8);
	data[1] = (uint8_t)(big ? BTF_MAGIC >> 8 : BTF_MAGIC);
	memcpy(h, data + 4, sizeof(h));
	idd_words32_to_host(h, BTF_HEADER_WORDS, big);
	/* hdr_len, then the type section as it gives it, checked first */
	if (h[0] < 4 + sizeof(h) || h[0] > size || h[1] % 4 || h[2] % 4 ||
	    h[1] > size - h[0] || h[2] > size - h[0] - h[1])
		return -1;
	memcpy(data + 4, h, sizeof(h));
	idd_words32_to_host(data + h[0] + h[1], h[2] / 4, big);
	return 1;
}
