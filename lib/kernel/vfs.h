/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernel model: versioned VFS flag tables and mode decoding. */
#ifndef IDD_KERNEL_VFS_H
#define IDD_KERNEL_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inodedump.h"

/* ---- VFS knowledge (vfs_types.c) ---- */
struct idd_flag {
	const char *name;
	uint64_t value;
};

/* Kernel version as KERNEL_VERSION(a,b,c). */
#define IDD_KVER(a, b, c) (((a) << 16) + ((b) << 8) + (c))
uint32_t idd_parse_release(const char *osrelease);

struct idd_vfs_evidence {
	uint32_t version;
	bool has_linklen; /* struct inode has i_linklen */
	bool has_ctime_nsec; /* struct inode has i_ctime_nsec (not a timespec) */
	/* fs/inode.c has inode_wait_for_lru_isolating() (a backport) */
	bool has_lru_isolating;
};

/* IOP_* and S_* flags this kernel knows, from versioned tables. */
size_t idd_vfs_iop_flags(const struct idd_vfs_evidence *ev,
			 struct idd_flag *out, size_t max);
size_t idd_vfs_inode_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max);
size_t idd_vfs_state_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max);
/* Flags kept in i_ctime_nsec beside the nanoseconds (I_CTIME_QUERIED). */
size_t idd_vfs_ctime_nsec_flags(const struct idd_vfs_evidence *ev,
				struct idd_flag *out, size_t max);
/*
 * "IOP_LOOKUP|IOP_XATTR|0x100" style list into a NULL-ended array: one
 * malloc'd block, pointers then strings, so one free. NULL: no memory.
 */
char **idd_flag_names(const struct idd_flag *table, size_t n, uint64_t value);
/*
 * The references of a struct file from its counter's raw value and width
 * (bytes): f_count (atomic_long_t, before 6.13) is the count itself;
 * f_ref (file_ref_t, 6.13+) is file_ref_read()'s encoding.
 */
uint64_t idd_file_refs(uint64_t raw, unsigned width, bool file_ref);
/* The file type of an i_mode, from the one table of types (S_IFMT). */
enum inodedump_inode_type idd_mode_type(unsigned mode);
/* "regular", ..., "invalid"; NULL for a value outside the enum. */
const char *idd_inode_type_name(enum inodedump_inode_type type);
/* The type whose name is name[0..len), as --type spells it. */
bool idd_inode_type_parse(const char *name, size_t len,
			  enum inodedump_inode_type *out);
const char *idd_mode_type_name(unsigned mode); /* name of idd_mode_type() */
void idd_mode_string(unsigned mode, char out[11]); /* "-rwsr-xr-x" */

/* ---- the slab caches holding inodes (inode_caches.c, .def) ---- */
struct idd_inode_cache {
	const char *cache, *fs, *type, *members, *unit;
};
/* The row of the inode cache so named, or NULL when it holds no inodes. */
const struct idd_inode_cache *idd_inode_cache_find(const char *name);

#endif
