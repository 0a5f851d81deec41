/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decode: where this kernel keeps each member of struct inode, found once. */
#ifndef IDD_DECODE_LAYOUT_H
#define IDD_DECODE_LAYOUT_H

#include "decode/session.h"

#define MAX_FLAGS 64
#define LINK_MAX_BYTES 4096 /* PATH_MAX: the longest symlink body */
#define FS_NAME_MAX 64

struct member_time {
	struct idd_member sec, nsec;
	bool timespec; /* sec/nsec inside a struct timespec64 */
};

struct inode_layout {
	struct idd_struct inode, sb, fstype;
	struct idd_member i_mode, i_opflags, i_uid, i_gid, i_flags, i_op, i_sb,
		i_mapping, i_ino, i_nlink, i_rdev, i_size, i_generation,
		i_bytes, i_blkbits, i_blocks, i_state, i_count, i_writecount,
		i_version, i_fop, i_data, i_link, i_pipe, i_cdev, i_dir_seq,
		i_linklen, i_sb_list_next, i_dentry_first;
	struct member_time times[3];
	bool have_sb, have_fstype;
	struct idd_member s_id, s_type, s_dev, s_magic, s_op, fs_name;
	struct idd_member a_ops, nrpages; /* relative to struct address_space */
	struct idd_flag iop[MAX_FLAGS], iflags[MAX_FLAGS], state[MAX_FLAGS];
	size_t niop, niflags, nstate;
	bool state_from_dwarf;
	uint64_t cached_link; /* IOP_CACHED_LINK's value, 0 if unknown */
};

/* decode.c: the caches a session keeps between decodes, freed at close. */
void idd_free_sym_memo(struct sym_memo *memo);
void idd_free_sb_memo(struct sb_memo *m);

#endif
