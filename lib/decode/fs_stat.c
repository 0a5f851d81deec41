// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What stat(2) and readlink(2) would show where a filesystem's getattr or
 * get_link does not take it from the VFS inode: derived from its rows
 * (fs.c), each value said to be derived and how, after the kernel's own
 * function. One function per filesystem.
 */
#include <string.h>

#include "decode/fs.h"
#include "decode/pagecache.h"
#include "decode/rows.h"

#define S_IFMT_ 0170000
#define S_IFDIR_ 0040000
#define S_IFLNK_ 0120000

/* Why a target the filesystem keeps cannot be shown (a static text). */
static struct inodedump_error *no_target(struct inodedump_inode *ino,
					 const char *why, const char *how)
{
	return idd_fs_derive_str(ino, "target_unavailable", why, strlen(why),
				 how);
}

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

	if (!addr || !n)
		return NULL;
	if (n > IDD_LINK_MAX_BYTES)
		return no_target(ino,
				 "its length is absurd (more than PATH_MAX)",
				 how);
	err = idd_read_bytes(id, addr, n, &b);
	if (err) {
		if (idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
		/* a filtered dump drops the page cache (-d 2, 4) */
		return no_target(ino, "its memory is not in the dump", how);
	}
	err = idd_fs_derive_str(ino, "target", (const char *)b,
				strnlen((const char *)b, n), how);
	free(b);
	return err;
}

/*
 * A symlink's target from the page cache: the page at index of the
 * address_space at mapping, from byte off, n bytes (the kernel's
 * nd_terminate_link(): i_size, at most a page less one). Not cached, or
 * not in memory: said as a note (target_unavailable), never guessed.
 */
static struct inodedump_error *target_cached(struct inodedump *id,
					     struct inodedump_inode *ino,
					     uint64_t mapping, uint64_t index,
					     uint64_t off, const char *how)
{
	uint64_t va, n = ino->size.state == IDD_OK ? ino->size.v : 0,
		     psize = idd_target_page_size(id->target);
	const char *why = NULL;
	bool damaged;
	struct inodedump_error *err;

	if (!mapping || ino->size.state != IDD_OK || !psize)
		return NULL;
	index += off / psize;
	off %= psize;
	if (!n || n >= IDD_LINK_MAX_BYTES || off + n > psize)
		return no_target(ino, "its length (i_size) is absurd", how);
	if (!idd_pagecache_page(id, mapping, index, &va, &why, &damaged)) {
		err = no_target(ino, why, how);
		/* damage is no absence: said, the decode partial */
		if (!err && damaged)
			err = idd_notes_add_incomplete(
				&ino->arena, &ino->errors, &ino->incomplete,
				INODEDUMP_PART_FIELDS, "i_mapping", true,
				mapping, "the symlink's target in the page "
				"cache of address_space 0x%llx: %s",
				(unsigned long long)mapping, why);
		return err;
	}
	return target_at(id, ino, va + off, n, how);
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
	else if (!err && file_type(ino) == S_IFLNK_ && fmt && fmt->s &&
		 strcmp(fmt->s, "XFS_DINODE_FMT_LOCAL"))
		err = no_target(
			ino, "not in memory reachable from the inode",
			"xfs_readlink: a remote symlink (data fork not LOCAL) "
			"is read from its disk blocks through xfs_buf each "
			"time; neither the VFS inode nor its page cache keeps "
			"it (the per-AG buffer cache may, not searched)");
	return err;
}

#define ALIGN_UP(v, a) (((v) + (a) - 1) / (a) * (a))

/* btrfs_getattr(), page_get_link() (fs/btrfs/inode.c, fs/namei.c) */
static struct inodedump_error *btrfs(struct inodedump *id,
				     struct inodedump_inode *ino)
{
	const struct idd_fs_value *dev = idd_fs_value(ino, "anon_dev"),
				  *nd = idd_fs_value(ino, "new_delalloc_bytes"),
				  *ss = idd_fs_value(ino, "sectorsize");
	struct inodedump_error *err = NULL;

	if (dev && ino->s_dev.state == IDD_OK)
		err = idd_fs_derive_dev(ino, "st_dev", dev->v, "dev",
					(uint64_t)ino->s_dev.v,
					"btrfs_getattr: the subvolume's "
					"anonymous dev (root->anon_dev), not "
					"s_dev");
	if (!err && nd && ss && ss->v >= 512 && ss->v <= 65536 &&
	    ino->blocks.state == IDD_OK && ino->bytes.state == IDD_OK)
		err = idd_fs_derive_num(
			ino, "st_blocks",
			(int64_t)((ALIGN_UP(ino->blocks.v * 512 + ino->bytes.v,
					    ss->v) +
				   ALIGN_UP(nd->v, ss->v)) >>
				  9),
			"blocks", (int64_t)ino->blocks.v,
			"btrfs_getattr: (ALIGN(i_blocks * 512 + i_bytes, "
			"sectorsize) + ALIGN(new_delalloc_bytes, sectorsize)) "
			">> 9 (an inline extent's bytes are in i_bytes)");
	if (!err && file_type(ino) == S_IFLNK_ && ino->mapping.state == IDD_OK)
		err = target_cached(id, ino, ino->mapping.addr, 0, 0,
				    "page_get_link: page 0 of the page cache "
				    "(btrfs reads its inline extent there)");
	return err;
}

/* shmem_get_link() (mm/shmem.c): a long target is folio 0 */
static struct inodedump_error *tmpfs(struct inodedump *id,
				     struct inodedump_inode *ino)
{
	if (file_type(ino) != S_IFLNK_ || ino->mapping.state != IDD_OK ||
	    (ino->link.state == IDD_OK && ino->link.s))
		return NULL; /* a short target is i_link */
	return target_cached(id, ino, ino->mapping.addr, 0, 0,
			     "shmem_get_link: folio 0 of the page cache");
}

/* A hex string's bytes (fs.c's BYTES rows), at most n. */
static size_t unhex(const char *s, uint8_t *out, size_t n)
{
	size_t k = 0;

	for (; s && s[0] && s[1] && k < n; s += 2) {
		unsigned v = 0;

		for (int i = 0; i < 2; i++) {
			char c = s[i];

			v = v * 16 + (unsigned)(c <= '9' ? c - '0'
							  : c - 'a' + 10);
		}
		out[k++] = (uint8_t)v;
	}
	return k;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/*
 * ext4_get_link() (fs/ext4/symlink.c, since 5.18): a slow symlink's block
 * read with ext4_bread(), so its bytes are in the block device's page
 * cache at the block the extent in i_data maps logical block 0 to.
 */
static struct inodedump_error *ext4(struct inodedump *id,
				    struct inodedump_inode *ino)
{
	const struct idd_fs_value *data = idd_fs_value(ino, "i_data"),
				  *bdev = idd_fs_value(ino, "bdev_mapping"),
				  *fl = idd_fs_value(ino, "flags");
	static const char how[] =
		"ext4_get_link: ext4_bread() of logical block 0, in the "
		"block device's page cache (the extent in i_data)";
	uint8_t d[60];
	uint64_t blk, pos, bs;

	if (file_type(ino) != S_IFLNK_ ||
	    (ino->link.state == IDD_OK && ino->link.s))
		return NULL; /* a fast symlink: i_link */
	/* the block size: i_blkbits is the superblock's s_blocksize_bits */
	if (!data || !fl || unhex(data->s, d, sizeof(d)) < 24 ||
	    ino->blkbits.state != IDD_OK || ino->blkbits.v < 9 ||
	    ino->blkbits.v > 16)
		return NULL;
	if (!bdev) /* s_bdev is in the superblock */
		return no_target(ino,
				 "the block device's page cache cannot be "
				 "reached (the bdev mapping row is unread)",
				 how);
	bs = 1ull << ino->blkbits.v;
	if (!(fl->v & 0x80000)) /* no extents: i_block[0] is block 0's */
		return target_cached(id, ino, bdev->v, 0, le32(d) * bs, how);
	/* ext4_extent_header: magic 0xf30a, entries, max, depth 0 */
	if (d[0] != 0x0a || d[1] != 0xf3 || !(d[2] | d[3]) || d[6] | d[7])
		return no_target(ino, "its extent tree is not in the inode", how);
	if (le32(d + 12) != 0) /* ee_block: the first extent maps block 0 */
		return NULL;
	blk = (uint64_t)(d[18] | d[19] << 8) << 32 | le32(d + 20);
	pos = blk * bs;
	return target_cached(id, ino, bdev->v, 0, pos, how);
}

static const struct {
	const char *fs; /* the table's fs list (kernel/fs_rows.c) */
	struct inodedump_error *(*derive)(struct inodedump *,
					  struct inodedump_inode *);
} derivers[] = {
	{ "xfs", xfs },
	{ "overlay", idd_fs_derive_overlay },
	{ "btrfs", btrfs },
	{ "tmpfs", tmpfs },
	{ "ext4|ext3|ext2", ext4 },
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
