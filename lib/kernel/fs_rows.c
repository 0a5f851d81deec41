// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernel model: the filesystems' row tables (fs_*.def) and the #define
 * flag names their FLAGS rows use, as data.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/fs_rows.h"

#define IDD_FS_ROW(key, kind, paths, label, aux) \
	{ key, IDD_FS_##kind, paths, label, aux },

static const struct idd_fs_row xfs_rows[] = {
#include "kernel/fs_xfs.def"
};
static const struct idd_fs_row ext4_rows[] = {
#include "kernel/fs_ext4.def"
};
static const struct idd_fs_row tmpfs_rows[] = {
#include "kernel/fs_tmpfs.def"
};
static const struct idd_fs_row overlay_rows[] = {
#include "kernel/fs_overlay.def"
};
static const struct idd_fs_row sockfs_rows[] = {
#include "kernel/fs_sockfs.def"
};
static const struct idd_fs_row proc_rows[] = {
#include "kernel/fs_proc.def"
};
static const struct idd_fs_row kernfs_rows[] = {
#include "kernel/fs_kernfs.def"
};
static const struct idd_fs_row pipefs_rows[] = {
#include "kernel/fs_pipefs.def"
};
static const struct idd_fs_row anon_rows[] = {
#include "kernel/fs_anon.def"
};
static const struct idd_fs_row btrfs_rows[] = {
#include "kernel/fs_btrfs.def"
};
static const struct idd_fs_row nfs_rows[] = {
#include "kernel/fs_nfs.def"
};
#undef IDD_FS_ROW

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const xfs_anchors[] = { "xfs_fs_alloc_inode", "xfs_fs_fill_super", NULL };
static const char *const ext4_anchors[] = { "ext4_alloc_inode", "ext4_fill_super", NULL };
static const char *const shmem_anchors[] = { "shmem_alloc_inode", "shmem_file_setup", NULL };
static const char *const ovl_anchors[] = { "ovl_alloc_inode", "ovl_fill_super", NULL };
static const char *const sock_anchors[] = { "sock_alloc_inode", "sock_alloc", NULL };
static const char *const proc_anchors[] = { "proc_alloc_inode", "proc_get_inode", NULL };
static const char *const inode_anchors[] = { "alloc_inode", "iget_locked", NULL };
static const char *const btrfs_anchors[] = { "btrfs_alloc_inode", "btrfs_getattr", NULL };
static const char *const nfs_anchors[] = { "nfs_alloc_inode", "nfs_fhget", NULL };

const struct idd_fs_table idd_fs_tables[] = {
	{ "xfs", "xfs_inode", xfs_rows, N(xfs_rows), xfs_anchors },
	{ "ext4|ext3|ext2", "ext4_inode_cache", ext4_rows, N(ext4_rows),
	  ext4_anchors },
	{ "tmpfs", "shmem_inode_cache", tmpfs_rows, N(tmpfs_rows),
	  shmem_anchors },
	{ "overlay", "ovl_inode", overlay_rows, N(overlay_rows), ovl_anchors },
	{ "sockfs", "sock_inode_cache", sockfs_rows, N(sockfs_rows),
	  sock_anchors },
	{ "pipefs", "inode_cache", pipefs_rows, N(pipefs_rows), inode_anchors },
	{ "proc", "proc_inode_cache", proc_rows, N(proc_rows), proc_anchors },
	{ "sysfs|cgroup|cgroup2", "inode_cache", kernfs_rows, N(kernfs_rows),
	  inode_anchors },
	{ "anon_inodefs", "inode_cache", anon_rows, N(anon_rows),
	  inode_anchors },
	{ "btrfs", "btrfs_inode", btrfs_rows, N(btrfs_rows), btrfs_anchors },
	{ "nfs|nfs4", "nfs_inode_cache", nfs_rows, N(nfs_rows), nfs_anchors },
};
const size_t idd_fs_ntables = N(idd_fs_tables);

/*
 * Built-in operations tables that one filesystem's inodes alone point at:
 * no module names their filesystem, and their inode cache (inode_cache)
 * is shared. Kernel symbol names, matched without a ".N" suffix:
 * fs/pipe.c's pipeanon_fops (6.15+, "pipe: introduce struct
 * file_operations pipeanon_fops": anonymous pipes only; pipefifo_fops
 * serves named FIFOs of every filesystem too, so it is not here);
 * net/socket.c's sockfs_inode_ops (i_op) and socket_file_ops (i_fop).
 */
static const struct {
	const char *sym, *fs;
} builtin_ops[] = {
	{ "pipeanon_fops", "pipefs" },
	{ "sockfs_inode_ops", "sockfs" },
	{ "socket_file_ops", "sockfs" },
};

const char *idd_fs_of_builtin_ops(const char *sym)
{
	size_t n;

	if (!sym)
		return NULL;
	n = strcspn(sym, ".");
	for (size_t i = 0; i < N(builtin_ops); i++)
		if (strlen(builtin_ops[i].sym) == n &&
		    !strncmp(builtin_ops[i].sym, sym, n))
			return builtin_ops[i].fs;
	return NULL;
}

/*
 * XFS's on-disk inode flags (fs/xfs/libxfs/xfs_format.h): a disk format,
 * the same in every kernel that has each bit.
 */
static const struct idd_fs_flag xfs_diflags[] = {
	{ "XFS_DIFLAG_REALTIME", 1 << 0 },  { "XFS_DIFLAG_PREALLOC", 1 << 1 },
	{ "XFS_DIFLAG_NEWRTBM", 1 << 2 },   { "XFS_DIFLAG_IMMUTABLE", 1 << 3 },
	{ "XFS_DIFLAG_APPEND", 1 << 4 },    { "XFS_DIFLAG_SYNC", 1 << 5 },
	{ "XFS_DIFLAG_NOATIME", 1 << 6 },   { "XFS_DIFLAG_NODUMP", 1 << 7 },
	{ "XFS_DIFLAG_RTINHERIT", 1 << 8 }, { "XFS_DIFLAG_PROJINHERIT", 1 << 9 },
	{ "XFS_DIFLAG_NOSYMLINKS", 1 << 10 }, { "XFS_DIFLAG_EXTSIZE", 1 << 11 },
	{ "XFS_DIFLAG_EXTSZINHERIT", 1 << 12 }, { "XFS_DIFLAG_NODEFRAG", 1 << 13 },
	{ "XFS_DIFLAG_FILESTREAM", 1 << 14 },
};
static const struct idd_fs_flag xfs_diflags2[] = {
	{ "XFS_DIFLAG2_DAX", 1 << 0 },	    { "XFS_DIFLAG2_REFLINK", 1 << 1 },
	{ "XFS_DIFLAG2_COWEXTSIZE", 1 << 2 }, { "XFS_DIFLAG2_BIGTIME", 1 << 3 },
	{ "XFS_DIFLAG2_NREXT64", 1 << 4 },  { "XFS_DIFLAG2_METADATA", 1 << 5 },
};

/* ext4's on-disk inode flags (EXT4_*_FL, fs/ext4/ext4.h): a disk format. */
static const struct idd_fs_flag ext4_flags[] = {
	{ "EXT4_SECRM_FL", 0x1 },	   { "EXT4_UNRM_FL", 0x2 },
	{ "EXT4_COMPR_FL", 0x4 },	   { "EXT4_SYNC_FL", 0x8 },
	{ "EXT4_IMMUTABLE_FL", 0x10 },	   { "EXT4_APPEND_FL", 0x20 },
	{ "EXT4_NODUMP_FL", 0x40 },	   { "EXT4_NOATIME_FL", 0x80 },
	{ "EXT4_DIRTY_FL", 0x100 },	   { "EXT4_COMPRBLK_FL", 0x200 },
	{ "EXT4_NOCOMPR_FL", 0x400 },	   { "EXT4_ENCRYPT_FL", 0x800 },
	{ "EXT4_INDEX_FL", 0x1000 },	   { "EXT4_IMAGIC_FL", 0x2000 },
	{ "EXT4_JOURNAL_DATA_FL", 0x4000 }, { "EXT4_NOTAIL_FL", 0x8000 },
	{ "EXT4_DIRSYNC_FL", 0x10000 },	   { "EXT4_TOPDIR_FL", 0x20000 },
	{ "EXT4_HUGE_FILE_FL", 0x40000 },  { "EXT4_EXTENTS_FL", 0x80000 },
	{ "EXT4_VERITY_FL", 0x100000 },	   { "EXT4_EA_INODE_FL", 0x200000 },
	{ "EXT4_DAX_FL", 0x2000000 },	   { "EXT4_INLINE_DATA_FL", 0x10000000 },
	{ "EXT4_PROJINHERIT_FL", 0x20000000 }, { "EXT4_CASEFOLD_FL", 0x40000000 },
};
/*
 * btrfs's on-disk inode flags (BTRFS_INODE_*, include/uapi/linux/
 * btrfs_tree.h): a disk format, the same in every kernel that has each bit.
 */
static const struct idd_fs_flag btrfs_inode_flags[] = {
	{ "BTRFS_INODE_NODATASUM", 1u << 0 },  { "BTRFS_INODE_NODATACOW", 1u << 1 },
	{ "BTRFS_INODE_READONLY", 1u << 2 },   { "BTRFS_INODE_NOCOMPRESS", 1u << 3 },
	{ "BTRFS_INODE_PREALLOC", 1u << 4 },   { "BTRFS_INODE_SYNC", 1u << 5 },
	{ "BTRFS_INODE_IMMUTABLE", 1u << 6 },  { "BTRFS_INODE_APPEND", 1u << 7 },
	{ "BTRFS_INODE_NODUMP", 1u << 8 },     { "BTRFS_INODE_NOATIME", 1u << 9 },
	{ "BTRFS_INODE_DIRSYNC", 1u << 10 },   { "BTRFS_INODE_COMPRESS", 1u << 11 },
	{ "BTRFS_INODE_ROOT_ITEM_INIT", 1u << 31 },
};
static const struct idd_fs_flag btrfs_inode_ro_flags[] = {
	{ "BTRFS_INODE_RO_VERITY", 1u << 0 },
};
/* memfd seals (F_SEAL_*, include/uapi/linux/fcntl.h): a user ABI. */
static const struct idd_fs_flag f_seals[] = {
	{ "F_SEAL_SEAL", 0x1 },	 { "F_SEAL_SHRINK", 0x2 },
	{ "F_SEAL_GROW", 0x4 },	 { "F_SEAL_WRITE", 0x8 },
	{ "F_SEAL_FUTURE_WRITE", 0x10 }, { "F_SEAL_EXEC", 0x20 },
};

/* SOCK_* socket types (include/linux/net.h): a user ABI. */
static const struct idd_fs_flag sock_types[] = {
	{ "SOCK_STREAM", 1 }, { "SOCK_DGRAM", 2 },     { "SOCK_RAW", 3 },
	{ "SOCK_RDM", 4 },    { "SOCK_SEQPACKET", 5 }, { "SOCK_DCCP", 6 },
	{ "SOCK_PACKET", 10 },
};
/* AF_* address families (include/linux/socket.h): a user ABI. */
static const struct idd_fs_flag address_families[] = {
	{ "AF_UNSPEC", 0 },	 { "AF_UNIX", 1 },	{ "AF_INET", 2 },
	{ "AF_AX25", 3 },	 { "AF_IPX", 4 },	{ "AF_APPLETALK", 5 },
	{ "AF_NETROM", 6 },	 { "AF_BRIDGE", 7 },	{ "AF_ATMPVC", 8 },
	{ "AF_X25", 9 },	 { "AF_INET6", 10 },	{ "AF_ROSE", 11 },
	{ "AF_DECnet", 12 },	 { "AF_NETBEUI", 13 },	{ "AF_SECURITY", 14 },
	{ "AF_KEY", 15 },	 { "AF_NETLINK", 16 },	{ "AF_PACKET", 17 },
	{ "AF_ASH", 18 },	 { "AF_ECONET", 19 },	{ "AF_ATMSVC", 20 },
	{ "AF_RDS", 21 },	 { "AF_SNA", 22 },	{ "AF_IRDA", 23 },
	{ "AF_PPPOX", 24 },	 { "AF_WANPIPE", 25 },	{ "AF_LLC", 26 },
	{ "AF_IB", 27 },	 { "AF_MPLS", 28 },	{ "AF_CAN", 29 },
	{ "AF_TIPC", 30 },	 { "AF_BLUETOOTH", 31 }, { "AF_IUCV", 32 },
	{ "AF_RXRPC", 33 },	 { "AF_ISDN", 34 },	{ "AF_PHONET", 35 },
	{ "AF_IEEE802154", 36 }, { "AF_CAIF", 37 },	{ "AF_ALG", 38 },
	{ "AF_NFC", 39 },	 { "AF_VSOCK", 40 },	{ "AF_KCM", 41 },
	{ "AF_QIPCRTR", 42 },	 { "AF_SMC", 43 },	{ "AF_XDP", 44 },
	{ "AF_MCTP", 45 },
};
/*
 * TCP_* states (include/net/tcp_states.h, an anonymous enum: no name to
 * look up), which AF_UNIX and others use as sk_state too: a user ABI
 * (/proc/net/tcp's "st").
 */
static const struct idd_fs_flag tcp_states[] = {
	{ "TCP_ESTABLISHED", 1 }, { "TCP_SYN_SENT", 2 },
	{ "TCP_SYN_RECV", 3 },	  { "TCP_FIN_WAIT1", 4 },
	{ "TCP_FIN_WAIT2", 5 },	  { "TCP_TIME_WAIT", 6 },
	{ "TCP_CLOSE", 7 },	  { "TCP_CLOSE_WAIT", 8 },
	{ "TCP_LAST_ACK", 9 },	  { "TCP_LISTEN", 10 },
	{ "TCP_CLOSING", 11 },	  { "TCP_NEW_SYN_RECV", 12 },
	{ "TCP_BOUND_INACTIVE", 13 },
};
/*
 * NFS client inode state (include/linux/nfs_fs.h): nfs_inode.flags holds
 * bit numbers (NFS_INO_STALE (1) ...), as masks here; cache_validity
 * masks (BIT(n)). Both as 6.x-7.3 define them; a bit not named here shows
 * in the hex value only (bit 19 of cache_validity has meant different
 * things in proposed series: left unnamed).
 */
static const struct idd_fs_flag nfs_ino_flags[] = {
	{ "NFS_INO_STALE", 1 << 1 },
	{ "NFS_INO_ACL_LRU_SET", 1 << 2 },
	{ "NFS_INO_INVALIDATING", 1 << 3 },
	{ "NFS_INO_PRESERVE_UNLINKED", 1 << 4 },
	{ "NFS_INO_LAYOUTCOMMIT", 1 << 9 },
	{ "NFS_INO_LAYOUTCOMMITTING", 1 << 10 },
	{ "NFS_INO_LAYOUTSTATS", 1 << 11 },
	{ "NFS_INO_ODIRECT", 1 << 12 },
	{ "NFS_INO_REQ_DIR_DELEG", 1 << 13 },
};
static const struct idd_fs_flag nfs_ino_invalid[] = {
	{ "NFS_INO_INVALID_DATA", 1 << 1 },
	{ "NFS_INO_INVALID_ATIME", 1 << 2 },
	{ "NFS_INO_INVALID_ACCESS", 1 << 3 },
	{ "NFS_INO_INVALID_ACL", 1 << 4 },
	{ "NFS_INO_REVAL_FORCED", 1 << 6 },
	{ "NFS_INO_INVALID_LABEL", 1 << 7 },
	{ "NFS_INO_INVALID_CHANGE", 1 << 8 },
	{ "NFS_INO_INVALID_CTIME", 1 << 9 },
	{ "NFS_INO_INVALID_MTIME", 1 << 10 },
	{ "NFS_INO_INVALID_SIZE", 1 << 11 },
	{ "NFS_INO_INVALID_OTHER", 1 << 12 },
	{ "NFS_INO_DATA_INVAL_DEFER", 1 << 13 },
	{ "NFS_INO_INVALID_BLOCKS", 1 << 14 },
	{ "NFS_INO_INVALID_XATTR", 1 << 15 },
	{ "NFS_INO_INVALID_NLINK", 1 << 16 },
	{ "NFS_INO_INVALID_MODE", 1 << 17 },
	{ "NFS_INO_INVALID_BTIME", 1 << 18 },
};

static const struct idd_fs_flag_table flag_tables[] = {
	{ "xfs_diflags", xfs_diflags, N(xfs_diflags) },
	{ "xfs_diflags2", xfs_diflags2, N(xfs_diflags2) },
	{ "ext4_flags", ext4_flags, N(ext4_flags) },
	{ "f_seals", f_seals, N(f_seals) },
	{ "sock_types", sock_types, N(sock_types) },
	{ "address_families", address_families, N(address_families) },
	{ "tcp_states", tcp_states, N(tcp_states) },
	{ "btrfs_inode_flags", btrfs_inode_flags, N(btrfs_inode_flags) },
	{ "btrfs_inode_ro_flags", btrfs_inode_ro_flags,
	  N(btrfs_inode_ro_flags) },
	{ "nfs_ino_flags", nfs_ino_flags, N(nfs_ino_flags) },
	{ "nfs_ino_invalid", nfs_ino_invalid, N(nfs_ino_invalid) },
};

/* Does "a|b|c" hold name? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && !memcmp(p, name, n))
			return true;
		p += len + (bar ? 1 : 0);
	}
	return false;
}

const struct idd_fs_table *idd_fs_table_find(const char *fs)
{
	for (size_t i = 0; fs && i < idd_fs_ntables; i++)
		if (in_list(idd_fs_tables[i].fs, fs))
			return &idd_fs_tables[i];
	return NULL;
}

const struct idd_fs_row *idd_fs_row_find(const struct idd_fs_table *t,
					 const char *key)
{
	for (size_t i = 0; t && i < t->nrows; i++)
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	return NULL;
}

const struct idd_fs_flag_table *idd_fs_flag_table_find(const char *name)
{
	for (size_t i = 0; i < N(flag_tables); i++)
		if (!strcmp(flag_tables[i].name, name))
			return &flag_tables[i];
	return NULL;
}
