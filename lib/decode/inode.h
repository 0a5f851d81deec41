/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The decoded inode, shared by decode (inodedump.c) and output (report.c). */
#ifndef INODEDUMP_INODE_H
#define INODEDUMP_INODE_H

#include "decode/session.h"

enum idd_presence {
	IDD_ABSENT = 0,	/* this kernel's struct has no such member */
	IDD_OK,
	IDD_UNREADABLE, /* the member exists, its memory could not be read */
	IDD_NA,		/* does not apply to this inode (e.g. i_link of a file) */
};

struct idd_num {
	enum idd_presence state;
	int64_t v; /* unsigned members are stored as their bit pattern */
};

struct idd_ptr {
	enum idd_presence state;
	uint64_t addr;
	char *symbol; /* NULL when no symbol covers addr */
	char *module; /* the module that defines symbol, NULL for vmlinux */
};

struct idd_str {
	enum idd_presence state;
	char *s;
	bool truncated;
};

struct idd_time {
	struct idd_num sec, nsec;
};

struct idd_note {
	char *name;   /* check name, or the part that could not be read */
	char *message;
	bool has_address;
	uint64_t address;
};

struct idd_notes {
	struct idd_note *v;
	size_t n;
};

struct idd_holder {
	const char *kind; /* "fd", "cwd", "root" */
	uint64_t pid;
	char comm[16];
	int64_t fd;	  /* -1 unless kind is "fd" */
};

struct inodedump_inode {
	uint64_t address;
	bool forced;		  /* decoded although it failed plausibility */
	char *not_inode_reason;	  /* why it looked like no inode */

	struct idd_num ino, generation, mode, opflags, flags, state, count,
		nlink, uid, gid, size, blocks, bytes, blkbits, rdev, writecount,
		version, linklen, dir_seq, nrpages;
	struct idd_time atime, mtime, ctime;
	char **opflags_names, **flags_names, **state_names;

	struct idd_ptr sb, i_op, i_fop, a_ops, s_op, mapping, i_link, i_pipe,
		i_cdev;
	bool mapping_is_i_data;
	bool has_alias; /* i_dentry is not empty */
	struct idd_str fs_type, s_id, link;
	struct idd_num link_strlen, s_dev, s_magic;

	char **paths; /* NULL-terminated; full paths */
	size_t npaths;
	bool paths_known;    /* the walk could run on this kernel */
	bool unlinked_alias; /* an alias is unhashed: the name was removed */

	struct idd_holder *holders;
	size_t nholders;
	bool holders_known; /* --holders asked and the walk ran */

	struct idd_notes violations; /* name = check, message = numbers */
	struct idd_notes skipped;    /* name = check, message = why */
	struct idd_notes errors;     /* name = field, message = reason */
};

void idd_notes_add(struct idd_notes *notes, const char *name, bool has_address,
		   uint64_t address, const char *fmt, ...) IDD_ATTR_PRINTF(5, 6);

#endif
