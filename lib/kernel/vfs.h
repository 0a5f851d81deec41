/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernel model: versioned VFS flag tables and mode decoding. */
#ifndef IDD_KERNEL_VFS_H
#define IDD_KERNEL_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
};

/* IOP_* and S_* flags this kernel knows, from versioned tables. */
size_t idd_vfs_iop_flags(const struct idd_vfs_evidence *ev,
			 struct idd_flag *out, size_t max);
size_t idd_vfs_inode_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max);
size_t idd_vfs_state_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max);
/* "IOP_LOOKUP|IOP_XATTR|0x100" style list into a malloc'd NULL-ended array. */
char **idd_flag_names(const struct idd_flag *table, size_t n, uint64_t value);
const char *idd_mode_type_name(unsigned mode); /* "regular", ..., "invalid" */
void idd_mode_string(unsigned mode, char out[11]); /* "-rwsr-xr-x" */

#endif
