// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every allocated object of the caches that hold inodes, found from the
 * memory map rather than from any list: a sweep whose lists broke on a
 * page the dump's writer dropped (a superblock in kmalloc-2k, an inode on
 * s_inodes) still reaches every inode whose own bytes are there. SLUB
 * keeps no list of full slabs, so the slabs are found by their struct
 * pages (pages.c), each slab's objects told allocated or free by its
 * freelist and the CPUs' freelists and sheaves (slab_free.c), and each
 * allocated object's inode handed over with its i_sb. Slabs whose memory
 * is not in the dump are counted, with the objects their struct slab
 * says are in use: inodes no sweep can read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/slab_internal.h"

#define MAX_CACHES 256 /* distinct caches a walk remembers */

struct seen_cache {
	uint64_t addr;
	bool inodes;	       /* a cache of inodes, offset known */
	uint64_t inode_offset;
	struct cache_info c;
	struct idd_visited free; /* free outside the slabs' freelists */
	bool free_read;
	size_t unread; /* allocated objects not in the dump */
	/* a cache of inodes whose inode offset no list nor type gave yet */
	const struct idd_inode_cache *probe;
	bool probed;
};

struct slab_walk {
	struct inodedump *id;
	struct slab_layout *l;
	const struct idd_member *i_sb;
	idd_slab_inode_fn fn;
	void *arg;
	struct idd_slab_sweep_stats *stats;
	const uint64_t *known; /* inodes lists reached (to learn offsets) */
	size_t nknown;
	struct seen_cache *caches;
	size_t ncaches;
	struct inodedump_error *err; /* no memory: the walk stops */
};

static bool collect(uint64_t obj, const char *where, void *arg)
{
	struct idd_visited *set = arg;
	bool again;
	struct inodedump_error *err;

	(void)where;
	err = idd_visit(set, obj, &again);
	inodedump_error_free(err);
	return false;
}

/*
 * A cache of inodes whose struct this kernel's types do not give (a
 * module's BTF left out of a filtered dump): where the inode is, learned
 * from an inode a list reached that lies in one of its objects.
 */
static bool learn_offset(struct slab_walk *w, struct seen_cache *sc)
{
	for (size_t i = 0; i < w->nknown; i++) {
		struct idd_slab_obj o;

		if (idd_slab_object(w->id, w->known[i], IDD_SLAB_NO_TYPES, &o))
			return false; /* no memory: left unknown */
		if (o.in_slab && o.in_object && o.cache == sc->addr) {
			sc->inode_offset = o.offset;
			sc->inodes = true;
			w->stats->caches++;
			w->stats->caches_learned++;
			idd_slab_obj_clear(&o);
			return true;
		}
		idd_slab_obj_clear(&o);
	}
	return false;
}

/* The cache at addr, looked at once: is it one of inodes? */
static struct seen_cache *cache_of(struct slab_walk *w, uint64_t addr)
{
	struct seen_cache *sc;
	struct inodedump_error *err;
	const struct idd_inode_cache *ic;
	char *why = NULL, type[48];

	for (size_t i = 0; i < w->ncaches; i++)
		if (w->caches[i].addr == addr)
			return &w->caches[i];
	if (w->ncaches == MAX_CACHES)
		return NULL;
	sc = &w->caches[w->ncaches++];
	memset(sc, 0, sizeof(*sc));
	sc->addr = addr;
	err = idd_slab_read_cache(w->id, w->l, addr, &sc->c);
	if (err) {
		inodedump_error_free(err);
		return sc;
	}
	if (sc->c.name_why) {
		/* its name is not in the dump: a list's inode in it says */
		free(sc->c.name_why);
		sc->c.name_why = NULL;
		snprintf(sc->c.name, sizeof(sc->c.name), "kmem_cache 0x%" PRIx64,
			 addr);
		if (!learn_offset(w, sc))
			w->stats->caches_unnamed++;
		return sc;
	}
	ic = idd_inode_cache_find(sc->c.name);
	/*
	 * Learned from an inode a list reached first: a module's struct from
	 * the types would parse the whole BTF (~100 ms, ~130 MB on 7.3).
	 */
	if (!ic || learn_offset(w, sc))
		return sc;
	if (idd_slab_inode_offset(w->id, ic, &sc->inode_offset, type, &why)) {
		sc->inodes = true;
		w->stats->caches++;
	} else if (ic->fs) {
		sc->probe = ic; /* its first allocated object will say */
	} else {
		w->stats->caches_no_offset++;
	}
	free(why);
	return sc;
}

/* Objects of a cache free outside their slabs: once per cache. */
static void cpu_free(struct slab_walk *w, struct seen_cache *sc)
{
	struct unread u = { 0 };

	if (sc->free_read)
		return;
	sc->free_read = true;
	idd_slab_walk_cpus(w->id, w->l, &sc->c, 0, collect, &sc->free, &u);
	idd_slab_walk_barns(w->id, w->l, &sc->c, collect, &sc->free, &u);
	if (u.unsure)
		w->stats->unsure_caches++;
	free(u.text);
}

/*
 * A cache of inodes no list reached and no type describes (a module's,
 * its BTF dropped): where its objects hold the inode, from the first
 * allocated object of its first slab read whole: the offset, in steps of
 * 8, where an inode of the cache's filesystem is (its i_sb a superblock
 * whose s_type is that filesystem's).
 */
static void probe_offset(struct slab_walk *w, struct seen_cache *sc,
			 uint64_t page, struct slab_info *s)
{
	struct idd_visited free_set = { 0 };
	struct unread u = { 0 };
	uint64_t base;
	struct inodedump_error *err = idd_pages_slab_base(w->id, page, &base);

	if (err) {
		inodedump_error_free(err);
		return;
	}
	sc->probed = true;
	s->base = base + sc->c.pad;
	cpu_free(w, sc);
	idd_slab_walk_freelist(w->id, w->l, &sc->c, s, s->freelist, "", collect,
			       &free_set, &u);
	for (uint32_t i = 0; !u.unsure && i < s->objects && !sc->inodes; i++) {
		uint64_t obj = s->base + (uint64_t)i * sc->c.size;

		if (idd_visited_has(&free_set, obj) || idd_visited_has(&sc->free, obj))
			continue;
		for (uint64_t off = 0; off + 64 <= sc->c.object_size; off += 8)
			if (idd_slab_inode_of_fs(w->id, obj + off, sc->probe->fs)) {
				sc->inode_offset = off;
				sc->inodes = true;
				w->stats->caches++;
				w->stats->caches_learned++;
				break;
			}
		break; /* one object says it, or none will */
	}
	if (!sc->inodes)
		sc->probed = false; /* the next slab may be whole */
	free(u.text);
	idd_visited_free(&free_set);
}

static bool one_slab(uint64_t page, uint64_t pfn, void *arg)
{
	struct slab_walk *w = arg;
	struct slab_info s = { 0 };
	struct seen_cache *sc;
	struct idd_visited free_set = { 0 };
	struct unread u = { 0 };
	uint64_t cache, base;
	struct inodedump_error *err;

	(void)pfn;
	err = idd_slab_read_slab(w->id, w->l, page, &cache, &s);
	if (err) {
		inodedump_error_free(err);
		return true;
	}
	sc = cache_of(w, cache);
	if (sc && sc->probe && !sc->probed)
		probe_offset(w, sc, page, &s);
	if (!sc || !sc->inodes)
		return true;
	w->stats->slabs++;
	if ((err = idd_pages_slab_base(w->id, page, &base))) {
		inodedump_error_free(err);
		return true;
	}
	s.base = base + sc->c.pad;
	cpu_free(w, sc);
	idd_slab_walk_freelist(w->id, w->l, &sc->c, &s, s.freelist, "",
			       collect, &free_set, &u);
	if (u.unsure) {
		/* the slab's memory is not in the dump (or is damaged) */
		w->stats->slabs_unread++;
		/* in use, as its struct slab says (a CPU's: all of them) */
		w->stats->objects_unread += s.inuse ? s.inuse : s.objects;
		sc->unread += s.inuse ? s.inuse : s.objects;
		free(u.text);
		idd_visited_free(&free_set);
		return true;
	}
	for (uint32_t i = 0; i < s.objects; i++) {
		uint64_t obj = s.base + (uint64_t)i * sc->c.size, sb;

		if (idd_visited_has(&free_set, obj) ||
		    idd_visited_has(&sc->free, obj))
			continue;
		err = idd_target_read_u64(w->id->target,
					  obj + sc->inode_offset +
						  w->i_sb->offset,
					  &sb);
		if (err) {
			inodedump_error_free(err);
			w->stats->objects_unread++;
			sc->unread++;
			continue;
		}
		w->stats->objects++;
		if (!w->fn(obj + sc->inode_offset, sb, w->arg)) {
			w->err = idd_nomem();
			break;
		}
	}
	idd_visited_free(&free_set);
	return !w->err;
}

struct inodedump_error *idd_slab_each_inode(struct inodedump *id,
					    const struct idd_member *i_sb,
					    const uint64_t *known, size_t nknown,
					    idd_slab_inode_fn fn, void *arg,
					    struct idd_slab_sweep_stats *stats)
{
	struct slab_walk w = { id, idd_slab_layout(id), i_sb, fn, arg, stats,
			       known, nknown, NULL, 0, NULL };
	struct inodedump_error *err;
	bool walked;

	memset(stats, 0, sizeof(*stats));
	if (!w.l)
		return idd_nomem();
	if (!w.l->usable)
		return idd_error(INODEDUMP_ERR_TYPE, "the slab allocator cannot "
				 "be read: %s", w.l->why_not);
	w.caches = calloc(MAX_CACHES, sizeof(*w.caches));
	if (!w.caches)
		return idd_nomem();
	walked = idd_pages_each_slab(id, one_slab, &w, &stats->memmap_unread,
				     &stats->memmap_error);
	for (size_t i = 0; i < w.ncaches; i++) {
		char *more;

		if (w.caches[i].probe && !w.caches[i].inodes)
			stats->caches_no_offset++;

		idd_visited_free(&w.caches[i].free);
		if (!w.caches[i].unread || w.err)
			continue;
		more = idd_strdup_printf("%s%s%s %zu",
					 stats->unread_by_cache
						 ? stats->unread_by_cache
						 : "",
					 stats->unread_by_cache ? ", " : "",
					 w.caches[i].c.name, w.caches[i].unread);
		if (!more)
			w.err = idd_nomem();
		free(stats->unread_by_cache);
		stats->unread_by_cache = more;
	}
	free(w.caches);
	if (w.err)
		return w.err;
	if (!walked) {
		err = idd_error(INODEDUMP_ERR_TYPE, "this kernel's struct pages "
				"cannot be walked for slabs%s%s",
				stats->memmap_error ? ": " : "",
				stats->memmap_error ? stats->memmap_error : "");
		free(stats->memmap_error);
		stats->memmap_error = NULL;
		return err;
	}
	return NULL;
}
