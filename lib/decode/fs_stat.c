// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What stat(2) and readlink(2) would show where a filesystem's getattr or
 * get_link does not take it from the VFS inode: derived from its rows
 * (fs.c), each value said to be derived and how, after the kernel's own
 * function. One function per filesystem.
 */
#include <string.h>

#include "decode/fs.h"
#include "decode/rows.h"

#define S_IFMT_ 0170000
#define S_IFDIR_ 0040000
#define S_IFLNK_ 0120000

static unsigned file_type(const struct inodedump_inode *ino)
{
	return (unsigned)ino->mode.v & S_IFMT_;
}

/*
 * A symlink's target from n bytes at addr (a filesystem's inline copy):
 * n bounded by PATH_MAX, the read's failure said as the derived value's
 * absence (the rows show where it is).
 */
static struct inodedump_error *target_at(struct inodedump *id,
					 struct inodedump_inode *ino,
					 uint64_t addr, uint64_t n,
					 const char *how)
{
	uint8_t *b;
	struct inodedump_error *err;

	if (!addr || !n || n > IDD_LINK_MAX_BYTES)
		return NULL;
	err = idd_read_bytes(id, addr, n, &b);
	if (err)
		return idd_error_is_nomem(err) ? err
					       : (inodedump_error_free(err), NULL);
	err = idd_fs_derive_str(ino, "target", (const char *)b,
				strnlen((const char *)b, n), how);
	free(b);
	return err;
}

/* xfs_vn_getattr(), xfs_readlink() (fs/xfs/xfs_iops.c, xfs_symlink.c) */
static struct inodedump_error *xfs(struct inodedump *id,
				   struct inodedump_inode *ino)
{
	const struct idd_fs_value *nb = idd_fs_value(ino, "nblocks"),
				  *dl = idd_fs_value(ino, "delayed_blks"),
				  *bl = idd_fs_value(ino, "blocklog"),
				  *ds = idd_fs_value(ino, "disk_size"),
				  *fmt = idd_fs_value(ino, "df_format"),
				  *data = idd_fs_value(ino, "df_data"),
				  *bytes = idd_fs_value(ino, "df_bytes");
	struct inodedump_error *err = NULL;

	if (nb && bl && bl->v >= 9 && bl->v < 32 && ino->blocks.state == IDD_OK)
		err = idd_fs_derive_num(
			ino, "st_blocks",
			(int64_t)((nb->v + (dl ? dl->v : 0)) << (bl->v - 9)),
			"blocks", ino->blocks.v,
			"xfs_vn_getattr: XFS_FSB_TO_BB(i_nblocks + "
			"i_delayed_blks), not i_blocks");
	if (!err && ds && file_type(ino) == S_IFDIR_ &&
	    ino->size.state == IDD_OK)
		err = idd_fs_derive_num(ino, "st_size", (int64_t)ds->v, "size",
					ino->size.v,
					"xfs_vn_getattr: a directory's size is "
					"i_disk_size");
	if (!err && file_type(ino) == S_IFLNK_ && fmt && fmt->s &&
	    !strcmp(fmt->s, "XFS_DINODE_FMT_LOCAL") && data && bytes)
		err = target_at(id, ino, data->v, bytes->v,
				"xfs_readlink: inline in the data fork "
				"(i_df.if_data, if_bytes)");
	return err;
}

static const struct {
	const char *fs; /* the table's fs list (kernel/fs_rows.c) */
	struct inodedump_error *(*derive)(struct inodedump *,
					  struct inodedump_inode *);
} derivers[] = {
	{ "xfs", xfs },
	{ "overlay", idd_fs_derive_overlay },
};

struct inodedump_error *idd_fs_derive(struct inodedump *id,
				      struct inodedump_inode *ino)
{
	struct inodedump_error *err = NULL;

	for (size_t i = 0; ino->fs.t && i < sizeof(derivers) / sizeof(derivers[0]);
	     i++)
		if (!strcmp(derivers[i].fs, ino->fs.t->fs))
			err = derivers[i].derive(id, ino);
	if (!err && ino->fs.t)
		err = idd_fs_derive_special(id, ino);
	return err;
}
