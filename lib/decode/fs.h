/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: a filesystem's own state beside the VFS inode (fs.c): the rows
 * of its table (kernel/fs_rows.h) read from the object embedding the
 * inode, then what stat(2) would show, derived (fs_stat.c).
 */
#ifndef IDD_DECODE_FS_H
#define IDD_DECODE_FS_H

#include "decode/inode.h"

struct fs_layouts;

/* The filesystem rows of ino (its fs_type names the table). */
struct inodedump_error *idd_decode_fs(struct inodedump *id,
				      struct inodedump_inode *ino);
void idd_fs_layouts_free(struct fs_layouts *l);

/* A row's value in ino's filesystem part by key; NULL: absent/unread. */
const struct idd_fs_value *idd_fs_value(const struct inodedump_inode *ino,
					const char *key);

/* A derived value: add to ino (how: a static explanation). */
struct inodedump_error *idd_fs_derive_num(struct inodedump_inode *ino,
					  const char *key, int64_t v,
					  const char *vfs_key, int64_t vfs,
					  const char *how);
struct inodedump_error *idd_fs_derive_dev(struct inodedump_inode *ino,
					  const char *key, uint64_t dev,
					  const char *vfs_key, uint64_t vfs,
					  const char *how);
struct inodedump_error *idd_fs_derive_str(struct inodedump_inode *ino,
					  const char *key, const char *s,
					  size_t len, const char *how);

/*
 * What stat(2) would show where the filesystem's getattr differs from the
 * VFS inode, and a symlink's target where the filesystem keeps it
 * (fs_stat.c): one function per filesystem, by table.
 */
struct inodedump_error *idd_fs_derive(struct inodedump *id,
				      struct inodedump_inode *ino);

/*
 * overlayfs (fs_overlay.c): what stat(2)/readlink(2) show, from the real
 * inodes decoded as inodes of their own filesystems; and on any
 * filesystem, a whiteout and anon_inodefs' shared inode named.
 */
struct inodedump_error *idd_fs_derive_overlay(struct inodedump *id,
					      struct inodedump_inode *ino);
struct inodedump_error *idd_fs_derive_special(struct inodedump *id,
					      struct inodedump_inode *ino);

#endif
