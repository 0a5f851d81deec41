// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The printk ring's constants that VMCOREINFO does not export (sizes,
 * enum values, bitfields), each row with the kernels it holds for and
 * the source it is taken from: read from a dump without the kernel's
 * types, the ring is read with VMCOREINFO's offsets and one row here.
 */
#include <stddef.h>

#include "kernel/printk.h"
#include "kernel/vfs.h"

#define V IDD_KVER

/*
 * Newest first. A row holds from its release on, until the next newer
 * row's: the kernels since the last row checked are read with it, and
 * VMCOREINFO's offsets and sizes are checked against it (ring.c) before
 * anything is read.
 */
static const struct idd_printk_consts rows[] = {
	{
		/*
		 * Linux 5.10 (the lockless ring) on: kernel/printk/
		 * printk_ringbuffer.h struct printk_info { u64 seq; u64
		 * ts_nsec; u16 text_len; u8 facility; u8 flags:5; u8 level:3;
		 * u32 caller_id; struct dev_printk_info dev_info; }, enum
		 * desc_state { desc_committed = 0x1, desc_finalized = 0x2 } in
		 * state_var's top two bits (DESC_FLAGS_SHIFT = DESC_SV_BITS -
		 * 2); LOG_CONT = 8 (enum log_flags in 5.10's
		 * kernel/printk/printk.c, later enum printk_info_flags in
		 * kernel/printk/internal.h). Checked against 6.6's source and
		 * the VMCOREINFO of 5.10, 6.1 and 6.12 dumps (seq 0, ts_nsec 8,
		 * text_len 16, caller_id 20 in all).
		 */
		.since = V(5, 10, 0),
		.seq_size = 8,
		.ts_nsec_size = 8,
		.text_len_size = 2,
		.caller_id_size = 4,
		.facility_from_text_len = 2,
		.flags_from_text_len = 3,
		.caller_id_gap = 4,
		.flags_shift = 0,
		.flags_bits = 5,
		.level_shift = 5,
		.level_bits = 3,
		.state_bits = 2,
		.desc_committed = 1,
		.desc_finalized = 2,
		.log_cont = 8,
	},
};

const struct idd_printk_consts *idd_printk_consts(uint32_t version)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!version || version >= rows[i].since)
			return &rows[i];
	return NULL;
}
