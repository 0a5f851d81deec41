/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernel model: the printk ring's constants VMCOREINFO does not export. */
#ifndef IDD_KERNEL_PRINTK_H
#define IDD_KERNEL_PRINTK_H

#include <stdint.h>

/*
 * What a kernel's source fixes about its lockless printk ring and
 * VMCOREINFO leaves out (log_buf_vmcoreinfo_setup() exports offsets and
 * struct sizes, never a member's size, an enum's value or a bitfield):
 * read from a dump without the kernel's types, the ring is read with
 * VMCOREINFO's offsets and these.
 */
struct idd_printk_consts {
	uint32_t since;	     /* IDD_KVER of the first release it holds for */
	/* struct printk_info: member sizes in bytes */
	uint8_t seq_size, ts_nsec_size, text_len_size, caller_id_size;
	/*
	 * facility (u8) and the byte of flags:5 and level:3 sit between
	 * text_len and caller_id: their offsets from text_len's, valid only
	 * where caller_id is caller_id_gap bytes after text_len (as the
	 * struct declares them). Bit numbers are little-endian's (GCC gives
	 * a little-endian target's first bitfield the low bits).
	 */
	uint8_t facility_from_text_len, flags_from_text_len, caller_id_gap;
	uint8_t flags_shift, flags_bits, level_shift, level_bits;
	/* enum desc_state in the top state_bits of prb_desc.state_var */
	unsigned state_bits;
	int64_t desc_committed, desc_finalized;
	int64_t log_cont; /* LOG_CONT in printk_info.flags */
};

/*
 * The constants of a kernel of version (IDD_KVER; 0: not known, when only
 * a ring VMCOREINFO describes says it is 5.10 or later), or NULL before
 * the lockless ring (5.10).
 */
const struct idd_printk_consts *idd_printk_consts(uint32_t version);

#endif
