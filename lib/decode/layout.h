/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decode: where this kernel keeps each member row, found once per session. */
#ifndef IDD_DECODE_LAYOUT_H
#define IDD_DECODE_LAYOUT_H

#include "checks/checks.h"
#include "decode/session.h"
#include "kernel/members.h"

#define MAX_FLAGS 64
#define LINK_MAX_BYTES IDD_LINK_MAX_BYTES
#define FS_NAME_MAX IDD_FS_NAME_MAX

/* Where one row lives in this kernel. */
struct row_layout {
	struct idd_member m;	/* the member (a time's sec) in its struct */
	struct idd_member nsec; /* TIME: the nsec member */
	/* "a->b": m is b in pointee, a is via in the row's struct */
	bool chained;
	struct idd_member via;
	struct idd_struct pointee;
	char path[96];		/* the alternative that matched */
	const struct idd_flag *flags; /* FLAGS: the names of its bits */
	size_t nflags;
	bool follow; /* needs reads beyond its struct's bytes (follow_row) */
	/*
	 * FLAGS: the names of the last value named (idd_flag_names()'s one
	 * block, size bytes, malloc'd): inodes of a sweep repeat a few values.
	 */
	uint64_t names_value;
	char **names_block;
	size_t names_size;
};

/*
 * Row indices in table order, one list for each thing the decode does to
 * some rows: a decode walks these instead of every row of the table for
 * each step (a sweep does each step for every inode).
 */
struct row_list {
	size_t n;
	unsigned short id[IDD_NROWS];
};

struct inode_layout {
	struct idd_struct inode, sb, mapping;
	bool have_sb, have_mapping;
	struct idd_member i_data; /* the mapping inside the inode */
	struct row_layout row[IDD_NROWS];
	/* The members the checks look at, as the rows found them. */
	struct idd_member i_linklen, i_dentry_first;
	struct idd_flag iop[MAX_FLAGS], iflags[MAX_FLAGS], state[MAX_FLAGS];
	size_t niop, niflags, nstate;
	bool state_from_dwarf;
	uint64_t cached_link; /* IOP_CACHED_LINK's value, 0 if unknown */
	/*
	 * The first alias's dentry type, for the lookup check: d_flags and
	 * d_alias in struct dentry, DCACHE_ENTRY_TYPE and
	 * DCACHE_DIRECTORY_TYPE from enum dentry_flags (6.15+: DWARF); any
	 * missing leaves alias_dtype_ok false.
	 */
	bool alias_dtype_ok;
	struct idd_member d_flags, d_alias;
	uint64_t dcache_entry_type, dcache_directory_type;
	uint64_t ctime_queried; /* I_CTIME_QUERIED, 0 if this kernel lacks it */
	struct row_list inode_members; /* in the inode, read from memory */
	struct row_list sb_rows;       /* in the superblock (every kind) */
	struct row_list sb_members;    /* in the superblock, from memory */
	struct row_list mapping_members;
	struct row_list strlen_rows, flags_rows, sym_rows;
	struct row_list inode_follow; /* inode_members with follow set */
	/* The checks' facts of this kernel, found once. */
	struct idd_check_facts facts;
};

/* layout.c: the layout and its rows' names memos, freed at close. */
void idd_layout_free(struct inode_layout *l);

#endif
