/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: what slab.c (one object), slab_free.c (the free objects:
 * freelists, sheaves) and slab_sweep.c (every slab of the inode caches)
 * share. Not for the other files.
 */
#ifndef IDD_DECODE_SLAB_INTERNAL_H
#define IDD_DECODE_SLAB_INTERNAL_H

#include "decode/slab.h"

#define SLAB_CU "mm/slub.c"
#define MAX_SHEAF 4096 /* objects in one sheaf we believe */
#define MAX_BARN 4096  /* full sheaves in one barn we walk */

struct slab_layout {
	bool usable;
	const char *why_not;
	/* struct slab (struct page before 5.17) */
	struct idd_member s_cache, s_freelist, s_objects, s_inuse, s_frozen;
	uint64_t slab_bytes;
	/* struct kmem_cache */
	struct idd_member c_name, c_kobj_name, c_ctor, c_size, c_object_size, c_offset, c_random,
		c_pad, c_cpu_slab, c_cpu_sheaves, c_node, c_per_node;
	uint64_t per_node_bytes;
	uint64_t cache_bytes; /* the read that covers the members above */
	struct idd_member pn_barn, n_barn;
	/* struct kmem_cache_cpu */
	struct idd_member cc_freelist, cc_slab;
	/* sheaves: slub_percpu_sheaves, slab_sheaf, node_barn */
	struct idd_member pcs_main, pcs_spare, sh_size, sh_objects,
		sh_barn_list, barn_full;
	uint64_t per_cpu_offset, online_mask;
	uint32_t nr_cpus, nr_nodes;
	/*
	 * The buddy allocator's largest block in bytes (VMCOREINFO's
	 * LENGTH(zone.free_area): its orders), no slab larger; 0 not known.
	 */
	uint64_t max_block;
	/*
	 * Why the CPUs' slabs cannot be read (no __per_cpu_offset in a
	 * kallsyms of text symbols only), NULL when they can.
	 */
	const char *percpu_why;
	int swab; /* -1: not known yet */
	bool cache_in_page; /* before 5.17: struct page holds the slab */
	char *describe;	    /* INODEDUMP_FACT_SLAB, made on first ask */
	/* inode.i_sb, super_block.s_type, file_system_type.name (-1: not yet) */
	int fs_of_inode; /* 1: found, 0: this kernel's types lack one */
	struct idd_member i_sb, s_type, fs_name;
	struct {		/* inode offsets asked (a type search is slow) */
		const struct idd_inode_cache *ic;
		bool known;
		uint64_t offset;
		char type[48];
		char *why;
	} inode_at[16];
	size_t n_inode_at;
};

struct cache_info {
	uint64_t addr, size, object_size, offset, random, pad, cpu_slab,
		cpu_sheaves, ctor;
	bool hardened;
	char name[64];
	char *name_why; /* the name could not be read: why (malloc'd) */
};

struct slab_info {
	uint64_t addr, base, freelist;
	uint32_t objects, inuse; /* inuse: 0 where this kernel has none */
	bool frozen; /* a CPU's active slab (SLUB's frozen bit) */
};

/*
 * What was not read: said (o->unknown), and for a freelist or a sheaf
 * (unsure) leaving allocated-or-free unknown unless found free.
 */
struct unread {
	char *text;
	bool unsure;
};

/* A free object met: true stops the walk (the one looked for). */
typedef bool (*free_fn)(uint64_t obj, const char *where, void *arg);

/* slab.c: the layout, looked up on first use; NULL: no memory. */
struct slab_layout *idd_slab_layout(struct inodedump *id);
/* slab.c: a kmem_cache as c; an error when it cannot be one. */
struct inodedump_error *idd_slab_read_cache(struct inodedump *id,
					    const struct slab_layout *l,
					    uint64_t cache,
					    struct cache_info *c);

/* slab.c: is there an inode of filesystem fs at addr (its i_sb's s_type)? */
bool idd_slab_inode_of_fs(struct inodedump *id, uint64_t addr, const char *fs);

/* slab_free.c: why in u (unsure: a freelist or sheaf was not read). */
void idd_slab_unread_add(struct unread *u, bool unsure, const char *why);
/* slab_free.c: the struct slab (page) at slab: its cache and fields. */
struct inodedump_error *idd_slab_read_slab(struct inodedump *id,
					   const struct slab_layout *l,
					   uint64_t slab, uint64_t *cache,
					   struct slab_info *s);
/*
 * slab_free.c: fn on each free object: of one freelist from first (of
 * slab s); the CPUs' (only slab's freelist when slab is not 0, and their
 * sheaves); the barns' full sheaves. True when fn stopped the walk.
 */
bool idd_slab_walk_freelist(struct inodedump *id, struct slab_layout *l,
			    const struct cache_info *c,
			    const struct slab_info *s, uint64_t first,
			    const char *where, free_fn fn, void *arg,
			    struct unread *u);
bool idd_slab_walk_cpus(struct inodedump *id, struct slab_layout *l,
			const struct cache_info *c, uint64_t slab, free_fn fn,
			void *arg, struct unread *u);
bool idd_slab_walk_barns(struct inodedump *id, struct slab_layout *l,
			 const struct cache_info *c, free_fn fn, void *arg,
			 struct unread *u);

#endif
