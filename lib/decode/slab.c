// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What an address is in the slab allocator (SLUB): the kmem_cache and the
 * object holding it, and whether that object is allocated or free, read
 * from the dump with the layout of the kernel being read (struct slab, or
 * struct page before 5.17; kmem_cache; its per-CPU state: kmem_cache_cpu
 * freelists before 7.0, sheaves and barns from 6.18).
 *
 * An object is free when it is on its slab's freelist, on the freelist of
 * the CPU whose current slab it is in, or in a sheaf (a CPU's main or spare
 * one, or a full one in a node's barn); else allocated. The freelists'
 * next pointers sit at kmem_cache.offset in each free object, hardened
 * (CONFIG_SLAB_FREELIST_HARDENED: kmem_cache.random exists) as
 * ptr ^ random ^ swab(&next) since 5.7, ptr ^ random ^ &next before; which
 * one is told by the first pointer that leads into its slab. A freelist
 * that cannot be read in full (a filtered page, a pointer out of its slab,
 * a cycle) leaves the state unknown unless the object was already found
 * free, and says why.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "decode/memmap.h"
#include "decode/slab_internal.h"

static bool find(struct idd_types *types, const char *name,
		 struct idd_struct *s)
{
	struct inodedump_error *err = idd_types_struct_in(types, name, SLAB_CU, s);

	inodedump_error_free(err);
	return !err;
}

static void member(struct inodedump *id, const struct idd_struct *s,
		   const char *path, struct idd_member *m)
{
	idd_types_member(id->types, s, path, m);
}

static uint32_t read_u32_symbol(struct inodedump *id, const char *name,
				uint32_t dflt)
{
	uint64_t a, v;
	struct inodedump_error *err;

	if (!idd_symbols_address(id->syms, name, &a))
		return dflt;
	err = idd_target_read_uint(id->target, a, 4, &v);
	if (err) {
		inodedump_error_free(err);
		return dflt;
	}
	return (uint32_t)v;
}

/*
 * A struct the kmem_cache member m points to (or, array: NULL), else the
 * one named, looked for only where a member says this kernel has it: a
 * missing struct would cost a walk of every unit of vmlinux's DWARF.
 */
static bool pointee(struct inodedump *id, const struct idd_member *m,
		    struct idd_struct *s)
{
	struct inodedump_error *err;

	if (!m->present || m->kind != IDD_KIND_PTR)
		return false;
	err = idd_types_pointee_struct(id->types, m, s);
	inodedump_error_free(err);
	return !err;
}

static void percpu_members(struct inodedump *id, struct slab_layout *l)
{
	struct idd_struct s;

	if (pointee(id, &l->c_cpu_slab, &s)) { /* kmem_cache_cpu */
		member(id, &s, "freelist", &l->cc_freelist);
		member(id, &s, "slab", &l->cc_slab);
		if (!l->cc_slab.present)
			member(id, &s, "page", &l->cc_slab);
	}
	if (pointee(id, &l->c_cpu_sheaves, &s)) { /* slub_percpu_sheaves */
		struct idd_struct sheaf;

		member(id, &s, "main", &l->pcs_main);
		member(id, &s, "spare", &l->pcs_spare);
		if (pointee(id, &l->pcs_main, &sheaf)) { /* slab_sheaf */
			member(id, &sheaf, "size", &l->sh_size);
			member(id, &sheaf, "objects", &l->sh_objects);
			member(id, &sheaf, "barn_list", &l->sh_barn_list);
		}
		/* barns came with sheaves (6.18) */
		if (find(id->types, "node_barn", &s))
			member(id, &s, "sheaves_full", &l->barn_full);
		if (l->c_per_node.present &&
		    find(id->types, "kmem_cache_per_node_ptrs", &s)) {
			member(id, &s, "barn", &l->pn_barn);
			l->per_node_bytes = s.size;
		} else if (l->c_node.present &&
			   find(id->types, "kmem_cache_node", &s)) {
			member(id, &s, "barn", &l->n_barn);
		}
	}
	idd_symbols_address(id->syms, "__per_cpu_offset", &l->per_cpu_offset);
	idd_symbols_address(id->syms, "__cpu_online_mask", &l->online_mask);
	/* no symbol: a kernel without SMP, unless kallsyms keeps no data */
	if (!l->per_cpu_offset && idd_symbols_text_only(id->syms))
		l->percpu_why = "the CPUs' slabs: no symbol __per_cpu_offset "
				"(the dump's kallsyms keep text symbols only; "
				"the kernel's debuginfo, -k VMLINUX, has it)";
	l->nr_cpus = read_u32_symbol(id, "nr_cpu_ids", 1);
	l->nr_nodes = read_u32_symbol(id, "nr_node_ids", 1);
	if (l->nr_cpus > 8192)
		l->nr_cpus = 8192;
	if (l->nr_nodes > 1024)
		l->nr_nodes = 1024;
}

/* The buddy allocator's largest block in bytes (slab_layout.max_block). */
static uint64_t buddy_max_block(struct inodedump *id)
{
	const char *fa = idd_target_vmcoreinfo(id->target,
					       "LENGTH(zone.free_area)");
	uint64_t orders = fa ? strtoull(fa, NULL, 10) : 0,
		 psize = idd_target_page_size(id->target);

	return orders >= 1 && orders <= 24 && psize ? psize << (orders - 1) : 0;
}

struct slab_layout *idd_slab_layout(struct inodedump *id)
{
	static const char *const slub_fns[] = { "kmem_cache_free",
						"kmem_cache_destroy", NULL };
	struct slab_layout *l = id->slab_layout;
	struct idd_struct s;
	struct idd_member cache_in_page;

	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	id->slab_layout = l;
	l->swab = -1;
	l->fs_of_inode = -1;
	{
		/*
		 * every symbol slab.c and pages_layout.c ask: one pass, not nine;
		 * and init_task, which the paths' namespaces (mntns.c) ask
		 */
		const char *names[] = {
			"kmem_cache_free", "kmem_cache_destroy",
			"__per_cpu_offset",
			"__cpu_online_mask", "nr_cpu_ids", "nr_node_ids",
			"vmcoreinfo_append_str", "init_task", IDD_SPARSE_FNS,
			IDD_ALLOC_FNS, NULL, NULL,
		};
		size_t n = sizeof(names) / sizeof(names[0]) - 2;
		struct idd_target_kernel_map km;

		/* and the architecture's variables pages_layout.c reads */
		idd_target_kernel_map(id->target, &km);
		if (km.direct_var)
			names[n++] = km.direct_var;
		if (km.vmemmap_var)
			names[n++] = km.vmemmap_var;
		idd_symbols_prefetch(id->syms, names, n);
	}
	idd_anchor(id->types, id->syms, SLAB_CU, slub_fns);
	/* struct page held the slab's fields before 5.17 (struct slab) */
	if (!find(id->types, "page", &s)) {
		l->why_not = "this kernel's types have no struct page";
		if (!idd_session_noted(id, IDD_NO_STRUCT_PAGE))
			idd_session_note(id, IDD_NO_STRUCT_PAGE);
		return l;
	}
	member(id, &s, "slab_cache", &cache_in_page);
	l->cache_in_page = cache_in_page.present;
	if (!cache_in_page.present && !find(id->types, "slab", &s)) {
		l->why_not = "this kernel's types have neither struct slab nor "
			     "a slab_cache in struct page";
		return l;
	}
	l->slab_bytes = s.size;
	member(id, &s, "slab_cache", &l->s_cache);
	member(id, &s, "freelist", &l->s_freelist);
	member(id, &s, "objects", &l->s_objects);
	member(id, &s, "inuse", &l->s_inuse);
	member(id, &s, "frozen", &l->s_frozen);
	if (!find(id->types, "kmem_cache", &s)) {
		l->why_not = "this kernel's types have no struct kmem_cache";
		return l;
	}
	member(id, &s, "name", &l->c_name);
	member(id, &s, "kobj.name", &l->c_kobj_name);
	member(id, &s, "ctor", &l->c_ctor);
	member(id, &s, "size", &l->c_size);
	member(id, &s, "object_size", &l->c_object_size);
	member(id, &s, "offset", &l->c_offset);
	member(id, &s, "random", &l->c_random);
	member(id, &s, "red_left_pad", &l->c_pad);
	member(id, &s, "cpu_slab", &l->c_cpu_slab);
	member(id, &s, "cpu_sheaves", &l->c_cpu_sheaves);
	member(id, &s, "node", &l->c_node);
	member(id, &s, "per_node", &l->c_per_node);
	if (!l->s_cache.present || !l->s_freelist.present ||
	    !l->s_objects.present || !l->c_name.present ||
	    !l->c_size.present || !l->c_offset.present) {
		l->why_not = "this kernel's slab types are not SLUB's as this "
			     "reads them (no slab_cache, freelist, objects, "
			     "size or offset)";
		return l;
	}
	{
		const struct idd_member *m[] = {
			&l->c_name, &l->c_kobj_name, &l->c_ctor, &l->c_size,
			&l->c_object_size, &l->c_offset,
			&l->c_random, &l->c_pad, &l->c_cpu_slab, &l->c_cpu_sheaves
		};

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (m[i]->present && m[i]->offset + m[i]->size > l->cache_bytes)
				l->cache_bytes = m[i]->offset + m[i]->size;
	}
	percpu_members(id, l);
	l->max_block = buddy_max_block(id);
	l->usable = true;
	return l;
}

const char *idd_slab_describe(struct inodedump *id)
{
	struct slab_layout *l = idd_slab_layout(id);

	if (!l)
		return NULL;
	if (!l->usable)
		return l->why_not;
	if (!l->describe) {
		char counts[224];

		if (l->percpu_why)
			snprintf(counts, sizeof(counts),
				 "how many CPUs and nodes not known, the CPUs' "
				 "freelists not read (nr_cpu_ids, nr_node_ids, "
				 "__per_cpu_offset "
				 "are not in the dump's kallsyms: it keeps text "
				 "symbols only)");
		else
			snprintf(counts, sizeof(counts),
				 "%" PRIu32 " CPU%s, %" PRIu32 " node%s",
				 l->nr_cpus, l->nr_cpus == 1 ? "" : "s",
				 l->nr_nodes, l->nr_nodes == 1 ? "" : "s");
		l->describe = idd_strdup_printf(
			"SLUB (%s, kmem_cache); freelists %s; free objects "
			"also %s%s; %s",
			l->cache_in_page ? "struct page" : "struct slab",
			!l->c_random.present ? "not hardened"
					     : "hardened (kmem_cache.random)",
			l->cc_slab.present ? "on the CPUs' freelists" : "",
			l->pcs_main.present
				? (l->cc_slab.present ? ", in sheaves and barns"
						      : "in the CPUs' sheaves and the barns")
				: "",
			counts);
	}
	return l->describe;
}

void idd_slab_layout_free(struct slab_layout *l)
{
	if (!l)
		return;
	free(l->describe);
	for (size_t i = 0; i < l->n_inode_at; i++)
		free(l->inode_at[i].why);
	free(l);
}

/* ---- one cache, one slab ---- */

struct inodedump_error *idd_slab_read_cache(struct inodedump *id,
					    const struct slab_layout *l,
					    uint64_t cache,
					    struct cache_info *c)
{
	uint8_t buf[1024];
	uint64_t name;
	char *s = NULL;
	bool truncated;
	struct inodedump_error *err;

	memset(c, 0, sizeof(*c));
	c->addr = cache;
	if (l->cache_bytes > sizeof(buf))
		return idd_error(INODEDUMP_ERR_TYPE, "struct kmem_cache's "
				 "members span %" PRIu64 " bytes",
				 l->cache_bytes);
	err = idd_target_read(id->target, cache, buf, l->cache_bytes);
	if (err)
		return err;
	c->size = idd_member_uval(&l->c_size, buf);
	c->object_size = l->c_object_size.present
				 ? idd_member_uval(&l->c_object_size, buf)
				 : c->size;
	c->offset = idd_member_uval(&l->c_offset, buf);
	c->hardened = l->c_random.present;
	if (c->hardened)
		c->random = idd_member_uval(&l->c_random, buf);
	if (l->c_pad.present)
		c->pad = idd_member_uval(&l->c_pad, buf);
	if (l->c_cpu_slab.present)
		c->cpu_slab = idd_member_uval(&l->c_cpu_slab, buf);
	if (l->c_cpu_sheaves.present)
		c->cpu_sheaves = idd_member_uval(&l->c_cpu_sheaves, buf);
	if (l->c_ctor.present)
		c->ctor = idd_member_uval(&l->c_ctor, buf);
	name = idd_member_uval(&l->c_name, buf);
	err = idd_target_read_string(id->target, name, sizeof(c->name) - 1, &s,
				     &truncated);
	/*
	 * The name's page may be gone (-d 31 drops a module's): the sysfs
	 * name is a copy of it, kept elsewhere, for a cache of its own (a
	 * merged cache's is ":a-0000192").
	 */
	if (err && l->c_kobj_name.present) {
		struct inodedump_error *err2 = idd_target_read_string(
			id->target, idd_member_uval(&l->c_kobj_name, buf),
			sizeof(c->name) - 1, &s, &truncated);

		if (!err2 && s[0] != ':') {
			inodedump_error_free(err);
			err = NULL;
		} else if (!err2) {
			free(s);
		}
		inodedump_error_free(err2);
	}
	if (err) {
		c->name_why = idd_strdup_printf(
			"the name of kmem_cache 0x%" PRIx64 ": %s", cache,
			inodedump_error_message(err));
		inodedump_error_free(err);
	} else {
		snprintf(c->name, sizeof(c->name), "%s", s);
		free(s);
	}
	if (!c->size || c->size > (1u << 24) || c->object_size > c->size ||
	    c->offset + 8 > c->size + 8 * 64) {
		free(c->name_why);
		c->name_why = NULL;
		return idd_error_at(INODEDUMP_ERR_NOT_INODE, cache,
				    "kmem_cache 0x%" PRIx64 " (\"%s\") is not "
				    "one: object size %" PRIu64 ", stride %" PRIu64
				    ", free pointer at %" PRIu64,
				    cache, c->name, c->object_size, c->size,
				    c->offset);
	}
	return NULL;
}

static void add_unread(struct idd_slab_obj *o, const char *why)
{
	char *joined;

	if (!o->unknown) {
		o->unknown = strdup(why);
		return;
	}
	joined = idd_strdup_printf("%s; %s", o->unknown, why);
	if (joined) {
		free(o->unknown);
		o->unknown = joined;
	}
}

static void add_unknown(struct idd_slab_obj *o, const char *why)
{
	o->state_unsure = true;
	add_unread(o, why);
}

struct find_one {
	uint64_t want;
	char *where;
	size_t len;
};

static bool is_wanted(uint64_t obj, const char *where, void *arg)
{
	struct find_one *f = arg;

	if (obj != f->want)
		return false;
	snprintf(f->where, f->len, "%s", where);
	return true;
}

static void object_state(struct inodedump *id, struct slab_layout *l,
			 const struct cache_info *c, const struct slab_info *s,
			 struct idd_slab_obj *o)
{
	struct find_one f = { o->start, o->where, sizeof(o->where) };
	struct unread u = { 0 };
	/*
	 * CPUs whose slabs cannot be read (no __per_cpu_offset) hold none of
	 * this slab's objects when it is not frozen: a CPU's lockless
	 * freelist is its active slab's, which SLUB freezes (partial slabs
	 * keep their free objects in the slab's own freelist); not so where
	 * CPUs keep sheaves of any slab's objects.
	 */
	bool no_cpu_holds = l->percpu_why && !s->frozen && !c->cpu_sheaves;
	bool found;

	found = idd_slab_walk_freelist(id, l, c, s, s->freelist, "on the slab's freelist",
			      is_wanted, &f, &u) ||
		(!no_cpu_holds &&
		 idd_slab_walk_cpus(id, l, c, s->addr, is_wanted, &f, &u)) ||
		idd_slab_walk_barns(id, l, c, is_wanted, &f, &u);
	if (u.text) {
		add_unread(o, u.text);
		free(u.text);
	}
	o->state = found	  ? INODEDUMP_SLAB_FREE
		   : u.unsure ? INODEDUMP_SLAB_UNKNOWN
			      : INODEDUMP_SLAB_ALLOCATED;
}

/* ---- the inode inside an object ---- */

/*
 * The modules' types for a session whose types are vmlinux's DWARF (which
 * has none of a module's): the dump's BTF and its modules', opened on
 * first need; NULL when the dump has none.
 */
static struct idd_btf *module_btf(struct inodedump *id)
{
	char *cache;
	struct idd_btf *btf = NULL;
	struct inodedump_error *err;
	struct idd_btf_whence w;

	if (id->module_btf_tried)
		return id->module_btf;
	id->module_btf_tried = true;
	cache = idd_cache_dir(idd_target_vmcoreinfo(id->target, "BUILD-ID"));
	err = idd_btf_from_dump(id->syms, id->target, cache, &btf, &w);
	free(cache);
	free(w.none);
	/* the BTF is there but could not be read: damage, not absence */
	id->module_btf_unreadable = err && err->code != INODEDUMP_ERR_TYPE;
	inodedump_error_free(err);
	if (!err && btf) {
		idd_btf_set_source(btf, id->syms, id->target);
		id->module_btf = btf;
	}
	return id->module_btf;
}

/*
 * The struct so named: this kernel's types, or a module's BTF. A module's
 * struct in a DWARF session (module_first): its BTF first, sparing a walk
 * of every vmlinux unit for a unit that is not there.
 */
static struct inodedump_error *inode_struct(struct inodedump *id,
					    const struct idd_inode_cache *ic,
					    const char *type,
					    bool vmlinux_only,
					    bool module_first,
					    struct idd_struct *s,
					    struct idd_btf **in_btf)
{
	struct inodedump_error *err;
	struct idd_btf *btf;

	*in_btf = NULL;
	if (vmlinux_only)
		return idd_types_struct_only_in(id->types, type, ic->unit, s);
	if (idd_types_btf(id->types))
		return idd_types_struct_in(id->types, type, ic->unit, s);
	if (module_first && (btf = module_btf(id)) &&
	    !(err = idd_btf_struct(btf, type, s))) {
		*in_btf = btf;
		return NULL;
	} else if (module_first && btf) {
		inodedump_error_free(err);
	}
	err = idd_types_struct_only_in(id->types, type, ic->unit, s);
	if (!err || !(btf = module_btf(id)))
		return err;
	inodedump_error_free(err);
	err = idd_btf_struct(btf, type, s);
	if (!err)
		*in_btf = btf;
	return err;
}

/* The inode's offset in struct type: the first of ic's member paths. */
static bool member_offset(struct inodedump *id, const struct idd_inode_cache *ic,
			  const struct idd_struct *s, struct idd_btf *btf,
			  uint64_t *offset)
{
	for (const char *p = ic->members; *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		char path[64];
		struct idd_member m;

		snprintf(path, sizeof(path), "%.*s", (int)n, p);
		if (btf)
			idd_btf_types_member(btf, s, path, &m);
		else
			idd_types_member(id->types, s, path, &m);
		if (m.present) {
			*offset = m.offset;
			return true;
		}
		p += n + (bar ? 1 : 0);
	}
	return false;
}

/*
 * Where the inode is in an object of ic's cache: the first of its
 * structs ("|" between the kernels') this kernel has, at the first of its
 * member paths. *type: the struct found (up to 47 bytes).
 */
static bool inode_place(struct inodedump *id,
			const struct idd_inode_cache *ic, bool vmlinux_only,
			bool module_first, uint64_t *offset, char type[48],
			struct idd_struct *out_s, struct idd_btf **out_btf,
			bool *read_failed, char **why)
{
	const char *p = ic->type;

	*why = NULL;
	type[0] = 0;
	if (!*ic->members) {
		struct idd_btf *btf = NULL;
		struct inodedump_error *err;

		snprintf(type, 48, "%s", ic->type);
		*offset = 0;
		if (!out_s)
			return true;
		/* the object is the inode: its struct all the same */
		err = inode_struct(id, ic, type, vmlinux_only, module_first,
				   out_s, &btf);
		if (err) {
			*why = idd_strdup_printf("struct %s is not in this "
						 "kernel's types (%s)", type,
						 inodedump_error_message(err));
			inodedump_error_free(err);
			type[0] = 0;
			return false;
		}
		if (out_btf)
			*out_btf = btf;
		return true;
	}
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		struct idd_struct s;
		struct idd_btf *btf;
		struct inodedump_error *err;

		snprintf(type, 48, "%.*s", (int)n, p);
		p += n + (bar ? 1 : 0);
		err = inode_struct(id, ic, type, vmlinux_only, module_first,
				   &s, &btf);
		/* absent types are no damage; types the dump lost are */
		if (err && read_failed &&
		    (err->code != INODEDUMP_ERR_TYPE ||
		     id->module_btf_unreadable ||
		     idd_btf_broken(id->module_btf) ||
		     idd_btf_broken(idd_types_btf(id->types)) ||
		     strstr(inodedump_error_message(err), "could not be read")))
			*read_failed = true;
		if (err) {
			free(*why);
			*why = idd_strdup_printf("struct %s is not in this "
						 "kernel's types (%s)", type,
						 inodedump_error_message(err));
			inodedump_error_free(err);
			continue;
		}
		free(*why);
		*why = NULL;
		if (member_offset(id, ic, &s, btf, offset)) {
			if (out_s)
				*out_s = s;
			if (out_btf)
				*out_btf = btf;
			return true;
		}
		*why = idd_strdup_printf("struct %s has none of %s", type,
					 ic->members);
	}
	type[0] = 0;
	return false;
}

static bool inode_offset(struct inodedump *id,
			 const struct idd_inode_cache *ic, bool vmlinux_only,
			 uint64_t *offset, char type[48], char **why)
{
	return inode_place(id, ic, vmlinux_only, false, offset, type, NULL,
			   NULL, NULL, why);
}

/* The same for a module's struct, its BTF first; its struct and BTF too. */
bool idd_slab_inode_place(struct inodedump *id,
			  const struct idd_inode_cache *ic, bool module_first,
			  uint64_t *offset, char type[48], struct idd_struct *s,
			  struct idd_btf **in_btf, bool *read_failed, char **why)
{
	*read_failed = false;
	return inode_place(id, ic, false, module_first, offset, type, s,
			   in_btf, read_failed, why);
}

/* The same, remembered per cache for the session. */
bool idd_slab_inode_offset(struct inodedump *id,
			   const struct idd_inode_cache *ic, uint64_t *offset,
			   char type[48], char **why)
{
	struct slab_layout *l = idd_slab_layout(id);
	bool known;

	*why = NULL;
	for (size_t i = 0; l && i < l->n_inode_at; i++)
		if (l->inode_at[i].ic == ic) {
			*offset = l->inode_at[i].offset;
			memcpy(type, l->inode_at[i].type, 48);
			if (!l->inode_at[i].known && l->inode_at[i].why)
				*why = strdup(l->inode_at[i].why);
			return l->inode_at[i].known;
		}
	known = inode_offset(id, ic, false, offset, type, why);
	if (l && l->n_inode_at < sizeof(l->inode_at) / sizeof(l->inode_at[0])) {
		l->inode_at[l->n_inode_at].ic = ic;
		l->inode_at[l->n_inode_at].known = known;
		l->inode_at[l->n_inode_at].offset = known ? *offset : 0;
		memcpy(l->inode_at[l->n_inode_at].type, type, 48);
		l->inode_at[l->n_inode_at].why = *why ? strdup(*why) : NULL;
		l->n_inode_at++;
	}
	return known;
}

/* ---- an address ---- */

static void not_in_slab(struct inodedump *id, uint64_t addr, bool mapped,
			uint64_t pfn, struct idd_slab_obj *o)
{
	char *sym = NULL;
	struct inodedump_error *err = idd_symbols_name(id->syms, addr, &sym);

	inodedump_error_free(err);
	if (!err && sym) {
		o->page = idd_strdup_printf("the kernel's own data: %s", sym);
		free(sym);
		return;
	}
	if (!mapped) {
		o->page = strdup("not mapped in the dump's page tables");
		return;
	}
	o->page = idd_pages_describe(id, pfn);
	if (!o->page)
		o->page = strdup("no slab page (what the page is is not known)");
}

void idd_slab_obj_clear(struct idd_slab_obj *o)
{
	free(o->ctor);
	free(o->unknown);
	free(o->inode_why);
	free(o->page);
	memset(o, 0, sizeof(*o));
}

/*
 * Is there an inode of filesystem fs at addr: its i_sb a superblock whose
 * s_type->name is fs? (The types of struct inode and super_block are
 * vmlinux's, always there.)
 */
/* The three members inode_of_fs reads, looked up once per session. */
static bool fs_members(struct inodedump *id, struct slab_layout *l)
{
	struct idd_struct ino, sb, fst;
	struct inodedump_error *err = NULL;

	if (l->fs_of_inode >= 0)
		return l->fs_of_inode;
	l->fs_of_inode = 0;
	if ((err = idd_types_struct(id->types, "inode", &ino)))
		goto out;
	idd_types_member(id->types, &ino, "i_sb", &l->i_sb);
	if (!l->i_sb.present ||
	    (err = idd_types_pointee_struct(id->types, &l->i_sb, &sb)))
		goto out;
	idd_types_member(id->types, &sb, "s_type", &l->s_type);
	if (!l->s_type.present ||
	    (err = idd_types_pointee_struct(id->types, &l->s_type, &fst)))
		goto out;
	idd_types_member(id->types, &fst, "name", &l->fs_name);
	l->fs_of_inode = l->fs_name.present;
out:
	inodedump_error_free(err);
	return l->fs_of_inode;
}

bool idd_slab_inode_of_fs(struct inodedump *id, uint64_t addr, const char *fs)
{
	struct slab_layout *l = idd_slab_layout(id);
	uint64_t v;
	char *str = NULL;
	bool truncated, yes;
	struct inodedump_error *err;

	if (!l || !fs_members(id, l))
		return false;
	if ((err = idd_target_read_u64(id->target, addr + l->i_sb.offset, &v)) ||
	    (err = idd_target_read_u64(id->target, v + l->s_type.offset, &v)) ||
	    (err = idd_target_read_u64(id->target, v + l->fs_name.offset, &v)) ||
	    (err = idd_target_read_string(id->target, v, 32, &str,
					  &truncated))) {
		inodedump_error_free(err);
		return false;
	}
	yes = !truncated && !strcmp(str, fs);
	free(str);
	return yes;
}

/*
 * The cache's stride against the slab: its objects end inside the slab's
 * own pages (a stride one bit too big puts every address in object 0,
 * and object 0's state would be told for all). False with why when they
 * do not; true when they do or the last page cannot be looked at.
 */
static bool stride_fits(struct inodedump *id, const struct slab_layout *l,
			const struct cache_info *c,
			const struct slab_info *s, char *why, size_t len)
{
	uint64_t psize = idd_target_page_size(id->target), pa = 0, last,
		 other = 0, head_pfn;
	bool unread = false;

	if (!psize || !s->objects)
		return true;
	last = s->base + (uint64_t)s->objects * c->size - 1;
	if (last < s->base)
		goto wrong;
	/*
	 * No slab is larger than the buddy allocator's largest block:
	 * checked first, for the last object may fall where no struct page
	 * is to look at (past the end of memory), which alone would say
	 * "not known".
	 */
	if (l->max_block && (uint64_t)s->objects * c->size > l->max_block)
		goto wrong;
	if (!idd_target_walk(id->target, last, &pa) &&
	    !idd_pages_direct_phys(id, last, &pa))
		goto wrong;
	if (idd_pages_slab(id, pa / psize, &other, &head_pfn, &unread) &&
	    other == s->addr)
		return true;
	if (unread)
		return true; /* its struct page is not in the dump: not known */
wrong:
	snprintf(why, len,
		 "kmem_cache 0x%" PRIx64 " (\"%s\") says a stride of %" PRIu64
		 " bytes, but %" PRIu32 " objects of it end at 0x%" PRIx64
		 ", outside slab 0x%" PRIx64 ": the cache's size or the "
		 "slab's object count is damaged",
		 c->addr, c->name, c->size, s->objects, last, s->addr);
	return false;
}

static struct inodedump_error *in_slab(struct inodedump *id,
				       struct slab_layout *l, uint64_t slab,
				       uint64_t base, unsigned int flags,
				       struct idd_slab_obj *o)
{
	uint8_t buf[256];
	struct cache_info c;
	struct slab_info s = { .addr = slab, .base = base };
	struct inodedump_error *err;
	char why[320];

	if (l->slab_bytes > sizeof(buf))
		return idd_error(INODEDUMP_ERR_TYPE, "struct slab of %" PRIu64
				 " bytes", l->slab_bytes);
	err = idd_target_read(id->target, slab, buf, l->slab_bytes);
	if (!err) {
		o->cache = idd_member_uval(&l->s_cache, buf);
		s.freelist = idd_member_uval(&l->s_freelist, buf);
		s.objects = (uint32_t)idd_member_uval(&l->s_objects, buf);
		s.frozen = !l->s_frozen.present ||
			   idd_member_uval(&l->s_frozen, buf);
		err = idd_slab_read_cache(id, l, o->cache, &c);
	}
	if (err) {
		snprintf(why, sizeof(why), "slab 0x%" PRIx64 ": %s", slab,
			 inodedump_error_message(err));
		inodedump_error_free(err);
		add_unknown(o, why);
		o->state = INODEDUMP_SLAB_UNKNOWN;
		return NULL;
	}
	snprintf(o->name, sizeof(o->name), "%s", c.name);
	if (c.name_why) {
		add_unread(o, c.name_why);
		free(c.name_why);
		/* what the cache is, then, is told by its constructor */
		o->ctor_addr = c.ctor;
	}
	o->object_size = c.object_size;
	o->size = c.size;
	o->objects = s.objects;
	s.base = base + c.pad;
	if (!stride_fits(id, l, &c, &s, why, sizeof(why))) {
		add_unknown(o, why);
		o->state = INODEDUMP_SLAB_UNKNOWN;
		return NULL;
	}
	if (o->addr >= s.base) {
		o->index = (uint32_t)((o->addr - s.base) / c.size);
		o->start = s.base + (uint64_t)o->index * c.size;
		o->offset = o->addr - o->start;
		o->in_object = o->index < s.objects;
	}
	if (!o->in_object) {
		o->state = INODEDUMP_SLAB_UNKNOWN;
		add_unknown(o, "the address is in the slab's padding, in no "
			       "object");
		return NULL;
	}
	o->ic = idd_inode_cache_find(o->name);
	/*
	 * The address asked is the inode when its i_sb is a superblock of
	 * the cache's filesystem: no types needed (a module's struct costs a
	 * parse of every BTF, and a filtered dump may lack them); else where
	 * the inode is, from the types.
	 */
	if (o->ic && o->ic->fs && idd_slab_inode_of_fs(id, o->addr, o->ic->fs)) {
		o->inode_known = true;
		o->inode_offset = o->offset;
	} else if (o->ic && (flags & IDD_SLAB_NO_TYPES)) {
		/* vmlinux's types only, not remembered (a module's not read) */
		o->inode_known = inode_offset(id, o->ic, true, &o->inode_offset,
					      o->inode_type, &o->inode_why);
	} else if (o->ic) {
		o->inode_known = idd_slab_inode_offset(id, o->ic,
						       &o->inode_offset,
						       o->inode_type,
						       &o->inode_why);
	}
	object_state(id, l, &c, &s, o);
	return NULL;
}

struct inodedump_error *idd_slab_object(struct inodedump *id, uint64_t addr,
					unsigned int flags,
					struct idd_slab_obj *o)
{
	struct slab_layout *l = idd_slab_layout(id);
	uint64_t psize = idd_target_page_size(id->target), pa = 0, slab,
		 head_pfn;
	bool mapped, unread = false;

	memset(o, 0, sizeof(*o));
	o->addr = addr;
	if (!l)
		return idd_nomem();
	mapped = psize && (idd_target_walk(id->target, addr, &pa) ||
			   idd_pages_direct_phys(id, addr, &pa));
	if (!l->usable) {
		o->page = idd_strdup_printf("whether it is a slab object is not "
					    "known: %s", l->why_not);
		return o->page ? NULL : idd_nomem();
	}
	if (!mapped || !idd_pages_slab(id, pa / psize, &slab, &head_pfn,
				       &unread)) {
		if (unread) {
			/* not known: said, never "in no slab" */
			o->page = idd_pages_describe(id, pa / psize);
			o->state_unsure = true;
			o->unknown = o->page ? strdup(o->page) : NULL;
			return o->page && o->unknown ? NULL : idd_nomem();
		}
		not_in_slab(id, addr, mapped, mapped ? pa / psize : 0, o);
		return o->page ? NULL : idd_nomem();
	}
	o->in_slab = true;
	o->slab = slab;
	o->base = (addr & ~(psize - 1)) - (pa / psize - head_pfn) * psize;
	return in_slab(id, l, slab, o->base, flags, o);
}
