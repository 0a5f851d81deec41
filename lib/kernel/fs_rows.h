/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel model: each filesystem's own state beside struct inode, as data.
 * One table per filesystem (lib/kernel/fs_NAME.def), one row per member of
 * the object that embeds the inode (xfs_inode, btrfs_inode, ovl_inode, ...:
 * the struct and where the inode is in it are inode_caches.def's row for
 * the table's cache). Offsets always come from the types of the kernel
 * being read (vmlinux, or the filesystem module's BTF); a member this
 * kernel does not have is absent, said so.
 *
 * IDD_FS_ROW(key, kind, paths, label, aux)
 *   key    its JSON key in the filesystem's object ("rows")
 *   kind   U, S (decimal), X (hex), FLAGS (hex + names, aux below), ENUM
 *          (the value's enumerator in enum aux), DEV (dev_t), ADDR (an
 *          address), SYM (a pointer named by its symbol), STR (a char
 *          array, or the string a char pointer points to; aux: the member
 *          giving its length, else NUL-terminated, at most 256 bytes),
 *          BYTES (hex of a byte array; aux: the member giving its length)
 *   paths  member paths in the embedding struct, "|" between the kernels'
 *          names (first found wins); "a.b" goes into a member, "a->b"
 *          follows pointer a to its struct's member b (at most 8 members
 *          in all); "a@T" takes member a as struct T (looked up by name,
 *          in the filesystem's module BTF first): "p@T->b" a pointer
 *          whose type says less (void *s_fs_info) as pointing to a T,
 *          "arr@T.b" member b of an array's first element (a flexible
 *          array: oe->__lowerstack@ovl_path.dentry is __lowerstack[0])
 *   label  its text label
 *   aux    FLAGS: "bits:ENUM" (each enumerator of enum ENUM is a bit
 *          number), "mask:ENUM" (each enumerator is a mask) or
 *          "table:NAME" (a #define table in fs_rows.c); ENUM: the enum's
 *          name, "table:NAME" (the value is one of a #define table's), or
 *          NULL (the member's own enum type, typedef'd anonymous enums
 *          too); STR/BYTES: the length member (same path rules); else NULL
 */
#ifndef IDD_KERNEL_FS_ROWS_H
#define IDD_KERNEL_FS_ROWS_H

#include <stddef.h>
#include <stdint.h>

enum idd_fs_kind {
	IDD_FS_U,
	IDD_FS_S,
	IDD_FS_X,
	IDD_FS_FLAGS,
	IDD_FS_ENUM,
	IDD_FS_DEV,
	IDD_FS_ADDR,
	IDD_FS_SYM,
	IDD_FS_STR,
	IDD_FS_BYTES,
};

struct idd_fs_row {
	const char *key;
	enum idd_fs_kind kind;
	const char *paths;
	const char *label;
	const char *aux;
};

/* A #define's name and its mask (or value), for rows "table:NAME". */
struct idd_fs_flag {
	const char *name;
	uint64_t mask;
};

struct idd_fs_flag_table {
	const char *name;
	const struct idd_fs_flag *flags;
	size_t n;
};

/*
 * One filesystem's table: the file_system_type names it serves ("|"
 * between them), the inode cache (inode_caches.def) whose struct embeds
 * its inodes, its rows, and functions of the cache's unit.
 */
struct idd_fs_table {
	const char *fs;
	const char *cache;
	const struct idd_fs_row *rows;
	size_t nrows;
	/*
	 * Functions defined in the cache's unit (inode_caches.def), NULL-
	 * terminated: where vmlinux's DWARF has that unit (a hint only).
	 */
	const char *const *anchors;
};

extern const struct idd_fs_table idd_fs_tables[];
extern const size_t idd_fs_ntables;

/* The table for file_system_type name fs, or NULL. */
const struct idd_fs_table *idd_fs_table_find(const char *fs);
/* A row of t by key, or NULL. */
const struct idd_fs_row *idd_fs_row_find(const struct idd_fs_table *t,
					 const char *key);
/*
 * The filesystem whose inodes alone point at the built-in operations
 * table sym (an i_op or i_fop symbol), or NULL.
 */
const char *idd_fs_of_builtin_ops(const char *sym);
/* A FLAGS or ENUM row's "table:NAME", or NULL. */
const struct idd_fs_flag_table *idd_fs_flag_table_find(const char *name);

#endif
