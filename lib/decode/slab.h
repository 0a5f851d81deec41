/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decode: what an address is in the slab allocator (slab.c). */
#ifndef IDD_DECODE_SLAB_H
#define IDD_DECODE_SLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/session.h"

/* What an address is, as the slab allocator sees it. */
struct idd_slab_obj {
	uint64_t addr;
	bool in_slab;		/* false: the rest but page is not set */
	uint64_t cache;		/* struct kmem_cache * */
	char name[64];		/* its name ("": unread, see unknown) */
	char *ctor;		/* name unread: its constructor's symbol */
	uint64_t object_size, size; /* the object, and its stride */
	uint64_t slab, base;	/* struct slab (or page) *, its first byte */
	uint32_t objects, index; /* objects in the slab, this one's */
	bool in_object;		/* false: in padding past/before objects */
	uint64_t start, offset; /* the object's first byte; addr - start */
	enum inodedump_slab_state state;
	char where[96];		/* free: which freelist or sheaf holds it */
	char *unknown;		/* state unknown or partial: what was not read */
	bool state_unsure;	/* a freelist or sheaf was not read in full */
	/* the cache holds inodes: */
	const struct idd_inode_cache *ic;
	char inode_type[48];	/* the struct holding the inode ("": unknown) */
	bool inode_known;	/* inode_offset is known */
	uint64_t inode_offset;	/* where the inode is in the object */
	char *inode_why;	/* why inode_offset is not known */
	char *page;		/* not in a slab: what the memory is */
};

/*
 * What addr is: in a slab object (which cache, which object, allocated or
 * free) or not (page set). An error only for no memory; whatever the dump
 * does not let one tell is said in the result. Free it with
 * idd_slab_obj_clear().
 */
struct inodedump_error *idd_slab_object(struct inodedump *id, uint64_t addr,
					struct idd_slab_obj *out);
void idd_slab_obj_clear(struct idd_slab_obj *o);

/* The public handle (inodedump_what()). */
struct inodedump_what {
	struct idd_slab_obj o;
};

/*
 * The inode cache's inode offset (types of this kernel), for a sweep over
 * a cache's slabs: false with *why when it cannot be known.
 */
bool idd_slab_inode_offset(struct inodedump *id,
			   const struct idd_inode_cache *ic, uint64_t *offset,
			   char type[48], char **why);

/* Every slab of cache: fn(slab, base, objects, arg); false stops. */
typedef bool (*idd_slab_fn)(uint64_t slab, uint64_t base, uint32_t objects,
			    void *arg);
struct inodedump_error *idd_slab_each(struct inodedump *id, uint64_t cache,
				     idd_slab_fn fn, void *arg);
void idd_slab_layout_free(struct slab_layout *l);

#endif
