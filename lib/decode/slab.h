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
	uint64_t ctor_addr;	/* name unread: its constructor, */
	char *ctor;		/* named by the caller (what.c) */
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
enum {
	/*
	 * Where an inode cache's object holds its inode only when addr is
	 * that inode (its i_sb a superblock of the cache's filesystem): no
	 * type lookups (a module's struct costs a parse of the whole BTF).
	 */
	IDD_SLAB_NO_TYPES = 1 << 0,
};
struct inodedump_error *idd_slab_object(struct inodedump *id, uint64_t addr,
					unsigned int flags,
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

/*
 * Where ic's inodes are in its struct (inode_offset's answer, not
 * remembered), with the struct and the BTF to look its members up in
 * (*in_btf; NULL: the session's types). module_first: the filesystem is a
 * module, so a DWARF session asks the modules' BTF before vmlinux's units.
 * *read_failed: the types are not absent but could not be read (damage).
 */
bool idd_slab_inode_place(struct inodedump *id,
			  const struct idd_inode_cache *ic, bool module_first,
			  uint64_t *offset, char type[48], struct idd_struct *s,
			  struct idd_btf **in_btf, bool *read_failed,
			  char **why);
void idd_slab_layout_free(struct slab_layout *l);
/* INODEDUMP_FACT_SLAB: what this kernel's slab allocator is, as read. */
const char *idd_slab_describe(struct inodedump *id);

/* ---- every allocated inode of the inode caches (slab_sweep.c) ---- */
/* An inode and its i_sb; false: out of memory (the walk stops). */
typedef bool (*idd_slab_inode_fn)(uint64_t inode, uint64_t i_sb, void *arg);
struct idd_slab_sweep_stats {
	size_t caches;	       /* caches of inodes walked */
	size_t caches_learned; /* of which the inode's offset was learned */
	size_t caches_no_offset; /* of inodes, but where in the object not known */
	size_t caches_unnamed; /* caches whose name is not in the dump */
	size_t unsure_caches;  /* CPU freelists/sheaves not read in full */
	size_t slabs, slabs_unread;  /* of those caches; memory not in dump */
	size_t objects;	       /* allocated objects handed over */
	size_t objects_unread; /* allocated, but not in the dump */
	uint64_t memmap_unread; /* pages whose struct page is not there */
	char *memmap_error;	/* the first read of it that failed (free it) */
	char *unread_by_cache;	/* "cache N, ...": objects_unread (free it) */
};
/*
 * fn on every allocated object of every cache of inodes (i_sb: where an
 * inode keeps it), in the order of the memory map. known: inodes a list
 * reached, where a cache whose struct the types lack learns where its
 * objects hold the inode.
 */
struct inodedump_error *idd_slab_each_inode(struct inodedump *id,
					    const struct idd_member *i_sb,
					    const uint64_t *known, size_t nknown,
					    idd_slab_inode_fn fn, void *arg,
					    struct idd_slab_sweep_stats *stats);

#endif
