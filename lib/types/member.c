// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a member found by either type source gives, below both sources:
 * its value from a struct's bytes, and the struct that is its type.
 */
#include "core/bytes.h"
#include "types/types.h"

struct idd_struct idd_member_struct(const struct idd_member *m)
{
	return (struct idd_struct){ .die = m->type, .dwarf = m->dwarf,
				    .btf_id = m->btf_type,
				    .btf = m->btf, .size = m->size };
}

uint64_t idd_member_uval(const struct idd_member *m, const uint8_t *buf)
{
	uint64_t v = idd_load(buf + m->offset, (size_t)m->size, m->big_endian);

	if (m->bit_size) {
		/* big-endian: bits numbered from the first byte's top bit */
		v >>= m->big_endian ? 8 * (unsigned)m->size - m->bit_offset -
					      m->bit_size
				    : m->bit_offset;
		if (m->bit_size < 64)
			v &= (UINT64_C(1) << m->bit_size) - 1;
	}
	return v;
}

int64_t idd_member_sval(const struct idd_member *m, const uint8_t *buf)
{
	uint64_t v = idd_member_uval(m, buf);
	unsigned bits = m->bit_size ? m->bit_size : 8 * (unsigned)m->size;

	if (bits > 0 && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~UINT64_C(0) << bits;
	return (int64_t)v;
}
