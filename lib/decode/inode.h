/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The decoded inode, shared by decode, checks and output; its row table,
 * accessors and free are inode.c.
 */
#ifndef INODEDUMP_INODE_H
#define INODEDUMP_INODE_H

#include <stdlib.h>

#include "core/notes.h"
#include "decode/session.h"
#include "kernel/fs_rows.h"
#include "kernel/members.h"

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
	/* Why no name: the symbols that could name it were unreadable. */
	char *symbol_error;
	/*
	 * Why an address in a module's memory has no name (symbol is then
	 * "ext4+0x1c2a0"): its kallsyms keep functions only, no debug file.
	 */
	char *symbol_note;
};

struct idd_str {
	enum idd_presence state;
	char *s;
	bool truncated;
};

struct idd_time {
	struct idd_num sec, nsec; /* nsec without the flags kept beside it */
	/* ctime: the kernel has I_CTIME_QUERIED (6.13+), and it is set */
	bool has_queried, queried;
};

/* Where a path was found: which kind of mount it was seen through. */
enum idd_path_where {
	IDD_PATH_NS = 0,   /* a mount of a namespace (inum 0: not known) */
	IDD_PATH_PSEUDO,   /* pipe:[ino], socket:[ino], anon_inode:... */
	IDD_PATH_INTERNAL, /* mnt_ns MNT_NS_INTERNAL: kern_mount, overlay layer */
	IDD_PATH_DETACHED, /* mnt_ns NULL: vfs_kern_mount, detached, umount -l */
	IDD_PATH_ANON,	   /* an anonymous namespace: a tree not attached */
};

/* A mount namespace and a task in it (mntns.c). */
struct idd_ns_info {
	enum idd_path_where where;
	uint64_t inum;	/* ls -l /proc/PID/ns/mnt; 0: not known */
	bool initial;	/* init_task's namespace */
	bool has_task;	/* pid, comm: the lowest pid in it */
	bool walk_cut;	/* none found, but the task walk stopped early */
	bool no_walk;	/* none found: no task walk (no init_task symbol) */
	uint64_t pid;
	char comm[16];
};

/* One path and the namespace it is in. */
struct idd_path {
	char *path; /* malloc'd */
	struct idd_ns_info ns;
	bool covered; /* another mount is on it there: no lookup reaches it */
};

struct idd_holder {
	struct idd_ns_info ns; /* the task's mount namespace */
	const char *kind; /* "fd", "cwd", "root" */
	uint64_t pid;
	char comm[16];
	int64_t fd;	  /* -1 unless kind is "fd" */
	int64_t file_refs; /* the open file's references; -1 unless "fd" */
	uint64_t file;	   /* the open file ("fd"), else 0 */
	uint64_t f_op_addr; /* its f_op (0: unread) */
	char f_op[64];	   /* its f_op's symbol: what the file is; "" unknown */
};

/* One row of a filesystem's table (kernel/fs_rows.h), read. */
struct idd_fs_value {
	const struct idd_fs_row *row;
	enum idd_presence state;
	uint64_t v;	      /* numbers, addresses (the bit pattern) */
	const char *s;	      /* STR, BYTES (hex), ENUM, SYM */
	bool s_owned;	      /* s from the inode's arena (else the layout's) */
	const char **names;   /* FLAGS: the bits' names, NULL-terminated */
	bool truncated;	      /* STR: the bound was hit */
	const char *why;      /* IDD_UNREADABLE: why (static or arena) */
};

/* What stat(2) would show, derived from the filesystem's state. */
struct idd_fs_derived {
	const char *key;     /* static: "st_blocks", "st_dev", "target" */
	bool is_str;
	bool is_dev;	     /* v and vfs are dev_t: MAJOR:MINOR */
	int64_t v;
	const char *s;	     /* is_str: arena */
	const char *vfs_key; /* the VFS row it stands beside, or NULL */
	int64_t vfs;	     /* that row's value */
	const char *how;     /* static: the kernel function and formula */
};

#define IDD_FS_MAX_DERIVED 12

/* The filesystem's own state (decode/fs.c). */
struct idd_fs_part {
	bool asked;		      /* decoded with its table's rows */
	const struct idd_fs_table *t; /* NULL: no table for this fs */
	const char *type;	      /* the embedding struct (static) */
	uint64_t object;	      /* its address */
	const char *unavailable;      /* why no rows (static, the session's
					 or unavailable_buf), or NULL */
	char *unavailable_buf;	      /* malloc'd, freed with the inode */
	struct idd_fs_value *v;	      /* t->nrows of them (arena) */
	size_t n;
	struct idd_fs_derived d[IDD_FS_MAX_DERIVED];
	size_t nd;
};

/* The C type of a row's field, by kind (kernel/members.def). */
#define IDD_CTYPE_NUM_U struct idd_num
#define IDD_CTYPE_NUM_S struct idd_num
#define IDD_CTYPE_NUM_X struct idd_num
#define IDD_CTYPE_FLAGS struct idd_num
#define IDD_CTYPE_DEV struct idd_num
#define IDD_CTYPE_STRLEN struct idd_num
#define IDD_CTYPE_TIME struct idd_time
#define IDD_CTYPE_SYM struct idd_ptr
#define IDD_CTYPE_ADDR struct idd_ptr
#define IDD_CTYPE_STR struct idd_str
/* FLAGS rows also hold the names of the bits set: opflags_names, ... */
#define IDD_EXTRA_NUM_U(field)
#define IDD_EXTRA_NUM_S(field)
#define IDD_EXTRA_NUM_X(field)
#define IDD_EXTRA_FLAGS(field) char **field##_names;
#define IDD_EXTRA_DEV(field)
#define IDD_EXTRA_STRLEN(field)
#define IDD_EXTRA_TIME(field)
#define IDD_EXTRA_SYM(field)
#define IDD_EXTRA_ADDR(field)
#define IDD_EXTRA_STR(field)

struct inodedump_inode {
	uint64_t address;
	bool forced;		  /* decoded although it failed plausibility */
	char *not_inode_reason;	  /* why it looked like no inode */
	/* The slab object holding it (inodedump_decode() asks; a sweep not). */
	struct {
		bool known;
		const char *cache, *type, *where, *unread; /* arena strings */
		uint64_t object, offset;
		enum inodedump_slab_state state;
	} slab;
	/*
	 * The superblock was filtered out of the dump: the filesystem as its
	 * slab cache or its operations' symbols say (NULL: not inferred).
	 */
	const char *fs_inferred, *fs_inferred_from;
	bool sb_filtered; /* i_sb or s_type->name: left out by the writer */

	/*
	 * One field per member row: ino->mode, ino->opflags (and
	 * opflags_names), ino->i_link, ino->link, ino->linklen,
	 * ino->dentry_first (i_dentry's first alias), ...
	 */
#define IDD_MEMBER(field, kind, ...) IDD_CTYPE_##kind field; IDD_EXTRA_##kind(field)
#define IDD_VIEW(...)
#include "kernel/members.def"
#undef IDD_MEMBER
#undef IDD_VIEW
	bool mapping_is_i_data;
	/* d_flags & DCACHE_ENTRY_TYPE of the first alias (IDD_ABSENT: none) */
	struct idd_num alias_dtype;

	char **paths; /* NULL-terminated; full paths, each once, in a namespace */
	size_t npaths;
	/* Every (namespace, path), and the paths through no namespace. */
	struct idd_path *path_rows;
	size_t npath_rows;
	bool paths_known;    /* the walk could run on this kernel */
	bool unlinked_alias; /* an alias is unhashed: the name was removed */

	struct idd_fs_part fs; /* the filesystem's own rows (fs.c) */

	struct idd_holder *holders;
	size_t nholders;
	bool holders_known; /* --holders asked and the walk ran */

	struct idd_notes violations; /* name = check, message = numbers */
	struct idd_notes skipped;    /* name = check, message = why */
	struct idd_notes errors;     /* name = field, message = reason */
	/* The parts asked that could not be read, with their first notes. */
	struct idd_incomplete incomplete;

	/*
	 * The inode's own strings and arrays (symbol names, flag names,
	 * notes) come from here, malloc only when it is full (core/arena.h).
	 */
	struct idd_arena arena;
};

/* The rows of kernel/members.def, in its order (inode.c). */
extern const struct idd_row idd_rows[IDD_NROWS];

/* A row's field in an inode, by the row's kind. */
#define IDD_ROW_FIELD(ino, row, type) \
	((type *)(void *)((char *)(ino) + (row)->offset))
#define IDD_ROW_CFIELD(ino, row, type) \
	((const type *)(const void *)((const char *)(ino) + (row)->offset))

/* Does the row apply to this inode's file type? */
static inline bool idd_row_applies(const struct idd_row *row,
				   const struct inodedump_inode *ino)
{
	return !row->applies ||
	       ((unsigned)ino->mode.v & 0170000) == row->applies;
}

/* The presence of a row's field (for a time, of its seconds); NULL: none. */
const enum idd_presence *idd_row_state(const struct inodedump_inode *ino,
				       const struct idd_row *row);
/* Set it (a time's seconds and nanoseconds both). */
void idd_row_set_state(struct inodedump_inode *ino, const struct idd_row *row,
		       enum idd_presence state);

/*
 * A part asked of the decode (INODEDUMP_PART_*) that could not be read: a
 * note in ino's errors, and the part marked incomplete (core/notes.h).
 */
#define idd_note_incomplete(ino, part, name, has_address, address, ...)   \
	idd_notes_add_incomplete(&(ino)->arena, &(ino)->errors,            \
				 &(ino)->incomplete, part, name, has_address, \
				 address, __VA_ARGS__)

/* A dentry names the inode: its i_dentry list is not empty. */
static inline bool idd_inode_has_alias(const struct inodedump_inode *ino)
{
	return ino->dentry_first.state == IDD_OK && ino->dentry_first.addr;
}

#endif
