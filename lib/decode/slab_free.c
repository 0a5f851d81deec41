// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The free objects of a SLUB cache, walked: a slab's freelist, a CPU's
 * freelist (kmem_cache_cpu, before 7.0), a CPU's main and spare sheaves
 * and the barns' full sheaves (6.18+). Freelist next pointers sit at
 * kmem_cache.offset in each free object, hardened
 * (CONFIG_SLAB_FREELIST_HARDENED: kmem_cache.random exists) as
 * ptr ^ random ^ swab(&next) since 5.7, ptr ^ random ^ &next before;
 * which one is told by the first pointer that leads into its slab. A walk
 * that breaks (a filtered page, a pointer out of its slab, a cycle) says
 * why and marks the answer unsure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/slab_internal.h"

void idd_slab_unread_add(struct unread *u, bool unsure, const char *why)
{
	char *joined;

	u->unsure |= unsure;
	if (!u->text) {
		u->text = strdup(why);
		return;
	}
	joined = idd_strdup_printf("%s; %s", u->text, why);
	if (joined) {
		free(u->text);
		u->text = joined;
	}
}

/* The next free object after obj on a freelist (hardened or not). */
static bool slab_next_free(struct inodedump *id, struct slab_layout *l,
			   const struct cache_info *c,
			   const struct slab_info *s, uint64_t obj,
			   uint64_t *next, char *why, size_t len)
{
	uint64_t at = obj + c->offset, raw, plain, swab;
	struct inodedump_error *err = idd_target_read_u64(id->target, at, &raw);

	if (err) {
		snprintf(why, len, "free pointer of object 0x%" PRIx64 ": %s",
			 obj, inodedump_error_message(err));
		inodedump_error_free(err);
		return false;
	}
	if (!c->hardened) {
		*next = raw;
		return true;
	}
	plain = raw ^ c->random ^ at;
	swab = raw ^ c->random ^ __builtin_bswap64(at);
	if (l->swab < 0) {
		uint64_t end = s->base + (uint64_t)s->objects * c->size;
		bool in_s = !swab || (swab >= s->base && swab < end);
		bool in_p = !plain || (plain >= s->base && plain < end);

		if (in_s != in_p && (swab || plain))
			l->swab = in_s;
		*next = in_s ? swab : plain;
		return true;
	}
	*next = l->swab ? swab : plain;
	return true;
}

/*
 * Walk a freelist from first (objects of slab s), fn on each: true when
 * fn stopped it. A freelist that breaks before its end is said in u.
 */
bool idd_slab_walk_freelist(struct inodedump *id, struct slab_layout *l,
			    const struct cache_info *c,
			    const struct slab_info *s, uint64_t first,
			    const char *where, free_fn fn, void *arg,
			    struct unread *u)
{
	uint64_t p = first, end = s->base + (uint64_t)s->objects * c->size;
	char why[320];

	for (uint32_t n = 0; p; n++) {
		if (n > s->objects) {
			snprintf(why, sizeof(why),
				 "the freelist of slab 0x%" PRIx64
				 " has more entries than the slab has "
				 "objects (%" PRIu32 "): a cycle",
				 s->addr, s->objects);
			idd_slab_unread_add(u, true, why);
			return false;
		}
		if (p < s->base || p >= end || (p - s->base) % c->size) {
			snprintf(why, sizeof(why),
				 "the freelist of slab 0x%" PRIx64
				 " leads to 0x%" PRIx64 ", no object of "
				 "that slab: a corrupted free pointer",
				 s->addr, p);
			idd_slab_unread_add(u, true, why);
			return false;
		}
		if (fn(p, where, arg))
			return true;
		if (!slab_next_free(id, l, c, s, p, &p, why, sizeof(why))) {
			idd_slab_unread_add(u, true, why);
			return false;
		}
	}
	return false;
}

/* fn on each object of a sheaf: true when fn stopped. */
static bool slab_walk_sheaf(struct inodedump *id, const struct slab_layout *l,
			    uint64_t sheaf, const char *where, free_fn fn,
			    void *arg, struct unread *u)
{
	uint64_t size = 0, p;
	struct inodedump_error *err;

	err = idd_target_read_uint(id->target, sheaf + l->sh_size.offset,
				   l->sh_size.size <= 8 ? l->sh_size.size : 8,
				   &size);
	if (!err && size > MAX_SHEAF)
		err = idd_error(INODEDUMP_ERR_NOT_INODE,
				"a sheaf of %" PRIu64 " objects", size);
	for (uint64_t i = 0; !err && i < size; i++) {
		err = idd_target_read_u64(
			id->target, sheaf + l->sh_objects.offset + 8 * i, &p);
		if (!err && fn(p, where, arg))
			return true;
	}
	if (err) {
		char why[256];

		snprintf(why, sizeof(why), "sheaf 0x%" PRIx64 ": %s", sheaf,
			 inodedump_error_message(err));
		idd_slab_unread_add(u, true, why);
		inodedump_error_free(err);
	}
	return false;
}

static bool slab_cpu_online(struct inodedump *id, const struct slab_layout *l,
			    uint32_t cpu)
{
	uint64_t word;
	struct inodedump_error *err;

	if (!l->online_mask)
		return true;
	err = idd_target_read_u64(id->target, l->online_mask + 8 * (cpu / 64),
				  &word);
	if (err) {
		inodedump_error_free(err);
		return true;
	}
	return word >> (cpu % 64) & 1;
}

static bool slab_percpu_addr(struct inodedump *id, const struct slab_layout *l,
			     uint64_t ptr, uint32_t cpu, uint64_t *out)
{
	uint64_t off;
	struct inodedump_error *err;

	if (!l->per_cpu_offset) {
		*out = ptr; /* a kernel without SMP */
		return cpu == 0;
	}
	err = idd_target_read_u64(id->target, l->per_cpu_offset + 8 * cpu,
				  &off);
	if (err) {
		inodedump_error_free(err);
		return false;
	}
	*out = ptr + off;
	return true;
}

/* The slab at struct slab (page) address slab: its fields; its memory. */
struct inodedump_error *idd_slab_read_slab(struct inodedump *id,
					   const struct slab_layout *l,
					   uint64_t slab, uint64_t *cache,
					   struct slab_info *s)
{
	uint8_t buf[256];
	struct inodedump_error *err;

	if (l->slab_bytes > sizeof(buf))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "struct slab of %" PRIu64 " bytes",
				 l->slab_bytes);
	err = idd_target_read(id->target, slab, buf, l->slab_bytes);
	if (err)
		return err;
	s->addr = slab;
	*cache = idd_member_uval(&l->s_cache, buf);
	s->freelist = idd_member_uval(&l->s_freelist, buf);
	s->objects = (uint32_t)idd_member_uval(&l->s_objects, buf);
	s->frozen = !l->s_frozen.present || idd_member_uval(&l->s_frozen, buf);
	if (l->s_inuse.present)
		s->inuse = (uint32_t)idd_member_uval(&l->s_inuse, buf);
	return NULL;
}

/*
 * The CPUs' free objects: each CPU's freelist (of its current slab; only
 * slab's when slab is not 0) and its main and spare sheaves. fn on each:
 * true when fn stopped.
 */
bool idd_slab_walk_cpus(struct inodedump *id, struct slab_layout *l,
			const struct cache_info *c, uint64_t slab, free_fn fn,
			void *arg, struct unread *u)
{
	char why[320], where[64];

	if (l->percpu_why) {
		idd_slab_unread_add(u, true, l->percpu_why);
		return false;
	}
	for (uint32_t cpu = 0; cpu < l->nr_cpus; cpu++) {
		uint64_t pc, v, fl, cache = 0;
		struct slab_info s = {0};
		struct inodedump_error *err = NULL;

		if (!slab_cpu_online(id, l, cpu))
			continue;
		snprintf(where, sizeof(where), "on CPU %" PRIu32 "'s freelist",
			 cpu);
		if (c->cpu_slab && l->cc_slab.present &&
		    slab_percpu_addr(id, l, c->cpu_slab, cpu, &pc) &&
		    !(err = idd_target_read_u64(id->target,
						pc + l->cc_slab.offset, &v)) &&
		    v && (!slab || v == slab) &&
		    !(err = idd_target_read_u64(
			      id->target, pc + l->cc_freelist.offset, &fl)) &&
		    fl && !(err = idd_slab_read_slab(id, l, v, &cache, &s)) &&
		    cache == c->addr &&
		    !(err = idd_pages_slab_base(id, v, &s.base))) {
			s.base += c->pad;
			if (idd_slab_walk_freelist(id, l, c, &s, fl, where, fn,
						   arg, u))
				return true;
		}
		if (err) {
			snprintf(why, sizeof(why),
				 "CPU %" PRIu32 "'s slab "
				 "state: %s",
				 cpu, inodedump_error_message(err));
			idd_slab_unread_add(u, true, why);
			inodedump_error_free(err);
			err = NULL;
		}
		if (!c->cpu_sheaves || !l->pcs_main.present ||
		    !l->sh_objects.present ||
		    !slab_percpu_addr(id, l, c->cpu_sheaves, cpu, &pc))
			continue;
		for (int k = 0; k < 2; k++) {
			const struct idd_member *m =
				k ? &l->pcs_spare : &l->pcs_main;

			if (!m->present)
				continue;
			err = idd_target_read_u64(id->target, pc + m->offset,
						  &v);
			if (err) {
				snprintf(why, sizeof(why),
					 "CPU %" PRIu32 "'s sheaves: %s", cpu,
					 inodedump_error_message(err));
				idd_slab_unread_add(u, true, why);
				inodedump_error_free(err);
				continue;
			}
			snprintf(where, sizeof(where),
				 "in CPU %" PRIu32 "'s %s sheaf", cpu,
				 k ? "spare" : "main");
			if (v && slab_walk_sheaf(id, l, v, where, fn, arg, u))
				return true;
		}
	}
	return false;
}

/* The barns' full sheaves (6.18+): free objects held per node. */
bool idd_slab_walk_barns(struct inodedump *id, struct slab_layout *l,
			 const struct cache_info *c, free_fn fn, void *arg,
			 struct unread *u)
{
	if (!l->barn_full.present || !l->sh_barn_list.present ||
	    (!l->c_per_node.present && !l->c_node.present))
		return false;
	for (uint32_t n = 0; n < l->nr_nodes; n++) {
		uint64_t barn = 0, head, p;
		struct inodedump_error *err = NULL;
		char why[256], where[64];

		snprintf(where, sizeof(where),
			 "in a full sheaf of node %" PRIu32 "'s barn", n);
		if (l->c_per_node.present && l->pn_barn.present)
			err = idd_target_read_u64(
				id->target,
				c->addr + l->c_per_node.offset +
					n * l->per_node_bytes +
					l->pn_barn.offset,
				&barn);
		else if (l->c_node.present && l->n_barn.present &&
			 !(err = idd_target_read_u64(
				   id->target,
				   c->addr + l->c_node.offset + 8 * n, &p)) &&
			 p)
			err = idd_target_read_u64(id->target,
						  p + l->n_barn.offset, &barn);
		else if (!err)
			continue; /* no barn for this node */
		if (!err && barn) {
			head = barn + l->barn_full.offset;
			err = idd_target_read_u64(id->target, head, &p);
			for (unsigned k = 0; !err && p != head; k++) {
				if (k >= MAX_BARN) {
					err = idd_error(INODEDUMP_ERR_NOT_INODE,
							"more than %u full "
							"sheaves: a cycle",
							MAX_BARN);
					break;
				}
				if (slab_walk_sheaf(id, l,
						    p - l->sh_barn_list.offset,
						    where, fn, arg, u))
					return true;
				err = idd_target_read_u64(id->target, p, &p);
			}
		}
		if (err) {
			snprintf(why, sizeof(why),
				 "node %" PRIu32 "'s barn: %s", n,
				 inodedump_error_message(err));
			idd_slab_unread_add(u, true, why);
			inodedump_error_free(err);
		}
	}
	return false;
}
