// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * VFS knowledge that DWARF cannot give: the names of flags the kernel has
 * as #defines (IOP_*, S_*, and I_* before they became an enum), each with
 * the kernel versions that have it, and the decoding of i_mode.
 *
 * An entry applies when the kernel's version is in [since, until) or when
 * the type information shows the feature the flag belongs to (a backport).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernel/vfs.h"

enum evidence {
	NEEDS_VERSION,
	OR_LINKLEN, /* struct inode has i_linklen: IOP_CACHED_LINK exists */
	/* and struct inode has i_ctime_nsec, a member of its own (6.11+) */
	AND_CTIME_NSEC,
	/* the kernel has the functions that came with I_LRU_ISOLATING */
	OR_LRU_ISOLATING,
};

struct versioned_flag {
	const char *name;
	uint64_t value;
	uint32_t since;
	uint32_t until; /* 0: still there */
	enum evidence evidence;
};

#define V IDD_KVER

static const struct versioned_flag iop_flags[] = {
	{ "IOP_FASTPERM", 0x0001, 0, 0, NEEDS_VERSION },
	{ "IOP_LOOKUP", 0x0002, 0, 0, NEEDS_VERSION },
	{ "IOP_NOFOLLOW", 0x0004, 0, 0, NEEDS_VERSION },
	{ "IOP_XATTR", 0x0008, V(4, 9, 0), 0, NEEDS_VERSION },
	{ "IOP_DEFAULT_READLINK", 0x0010, V(4, 10, 0), 0, NEEDS_VERSION },
	{ "IOP_MGTIME", 0x0020, V(6, 13, 0), 0, NEEDS_VERSION },
	/* "vfs: support caching symlink lengths in inodes" */
	{ "IOP_CACHED_LINK", 0x0040, V(6, 14, 0), 0, OR_LINKLEN },
	/*
	 * "fs: speed up path lookup with cheaper handling of MAY_EXEC"
	 * (Mateusz Guzik, v3 posted 2025-11-07, during 6.18-rc: merged for
	 * 6.19): fs/namei.c lookup_inode_permission_may_exec().
	 */
	{ "IOP_FASTPERM_MAY_EXEC", 0x0080, V(6, 19, 0), 0, NEEDS_VERSION },
	/*
	 * "fs: track the inode having file locks with a flag in ->i_opflags"
	 * (Mateusz Guzik, v4 posted 2025-12-03, after the 6.19 merge window
	 * opened: merged for 7.0); fs/locks.c locks_get_lock_context() sets
	 * it beside i_flctx. Debian's 7.3.4 fs.h has it.
	 */
	{ "IOP_FLCTX", 0x0100, V(7, 0, 0), 0, NEEDS_VERSION },
};

static const struct versioned_flag inode_flags[] = {
	{ "S_SYNC", 1 << 0, 0, 0, NEEDS_VERSION },
	{ "S_NOATIME", 1 << 1, 0, 0, NEEDS_VERSION },
	{ "S_APPEND", 1 << 2, 0, 0, NEEDS_VERSION },
	{ "S_IMMUTABLE", 1 << 3, 0, 0, NEEDS_VERSION },
	{ "S_DEAD", 1 << 4, 0, 0, NEEDS_VERSION },
	{ "S_NOQUOTA", 1 << 5, 0, 0, NEEDS_VERSION },
	{ "S_DIRSYNC", 1 << 6, 0, 0, NEEDS_VERSION },
	{ "S_NOCMTIME", 1 << 7, 0, 0, NEEDS_VERSION },
	{ "S_SWAPFILE", 1 << 8, 0, 0, NEEDS_VERSION },
	{ "S_PRIVATE", 1 << 9, 0, 0, NEEDS_VERSION },
	{ "S_IMA", 1 << 10, 0, 0, NEEDS_VERSION },
	{ "S_AUTOMOUNT", 1 << 11, 0, 0, NEEDS_VERSION },
	{ "S_NOSEC", 1 << 12, 0, 0, NEEDS_VERSION },
	{ "S_DAX", 1 << 13, V(4, 0, 0), 0, NEEDS_VERSION },
	{ "S_ENCRYPTED", 1 << 14, V(4, 14, 0), 0, NEEDS_VERSION },
	{ "S_CASEFOLD", 1 << 15, V(5, 2, 0), 0, NEEDS_VERSION },
	{ "S_VERITY", 1 << 16, V(5, 4, 0), 0, NEEDS_VERSION },
	{ "S_KERNEL_FILE", 1 << 17, V(5, 17, 0), 0, NEEDS_VERSION },
	/*
	 * "fs: add S_ANON_INODE" (Christian Brauner, 2025-04-21, a 6.15-rc
	 * fix after "anon_inode: use a proper mode internally"); 7.3's
	 * may_open() allows a typeless mode only with it (IS_ANON_FILE()).
	 */
	{ "S_ANON_INODE", 1 << 19, V(6, 15, 0), 0, NEEDS_VERSION },
};

/*
 * i_state bits. 6.12 moved I_NEW, I_SYNC and I_LRU_ISOLATING to the low
 * bits (wait_var_event addresses) and renumbered the rest; kernels where
 * i_state's type is an enum are decoded from DWARF instead.
 */
static const struct versioned_flag state_flags[] = {
	{ "I_DIRTY_SYNC", 1 << 0, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_DIRTY_DATASYNC", 1 << 1, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_DIRTY_PAGES", 1 << 2, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_NEW", 1 << 3, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_WILL_FREE", 1 << 4, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_FREEING", 1 << 5, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_CLEAR", 1 << 6, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_SYNC", 1 << 7, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_REFERENCED", 1 << 8, 0, V(6, 12, 0), NEEDS_VERSION },
	/*
	 * inode_dio_wait()'s bit (__I_DIO_WAKEUP 9: 5.10 to 6.11 have it,
	 * and kernels older than any read here) until "inode: remove
	 * __I_DIO_WAKEUP" (6.12) made it wait on i_dio_count itself.
	 */
	{ "I_DIO_WAKEUP", 1 << 9, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_LINKABLE", 1 << 10, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_DIRTY_TIME", 1 << 11, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_WB_SWITCH", 1 << 13, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_OVL_INUSE", 1 << 14, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_CREATING", 1 << 15, 0, V(6, 12, 0), NEEDS_VERSION },
	{ "I_DONTCACHE", 1 << 16, V(5, 9, 0), V(6, 12, 0), NEEDS_VERSION },
	{ "I_SYNC_QUEUED", 1 << 17, V(5, 9, 0), V(6, 12, 0), NEEDS_VERSION },
	{ "I_PINNING_FSCACHE_WB", 1 << 18, V(5, 17, 0), V(6, 9, 0), NEEDS_VERSION },
	{ "I_PINNING_NETFS_WB", 1 << 18, V(6, 9, 0), V(6, 12, 0), NEEDS_VERSION },
	/*
	 * "vfs: Don't evict inode under the inode lru traversing context"
	 * (6.11), backported to stable kernels (Debian's 5.10.262 has it):
	 * known there by its fs/inode.c functions (inode_pin_lru_isolating(),
	 * inode_wait_for_lru_isolating()), not by the version.
	 */
	{ "I_LRU_ISOLATING", 1 << 19, V(6, 11, 0), V(6, 12, 0), OR_LRU_ISOLATING },

	{ "I_NEW", 1 << 0, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_SYNC", 1 << 1, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_LRU_ISOLATING", 1 << 2, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_DIRTY_SYNC", 1 << 3, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_DIRTY_DATASYNC", 1 << 4, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_DIRTY_PAGES", 1 << 5, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_WILL_FREE", 1 << 6, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_FREEING", 1 << 7, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_CLEAR", 1 << 8, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_REFERENCED", 1 << 9, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_LINKABLE", 1 << 10, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_DIRTY_TIME", 1 << 11, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_WB_SWITCH", 1 << 12, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_OVL_INUSE", 1 << 13, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_CREATING", 1 << 14, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_DONTCACHE", 1 << 15, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_SYNC_QUEUED", 1 << 16, V(6, 12, 0), 0, NEEDS_VERSION },
	{ "I_PINNING_NETFS_WB", 1 << 17, V(6, 12, 0), 0, NEEDS_VERSION },
};

/*
 * Bits the kernel keeps in i_ctime_nsec beside the nanoseconds. Multigrain
 * timestamps (6.13, "fs: add infrastructure for multigrain timestamps";
 * the 6.12-rc version was reverted before 6.12, whose fs.h has no such
 * flag) mark a ctime that getattr has seen with bit 31 of the separate
 * u32 i_ctime_nsec: include/linux/fs.h, I_CTIME_QUERIED ((u32)BIT(31)),
 * masked by inode_get_ctime_nsec(). Only where i_ctime_nsec is a member
 * of its own: in a timespec64 the bit would be part of tv_nsec.
 */
static const struct versioned_flag ctime_nsec_flags[] = {
	{ "I_CTIME_QUERIED", 1u << 31, V(6, 13, 0), 0, AND_CTIME_NSEC },
};

#undef V

uint32_t idd_parse_release(const char *osrelease)
{
	unsigned a = 0, b = 0, c = 0;

	if (!osrelease || sscanf(osrelease, "%u.%u.%u", &a, &b, &c) < 2)
		return 0;
	if (c > 255)
		c = 255;
	return IDD_KVER(a, b, c);
}

static bool applies(const struct versioned_flag *f,
		    const struct idd_vfs_evidence *ev)
{
	if (f->evidence == OR_LINKLEN && ev->has_linklen)
		return true;
	if (f->evidence == OR_LRU_ISOLATING && ev->has_lru_isolating)
		return true;
	if (f->evidence == AND_CTIME_NSEC && !ev->has_ctime_nsec)
		return false;
	if (!ev->version)
		return f->until == 0; /* unknown version: assume the newest */
	return ev->version >= f->since && (!f->until || ev->version < f->until);
}

static size_t select_flags(const struct versioned_flag *table, size_t n,
			   const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max)
{
	size_t count = 0;

	for (size_t i = 0; i < n && count < max; i++) {
		if (!applies(&table[i], ev))
			continue;
		out[count].name = table[i].name;
		out[count].value = table[i].value;
		count++;
	}
	return count;
}

#define SELECT(table, ev, out, max)                                            \
	select_flags(table, sizeof(table) / sizeof(table[0]), ev, out, max)

size_t idd_vfs_iop_flags(const struct idd_vfs_evidence *ev,
			 struct idd_flag *out, size_t max)
{
	return SELECT(iop_flags, ev, out, max);
}

size_t idd_vfs_inode_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max)
{
	return SELECT(inode_flags, ev, out, max);
}

size_t idd_vfs_state_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max)
{
	return SELECT(state_flags, ev, out, max);
}

size_t idd_vfs_ctime_nsec_flags(const struct idd_vfs_evidence *ev,
				struct idd_flag *out, size_t max)
{
	return SELECT(ctime_nsec_flags, ev, out, max);
}

static bool flag_set(const struct idd_flag *f, uint64_t value)
{
	return f->value && (value & f->value) == f->value;
}

char **idd_flag_names(const struct idd_flag *table, size_t n, uint64_t value)
{
	size_t count = 0, bytes = 0;
	uint64_t rest = value;
	char hex[24] = "", **names, *to;

	for (size_t i = 0; i < n; i++) {
		if (!flag_set(&table[i], value))
			continue;
		count++;
		bytes += strlen(table[i].name) + 1;
		rest &= ~table[i].value;
	}
	/* Bits this kernel's table does not name stay visible. */
	if (rest) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)rest);
		count++;
		bytes += strlen(hex) + 1;
	}
	/* One block: the pointers, then the strings (a sweep's hot path). */
	names = malloc((count + 1) * sizeof(*names) + bytes);
	if (!names)
		return NULL;
	to = (char *)(names + count + 1);
	count = 0;
	for (size_t i = 0; i <= n; i++) {
		const char *name = i < n ? (flag_set(&table[i], value)
						    ? table[i].name : NULL)
					 : (hex[0] ? hex : NULL);
		size_t len;

		if (!name)
			continue;
		len = strlen(name) + 1;
		memcpy(to, name, len);
		names[count++] = to;
		to += len;
	}
	names[count] = NULL;
	return names;
}

/*
 * file_ref_t (include/linux/file_ref.h, 6.13: "fs: add file_ref") keeps
 * the count minus one: FILE_REF_ONEREF is 0, so one reference reads 0.
 * At or above FILE_REF_RELEASED (0xC000... on 64-bit, 0xC0000000 on
 * 32-bit: the top two bits) the file is released or dead, 0 references;
 * file_ref_read() returns c + 1 below that, the saturation zone included.
 * These are #defines in the header, not in the type information: the top
 * two bits of the counter, whatever its width.
 */
uint64_t idd_file_refs(uint64_t raw, unsigned width, bool file_ref)
{
	unsigned bits = width && width < 8 ? 8 * width : 64;
	uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	uint64_t released = UINT64_C(3) << (bits - 2);

	raw &= mask;
	if (!file_ref)
		return raw;
	return raw >= released ? 0 : raw + 1;
}

/*
 * The file types of i_mode (S_IFMT), written once: the public enum's order,
 * the name the JSON, the text view and the sweep's --type use, and the
 * letter of ls -l.
 */
static const struct {
	unsigned fmt; /* S_IFMT bits; 0 for "invalid" */
	const char *name;
	char letter;
} inode_types[INODEDUMP_INODE_TYPES] = {
	[INODEDUMP_INODE_REGULAR] = { 0100000, "regular", '-' },
	[INODEDUMP_INODE_DIRECTORY] = { 0040000, "directory", 'd' },
	[INODEDUMP_INODE_SYMLINK] = { 0120000, "symlink", 'l' },
	[INODEDUMP_INODE_FIFO] = { 0010000, "fifo", 'p' },
	[INODEDUMP_INODE_CHARDEV] = { 0020000, "chardev", 'c' },
	[INODEDUMP_INODE_BLOCKDEV] = { 0060000, "blockdev", 'b' },
	[INODEDUMP_INODE_SOCKET] = { 0140000, "socket", 's' },
	[INODEDUMP_INODE_INVALID] = { 0, "invalid", '?' },
};

enum inodedump_inode_type idd_mode_type(unsigned mode)
{
	for (unsigned i = 0; i < INODEDUMP_INODE_INVALID; i++)
		if ((mode & 0170000) == inode_types[i].fmt)
			return (enum inodedump_inode_type)i;
	return INODEDUMP_INODE_INVALID;
}

const char *idd_inode_type_name(enum inodedump_inode_type type)
{
	return (unsigned)type < INODEDUMP_INODE_TYPES ? inode_types[type].name
						      : NULL;
}

bool idd_inode_type_parse(const char *name, size_t len,
			  enum inodedump_inode_type *out)
{
	for (unsigned i = 0; i < INODEDUMP_INODE_TYPES; i++)
		if (strlen(inode_types[i].name) == len &&
		    !memcmp(inode_types[i].name, name, len)) {
			*out = (enum inodedump_inode_type)i;
			return true;
		}
	return false;
}

const char *idd_mode_type_name(unsigned mode)
{
	return inode_types[idd_mode_type(mode)].name;
}

void idd_mode_string(unsigned mode, char out[11])
{
	out[0] = inode_types[idd_mode_type(mode)].letter;
	out[1] = mode & 0400 ? 'r' : '-';
	out[2] = mode & 0200 ? 'w' : '-';
	out[3] = mode & 04000 ? (mode & 0100 ? 's' : 'S') : (mode & 0100 ? 'x' : '-');
	out[4] = mode & 040 ? 'r' : '-';
	out[5] = mode & 020 ? 'w' : '-';
	out[6] = mode & 02000 ? (mode & 010 ? 's' : 'S') : (mode & 010 ? 'x' : '-');
	out[7] = mode & 04 ? 'r' : '-';
	out[8] = mode & 02 ? 'w' : '-';
	out[9] = mode & 01000 ? (mode & 01 ? 't' : 'T') : (mode & 01 ? 'x' : '-');
	out[10] = '\0';
}
