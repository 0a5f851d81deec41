// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A filesystem's derived values (what stat(2)/readlink(2) would show) and
 * its rows by key: what the per-filesystem derivations (fs_stat.c,
 * fs_overlay.c) share, below them both.
 */
#include <string.h>

#include "decode/fs.h"
#include "decode/rows.h"

const struct idd_fs_value *idd_fs_value(const struct inodedump_inode *ino,
					const char *key)
{
	for (size_t i = 0; i < ino->fs.n; i++)
		if (!strcmp(ino->fs.v[i].row->key, key))
			return ino->fs.v[i].state == IDD_OK ? &ino->fs.v[i]
							     : NULL;
	return NULL;
}

static struct idd_fs_derived *derived_slot(struct inodedump_inode *ino,
					   const char *key, const char *how)
{
	struct idd_fs_derived *d;

	if (ino->fs.nd >= IDD_FS_MAX_DERIVED)
		return NULL;
	d = &ino->fs.d[ino->fs.nd++];
	memset(d, 0, sizeof(*d));
	d->key = key;
	d->how = how;
	return d;
}

struct inodedump_error *idd_fs_derive_num(struct inodedump_inode *ino,
					  const char *key, int64_t v,
					  const char *vfs_key, int64_t vfs,
					  const char *how)
{
	struct idd_fs_derived *d = derived_slot(ino, key, how);

	if (d) {
		d->v = v;
		d->vfs_key = vfs_key;
		d->vfs = vfs;
	}
	return NULL;
}

struct inodedump_error *idd_fs_derive_dev(struct inodedump_inode *ino,
					  const char *key, uint64_t dev,
					  const char *vfs_key, uint64_t vfs,
					  const char *how)
{
	struct idd_fs_derived *d = derived_slot(ino, key, how);

	if (d) {
		d->is_dev = true;
		d->v = (int64_t)dev;
		d->vfs_key = vfs_key;
		d->vfs = (int64_t)vfs;
	}
	return NULL;
}

struct inodedump_error *idd_fs_derive_str(struct inodedump_inode *ino,
					  const char *key, const char *s,
					  size_t len, const char *how)
{
	struct idd_fs_derived *d = derived_slot(ino, key, how);

	if (!d)
		return NULL;
	d->is_str = true;
	d->s = idd_arena_strndup(&ino->arena, s, len);
	return d->s ? NULL : idd_nomem();
}
