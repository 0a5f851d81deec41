/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel model: the decoded members of struct inode as rows (members.def).
 * This header gives the row's vocabulary; the rows themselves, with where
 * each lands in struct inodedump_inode, are idd_rows[] (decode/inode.h).
 */
#ifndef IDD_KERNEL_MEMBERS_H
#define IDD_KERNEL_MEMBERS_H

#include <stddef.h>

#define IDD_LINK_MAX_BYTES 4096 /* PATH_MAX: the longest symlink body */
#define IDD_FS_NAME_MAX 64	/* a file_system_type's name, bounded */

/* Every row's index: IDD_M_mode, IDD_M_fs_type, IDD_M_violations, ... */
enum idd_row_id {
#define IDD_MEMBER(field, ...) IDD_M_##field,
#define IDD_VIEW(field, ...) IDD_M_##field,
#include "kernel/members.def"
#undef IDD_MEMBER
#undef IDD_VIEW
	IDD_NROWS
};

/* What a row holds; the C type of its field follows (decode/inode.h). */
enum idd_row_kind {
	IDD_ROW_VIEW,	 /* not a member: the views write it themselves */
	IDD_ROW_NUM_U,	 /* struct idd_num, unsigned */
	IDD_ROW_NUM_S,	 /* struct idd_num, signed */
	IDD_ROW_NUM_X,	 /* struct idd_num, unsigned, hex in text */
	IDD_ROW_FLAGS,	 /* struct idd_num + names, hex in text */
	IDD_ROW_DEV,	 /* struct idd_num holding a kernel dev_t */
	IDD_ROW_TIME,	 /* struct idd_time */
	IDD_ROW_SYM,	 /* struct idd_ptr named by symbol */
	IDD_ROW_ADDR,	 /* struct idd_ptr */
	IDD_ROW_STR,	 /* struct idd_str */
	IDD_ROW_STRLEN,	 /* struct idd_num: strlen of another row's string */
};

/* The struct that holds a member. */
enum idd_row_where {
	IDD_IN_NONE,
	IDD_IN_INODE,
	IDD_IN_SB,	/* struct super_block, at i_sb */
	IDD_IN_MAPPING, /* struct address_space: i_data, or at i_mapping */
};

/* The file type a member applies to (the S_IFMT bits), 0 for every type. */
enum idd_row_applies {
	IDD_APPLIES_ANY = 0,
	IDD_APPLIES_FIFO = 0010000,
	IDD_APPLIES_CHARDEV = 0020000,
	IDD_APPLIES_DIRECTORY = 0040000,
	IDD_APPLIES_BLOCKDEV = 0060000,
	IDD_APPLIES_SYMLINK = 0120000,
};

/* Which versioned flag table names a FLAGS row's bits. */
enum idd_flag_table {
	IDD_FLAGS_IOP = 1, /* IOP_* (i_opflags) */
	IDD_FLAGS_INODE,   /* S_* (i_flags) */
	IDD_FLAGS_STATE,   /* I_* (i_state) */
};

/* How the text view shows a row (lib/output/text.c). */
enum idd_text_style {
	IDD_TEXT_NONE,
	IDD_TEXT_LINE,	  /* "  label        value" by kind */
	IDD_TEXT_PAREN,	  /* "  (label value, label value)" on the line above */
	IDD_TEXT_INLINE,  /* "  label value" on the line above */
	IDD_TEXT_RAW,	  /* "  label        0x..." whatever the state */
	IDD_TEXT_PRESENT, /* as LINE, where the kernel has the member only */
	/* rows with a formatter of their own */
	IDD_TEXT_HEADER,
	IDD_TEXT_PATHS,
	IDD_TEXT_HOLDERS,
	IDD_TEXT_FORCED,
	IDD_TEXT_SLAB,
	IDD_TEXT_MODE,
	IDD_TEXT_LINK,
	IDD_TEXT_MAPPING,
	IDD_TEXT_FS,
	IDD_TEXT_VIOLATIONS,
	IDD_TEXT_SKIPPED,
	IDD_TEXT_ERRORS,
};

/* One row of members.def. */
struct idd_row {
	const char *field;
	enum idd_row_kind kind;
	enum idd_row_where where;
	const char *paths;
	unsigned applies;
	int aux;
	const char *key;
	const char *label;
	enum idd_text_style text;
	unsigned text_seq;
	size_t offset;	     /* of the field in struct inodedump_inode */
	size_t names_offset; /* FLAGS: of the field's names array */
};

#endif
