// SPDX-License-Identifier: LGPL-2.1-or-later
/* The slab caches that hold inodes (inode_caches.def), looked up by name. */
#include <stddef.h>
#include <string.h>

#include "kernel/vfs.h"

static const struct idd_inode_cache caches[] = {
#define INODE_CACHE(c, f, t, m, u) { c, f, t, m, u },
#include "kernel/inode_caches.def"
#undef INODE_CACHE
};

const struct idd_inode_cache *idd_inode_cache_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(caches) / sizeof(caches[0]); i++)
		if (!strcmp(caches[i].cache, name))
			return &caches[i];
	return NULL;
}
