// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Types from BTF, the kernel's compact type format
 * (CONFIG_DEBUG_INFO_BTF), parsed by libbpf (btf__new(): a parser fuzzed
 * upstream), loaded with dlopen(3) on first use so that nothing that never
 * reads BTF needs libbpf installed (the bridges' chroots, a caller of the
 * library with a vmlinux).
 *
 * A session without vmlinux takes every type from the BTF the dump
 * carries (__start_BTF..__stop_BTF, found through kallsyms). (A session
 * with a DWARF vmlinux takes struct mount from BTF through our own lazy
 * parser, btf_lazy.c: see there why.)
 *
 * Lookups by name go through one index of the named structs, unions and
 * enums, built in one pass over the types: libbpf's
 * btf__find_by_name_kind() walks every type on each call.
 *
 * The dump's BTF is read on demand instead ("on demand" below): where it
 * is sorted by name (7.3, not 6.12), through the kernel's own index of its
 * records, a decode then reading about a tenth of it; any other from its
 * start, as far as the lookups need ("BTF in no order"), a quarter of it
 * on 6.12, what was read kept for the next run. Records read so are
 * checked one by one; anything amiss, or a name not found, and the BTF is
 * read whole and parsed by libbpf (INODEDUMP_BTF_WHOLE: always).
 */
#include <bpf/btf.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <linux/btf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/source.h"
#include "types/types.h"

#define BTF_MAX_SIZE (64u << 20)
#define STRUCT_MAX (1u << 20)
#define BPF_SONAME "libbpf.so.1"

/* ------------------------------------------------------------ libbpf -- */

static struct {
	__typeof__(btf__new) *new_;
	__typeof__(btf__free) *free_;
	__typeof__(btf__type_cnt) *type_cnt;
	__typeof__(btf__type_by_id) *type_by_id;
	__typeof__(btf__name_by_offset) *name_by_offset;
	__typeof__(btf__resolve_size) *resolve_size;
	__typeof__(btf__parse_raw_split) *parse_raw_split;
} B;
static char bpf_error[512];
static pthread_mutex_t bpf_lock = PTHREAD_MUTEX_INITIALIZER;
static bool bpf_loaded;

static void *bpf_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p && !bpf_error[0])
		snprintf(bpf_error, sizeof(bpf_error), "%s has no %s", BPF_SONAME,
			 name);
	return p;
}

/* libbpf, loaded once; NULL, or why it cannot be. */
static const char *bpf_load(void)
{
	pthread_mutex_lock(&bpf_lock);
	if (!bpf_loaded) {
		void *h = dlopen(BPF_SONAME, RTLD_NOW | RTLD_LOCAL);

		bpf_loaded = true;
		if (!h) {
			snprintf(bpf_error, sizeof(bpf_error),
				 "cannot load %s (Debian: apt install libbpf1): %s",
				 BPF_SONAME, dlerror());
		} else {
			/* POSIX guarantees the conversion from void *. */
#define LOAD(field, name) *(void **)(void *)&B.field = bpf_sym(h, name)
			LOAD(new_, "btf__new");
			LOAD(free_, "btf__free");
			LOAD(type_cnt, "btf__type_cnt");
			LOAD(type_by_id, "btf__type_by_id");
			LOAD(name_by_offset, "btf__name_by_offset");
			LOAD(resolve_size, "btf__resolve_size");
			/*
			 * Split BTF from bytes: Debian 12's libbpf 1.1 does
			 * not export btf__new_split(), so module BTF goes
			 * through a memfd and btf__parse_raw_split().
			 */
			LOAD(parse_raw_split, "btf__parse_raw_split");
#undef LOAD
		}
	}
	pthread_mutex_unlock(&bpf_lock);
	return bpf_error[0] ? bpf_error : NULL;
}

/* ------------------------------------------------------------- index -- */

struct idd_btf {
	struct btf *btf;
	uint32_t ntypes;
	/* Named struct/union (class 0) and enum (class 1) ids, by name. */
	uint32_t *slots;
	uint32_t mask;
	uint32_t *enums; /* every enum's id, for enumerators by name */
	size_t nenums;
	size_t size;
	struct idd_cache_file index; /* slots and enums, when from the cache */
	uint32_t first_id; /* 1, or a module's first own id (split BTF) */
	char module[64];   /* a module's name */
	/*
	 * vmlinux BTF: the loaded modules' BTF, read on the first struct
	 * vmlinux's has not (btf_modules), through syms and target.
	 */
	struct idd_btf **mods;
	size_t nmods;
	bool mods_tried;
	struct idd_symbols *syms;
	struct idd_target *target;
	struct lazy *lz; /* read on demand (sorted BTF), NULL: whole */
	struct inodedump_error *broken; /* why it could not be read whole */
};

static const struct btf_type *lazy_type(const struct idd_btf *b, uint32_t id);
static const char *lazy_str(const struct idd_btf *b, uint32_t off);
static uint32_t lazy_lookup(const struct idd_btf *b, const char *name,
			    int class);
static void lazy_free(struct lazy *lz);
static bool lazy_settle(struct idd_btf *b);
static void lazy_whole(struct idd_btf *b);
static bool lazy_open(struct idd_btf *b, struct idd_target *t,
		      uint64_t kbtf, uint64_t start, uint64_t stop,
		      const char *cache_dir);
static bool scan_open(struct idd_btf *b, struct idd_target *t, uint64_t start,
		      uint64_t stop, const char *cache_dir);

static const struct btf_type *type_at(const struct idd_btf *b, uint32_t id)
{
	if (!id || id >= b->ntypes)
		return NULL;
	return b->lz ? lazy_type(b, id) : B.type_by_id(b->btf, id);
}

/* The string at off of the strings section, "" when none. */
static const char *str_at(const struct idd_btf *b, uint32_t off)
{
	const char *n = b->lz ? lazy_str(b, off) : B.name_by_offset(b->btf, off);

	return n ? n : "";
}

static const char *name_of(const struct idd_btf *b, const struct btf_type *t)
{
	return str_at(b, t->name_off);
}

static int name_class(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return 1;
	default:
		return -1;
	}
}

static uint32_t hash_name(const char *s, int class)
{
	uint32_t h = 2166136261u ^ (uint32_t)class;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/*
 * One pass over every type keeps the ids of structs, unions and enums
 * (a tenth of vmlinux's ~130 k types); the hash of names is sized and
 * filled from those alone.
 */
static struct inodedump_error *build_index(struct idd_btf *b)
{
	_cleanup_free_ uint32_t *kept = NULL;
	size_t nkept = 0, kept_cap = 0, named = 0, cap;

	for (uint32_t id = b->first_id; id < b->ntypes; id++) {
		const struct btf_type *t = B.type_by_id(b->btf, id);
		int class = t ? name_class(t) : -1;

		if (class < 0 || (class == 0 && !t->name_off))
			continue;
		if (nkept == kept_cap) {
			uint32_t *grown;

			kept_cap = kept_cap ? 2 * kept_cap : 4096;
			grown = realloc(kept, kept_cap * sizeof(*kept));
			if (!grown)
				return idd_nomem();
			kept = grown;
		}
		kept[nkept++] = id;
		named += t->name_off != 0;
		b->nenums += class == 1;
	}
	for (cap = 64; cap < 2 * named; cap *= 2)
		;
	b->slots = calloc(cap, sizeof(*b->slots));
	b->enums = malloc((b->nenums + 1) * sizeof(*b->enums));
	if (!b->slots || !b->enums)
		return idd_nomem();
	b->mask = (uint32_t)cap - 1;
	b->nenums = 0;
	for (size_t k = 0; k < nkept; k++) {
		const uint32_t id = kept[k];
		const struct btf_type *t = B.type_by_id(b->btf, id);
		int class = name_class(t);
		const char *n;

		if (class == 1)
			b->enums[b->nenums++] = id;
		if (!t->name_off)
			continue;
		n = name_of(b, t);
		for (uint32_t h = hash_name(n, class) & b->mask;; h = (h + 1) & b->mask) {
			const struct btf_type *o;

			if (!b->slots[h]) {
				b->slots[h] = id; /* the first of a name wins */
				break;
			}
			o = B.type_by_id(b->btf, b->slots[h]);
			if (name_class(o) == class && !strcmp(name_of(b, o), n))
				break;
		}
	}
	return NULL;
}

static uint32_t lookup(const struct idd_btf *b, const char *name, int class)
{
	if (b->lz)
		return lazy_lookup(b, name, class);
	if (!b->slots)
		return 0;
	uint32_t h = hash_name(name, class) & b->mask;

	/* Bounded, and each id checked: the index may come from the cache. */
	for (uint32_t probes = 0; b->slots[h] && probes <= b->mask;
	     probes++, h = (h + 1) & b->mask) {
		const struct btf_type *o = type_at(b, b->slots[h]);

		if (o && name_class(o) == class && !strcmp(name_of(b, o), name))
			return b->slots[h];
	}
	return 0;
}

void idd_btf_free(struct idd_btf *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nmods; i++)
		idd_btf_free(b->mods[i]);
	free(b->mods);
	if (b->btf)
		B.free_(b->btf);
	lazy_free(b->lz);
	inodedump_error_free(b->broken);
	if (b->index.data) {
		idd_cache_unmap(&b->index);
	} else {
		free(b->slots);
		free(b->enums);
	}
	free(b);
}

size_t idd_btf_size(const struct idd_btf *b)
{
	return b->size;
}

#define INDEX_MAGIC "IDDBTFX1"
#define INDEX_NAME "vmlinux.btf.index"

/*
 * The index as the cache keeps it: magic, the BTF's size and type count,
 * the slot count, the enum count, then the slots and the enum ids. Only
 * its shape is checked here: every id is checked where it is used.
 */
static bool index_from_cache(struct idd_btf *b, const char *dir)
{
	uint64_t h[5];

	if (!idd_cache_map(dir, INDEX_NAME, &b->index))
		return false;
	if (b->index.size < sizeof(h))
		goto bad;
	memcpy(h, b->index.data, sizeof(h));
	if (memcmp(&h[0], INDEX_MAGIC, 8) || h[1] != b->size ||
	    h[2] != b->ntypes || h[3] < 64 || h[3] > (1u << 26) ||
	    (h[3] & (h[3] - 1)) || h[4] > b->ntypes ||
	    b->index.size != sizeof(h) + 4 * (h[3] + h[4]))
		goto bad;
	b->slots = (uint32_t *)((uint8_t *)b->index.data + sizeof(h));
	b->mask = (uint32_t)h[3] - 1;
	b->enums = b->slots + h[3];
	b->nenums = h[4];
	return true;
bad:
	idd_cache_unmap(&b->index);
	return false;
}

static void index_to_cache(const struct idd_btf *b, const char *dir)
{
	uint64_t h[5] = { 0, b->size, b->ntypes, (uint64_t)b->mask + 1,
			  b->nenums };
	struct idd_cache_part parts[] = {
		{ h, sizeof(h) },
		{ b->slots, 4 * ((size_t)b->mask + 1) },
		{ b->enums, 4 * b->nenums },
	};

	memcpy(&h[0], INDEX_MAGIC, 8);
	idd_cache_store(dir, INDEX_NAME, parts, 3);
}

struct inodedump_error *idd_btf_parse(const void *data, size_t size,
				      const char *where, struct idd_btf **out)
{
	return idd_btf_parse_cached(data, size, where, NULL, out);
}

struct inodedump_error *idd_btf_parse_cached(const void *data, size_t size,
					     const char *where,
					     const char *cache_dir,
					     struct idd_btf **out)
{
	_cleanup_free_ struct idd_btf *b = NULL;
	const char *why = bpf_load();
	struct inodedump_error *err;
	uint16_t magic = 0;

	*out = NULL;
	if (why)
		return idd_error(INODEDUMP_ERR_TYPE, "BTF %s: %s", where, why);
	if (size >= 2)
		memcpy(&magic, data, 2);
	if (size < 24 || magic != BTF_MAGIC)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s: no BTF header (magic 0x%x, %zu bytes)",
				 where, magic, size);
	if (size > BTF_MAX_SIZE)
		return idd_error(INODEDUMP_ERR_TYPE, "BTF %s: %zu bytes", where,
				 size);
	b = calloc(1, sizeof(*b));
	if (!b)
		return idd_nomem();
	b->btf = B.new_(data, (uint32_t)size); /* copies the bytes */
	if (!b->btf) {
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s is corrupt: libbpf cannot parse its "
				 "%zu bytes", where, size);
	}
	b->ntypes = B.type_cnt(b->btf);
	b->first_id = 1;
	b->size = size;
	if (cache_dir && index_from_cache(b, cache_dir)) {
		*out = TAKE_PTR(b);
		return NULL;
	}
	if ((err = build_index(b))) {
		idd_btf_free(TAKE_PTR(b));
		return err;
	}
	if (cache_dir)
		index_to_cache(b, cache_dir);
	*out = TAKE_PTR(b);
	return NULL;
}

/* --------------------------------------------------------- on demand -- */

/*
 * The dump's BTF read on demand, for kernels whose BTF is sorted: in
 * recent ones (resolve_btfids sorts it; 7.3's is, 6.12's is not) vmlinux's
 * BTF lists its anonymous types
 * first and then the named ones in name order, and the kernel, trusting
 * that, binary-searches it by name. The running kernel also keeps an
 * index of it: btf_vmlinux->types[id] is the address of record id. With
 * both, a decode reads a few hundred kilobytes of the BTF instead of
 * inflating all of its compressed pages (bench/RESULTS.md).
 *
 * The layout of struct btf is not assumed: the index is the pointer in
 * btf_vmlinux whose entries 1 and 2 are the addresses of the first two
 * records, the type count the word whose last entry ends the types; both
 * are then checked against struct btf as the BTF itself describes it,
 * with named_start_id (the kernel's mark of sorted BTF). Records and
 * strings are copied once, each checked against its section. A read that
 * fails or a record that is not one makes the BTF be read whole
 * (lazy_settle()), and libbpf then checks all of it.
 */
#define LAZY_STR_MAX 4096u
#define LAZY_BTF_READ 512u
/* Kernel addresses are in the upper half (a filter: content decides). */
#define KERNEL_MIN (1ull << 63)

struct lazy_map {
	struct lazy_slot {
		uint32_t key;
		void *copy;
	} *slots;
	size_t n, used; /* n a power of two */
};

struct lazy {
	struct idd_target *t;
	uint64_t start, stop; /* __start_BTF, __stop_BTF */
	uint64_t types_at, types_end, strs_at;
	uint32_t strs_len;
	uint64_t index; /* btf_vmlinux->types */
	uint32_t named; /* btf_vmlinux->named_start_id */
	uint32_t nr;	/* btf_vmlinux->nr_types */
	uint64_t page;	/* the dump's page size */
	uint8_t *checked; /* a bit per page of the index: its entries checked */
	/*
	 * No usable index (a dump that left its pages out): the type
	 * records read whole, and the offset of each, by id.
	 */
	uint8_t *types_buf;
	uint32_t *offs;
	struct idd_cache_file types_cached; /* types_buf, when from the cache */
	struct lazy_map recs, strs; /* copies, by id and by offset */
	bool failed; /* a read failed, or a record was not one */
	/*
	 * BTF in no order (scan): read from its start as far as the lookups
	 * need, into types_buf (types_have bytes of it, the records up to
	 * types_next given offsets, ids 1..scan_n - 1) and strs_buf
	 * (strs_have bytes). Both are allocated whole on opening, so a
	 * record or name handed out never moves.
	 */
	bool scan, bad; /* bad: the record at types_next is not one */
	size_t types_have, types_next;
	uint32_t scan_n;
	char *strs_buf;
	size_t strs_have;
	/*
	 * The cache (NULL: none), where what earlier runs read from the start
	 * of BTF in no order is kept (this much of each was taken from
	 * there), and the whole BTF once read whole.
	 */
	char *cache_dir;
	size_t cached_types, cached_strs;
};

static void map_free(struct lazy_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->slots[i].copy);
	free(m->slots);
}

static void start_to_cache(const struct lazy *lz);

static void lazy_free(struct lazy *lz)
{
	if (!lz)
		return;
	start_to_cache(lz);
	free(lz->cache_dir);
	map_free(&lz->recs);
	map_free(&lz->strs);
	free(lz->checked);
	free(lz->strs_buf);
	if (lz->types_cached.data)
		idd_cache_unmap(&lz->types_cached);
	else
		free(lz->types_buf);
	free(lz->offs);
	free(lz);
}

static struct lazy_slot *map_slot(const struct lazy_map *m, uint32_t key)
{
	uint32_t h = key * 2654435761u;

	for (size_t i = 0; i < m->n; i++) {
		struct lazy_slot *s = &m->slots[(h + i) & (m->n - 1)];

		if (!s->copy || s->key == key)
			return s;
	}
	return NULL;
}

static void *map_get(const struct lazy_map *m, uint32_t key)
{
	struct lazy_slot *s = m->n ? map_slot(m, key) : NULL;

	return s ? s->copy : NULL;
}

/* Keep copy (malloc'd) under key; NULL when out of memory (copy freed). */
static void *map_put(struct lazy_map *m, uint32_t key, void *copy)
{
	if (2 * (m->used + 1) > m->n) {
		struct lazy_map grown = { calloc(m->n ? 2 * m->n : 256,
						 sizeof(struct lazy_slot)),
					  m->n ? 2 * m->n : 256, m->used };

		if (!grown.slots) {
			free(copy);
			return NULL;
		}
		for (size_t i = 0; i < m->n; i++)
			if (m->slots[i].copy)
				*map_slot(&grown, m->slots[i].key) = m->slots[i];
		free(m->slots);
		*m = grown;
	}
	*map_slot(m, key) = (struct lazy_slot){ key, copy };
	m->used++;
	return copy;
}

static bool lazy_read(struct lazy *lz, uint64_t addr, void *buf, size_t len)
{
	struct inodedump_error *err =
		idd_target_read_unexplained(lz->t, addr, buf, len);

	if (err) {
		inodedump_error_free(err);
		lz->failed = true;
		return false;
	}
	return true;
}

/*
 * Bytes of a record from its first 12 (btf_type), or 0 if no such kind:
 * the head, then what each kind has after it, once or per vlen entry
 * (the vlen of an int, a func or a var is not a count).
 */
static size_t record_size(const struct btf_type *t)
{
	static const uint8_t once[BTF_KIND_ENUM64 + 1] = {
		[BTF_KIND_INT] = 4,
		[BTF_KIND_VAR] = 4,
		[BTF_KIND_DECL_TAG] = 4,
		[BTF_KIND_ARRAY] = sizeof(struct btf_array),
	};
	static const uint8_t each[BTF_KIND_ENUM64 + 1] = {
		[BTF_KIND_STRUCT] = sizeof(struct btf_member),
		[BTF_KIND_UNION] = sizeof(struct btf_member),
		[BTF_KIND_ENUM] = sizeof(struct btf_enum),
		[BTF_KIND_ENUM64] = sizeof(struct btf_enum64),
		[BTF_KIND_FUNC_PROTO] = sizeof(struct btf_param),
		[BTF_KIND_DATASEC] = sizeof(struct btf_var_secinfo),
	};
	unsigned kind = btf_kind(t);

	if (kind == BTF_KIND_UNKN || kind > BTF_KIND_ENUM64)
		return 0;
	return 12 + once[kind] + (size_t)each[kind] * btf_vlen(t);
}

/* The record at addr, copied whole and checked to lie in the types. */
static struct btf_type *read_record(struct lazy *lz, uint64_t addr)
{
	struct btf_type head;
	size_t size;
	void *copy;

	if (addr < lz->types_at || addr % 4 || lz->types_end - addr < 12 ||
	    !lazy_read(lz, addr, &head, 12))
		return NULL;
	size = record_size(&head);
	if (!size || size > lz->types_end - addr || !(copy = malloc(size)))
		return NULL;
	memcpy(copy, &head, 12);
	if (size > 12 &&
	    !lazy_read(lz, addr + 12, (uint8_t *)copy + 12, size - 12)) {
		free(copy);
		return NULL;
	}
	return copy;
}

/*
 * The index is the kernel's memory, not the BTF, and is checked a page at
 * a time, the first time an entry of that page is used: every entry of
 * the page and the one on each side of it must lie in the types, rise
 * strictly, and entry 1 be the first record. With the check of each
 * entry used against the end of its predecessor's record (lazy_type()),
 * damage within a page is seen, a run of entries moved to other records
 * included; what moves whole pages consistently with their neighbours is
 * not.
 */
static bool index_page_ok(struct lazy *lz, uint32_t id)
{
	uint64_t first = lz->index & ~(lz->page - 1);
	uint64_t va = (lz->index + 8ull * id) & ~(lz->page - 1);
	uint64_t k = (va - first) / lz->page, lo, hi;
	uint64_t *e;
	bool ok = true;

	if (lz->checked[k / 8] & (1u << (k % 8)))
		return true;
	/* ids of this page's entries, and one on each side */
	lo = va > lz->index ? (va - lz->index) / 8 : 0;
	hi = (va + lz->page - lz->index) / 8; /* one past the page's last */
	lo = lo > 1 ? lo - 1 : 1;
	hi = hi < lz->nr ? hi + 1 : lz->nr;
	if (!(e = malloc(8 * (hi - lo)))) {
		lz->failed = true;
		return false;
	}
	if (!lazy_read(lz, lz->index + 8 * lo, e, 8 * (hi - lo)))
		ok = false;
	for (uint64_t i = 0; ok && i < hi - lo; i++)
		ok = e[i] >= lz->types_at && e[i] < lz->types_end &&
		     (i == 0 || e[i] > e[i - 1]) &&
		     (lo + i != 1 || e[i] == lz->types_at);
	free(e);
	if (!ok) {
		lz->failed = true;
		return false;
	}
	lz->checked[k / 8] |= (uint8_t)(1u << (k % 8));
	return true;
}

/*
 * BTF in no order: the kernel's before it sorted its BTF (6.12's) has no
 * order a lookup by name could search, and libbpf would parse all of it
 * (on the stock 6.12 dump, 1,202 compressed pages). Read from its start
 * instead, as far as a lookup must: the strings until the name (each name
 * is there once: the BTF's strings are deduplicated), then the records
 * until the first of that name and class. Types used by the decode come
 * early in the BTF of the kernels measured (bench/RESULTS.md). Each
 * record's kind and size are checked as its offset is taken, and the last
 * must end the types; nothing of the kernel's own memory is used. A miss
 * (no such name, or a name whose offset no record has) reads the BTF
 * whole, which answers with authority.
 */
#define SCAN_TYPES_CHUNK (256u << 10) /* 64 pages: inflated on two threads */
#define SCAN_STRS_CHUNK (64u << 10)

/*
 * Up to chunk more bytes of the section at at (len bytes, have of them in
 * buf), ending on a page boundary of the dump.
 */
static bool scan_read(struct lazy *lz, uint64_t at, size_t len, void *buf,
		      size_t *have, size_t chunk)
{
	uint64_t from = at + *have, to = (from + chunk) & ~(lz->page - 1);

	if (to <= from)
		to = from + chunk;
	if (to - at > len)
		to = at + len;
	if (!lazy_read(lz, from, (uint8_t *)buf + *have, (size_t)(to - from)))
		return false;
	*have = (size_t)(to - at);
	return true;
}

/* Offsets taken as far as id (true), or every record's (false: no id). */
static bool scan_to(struct lazy *lz, uint32_t id)
{
	const size_t len = lz->types_end - lz->types_at;

	while (id >= lz->scan_n && !lz->failed) {
		/* Every record read whole, up to one that is not a record. */
		size_t next = lz->types_next, have = lz->types_have;
		uint32_t n = lz->scan_n, *offs = lz->offs;

		while (!lz->bad && have - next >= 12) {
			size_t size = record_size(
				(const void *)(lz->types_buf + next));

			if (!size || size > len - next)
				lz->bad = true;
			else if (size > have - next)
				break;
			else {
				offs[n++] = (uint32_t)next;
				next += size;
			}
		}
		lz->types_next = next;
		lz->scan_n = n;
		if (id < lz->scan_n)
			break;
		if (lz->bad) {
			lz->failed = true; /* what follows id is no record */
			return false;
		}
		if (lz->types_have == len) {
			if (lz->types_next != len)
				lz->failed = true; /* the last record runs over */
			return false;
		}
		if (!scan_read(lz, lz->types_at, len, lz->types_buf,
			       &lz->types_have, SCAN_TYPES_CHUNK))
			return false;
	}
	return id < lz->scan_n && !lz->failed;
}

/* The offset of the string name in the strings, 0: none. */
static uint32_t scan_string(struct lazy *lz, const char *name)
{
	size_t n = strlen(name), from = 0;
	char pat[LAZY_STR_MAX + 2];

	if (!n || n > LAZY_STR_MAX)
		return 0;
	pat[0] = 0;
	memcpy(pat + 1, name, n);
	pat[n + 1] = 0;
	for (;;) {
		const char *at = lz->strs_have >= from + n + 2
					 ? memmem(lz->strs_buf + from,
						  lz->strs_have - from, pat, n + 2)
					 : NULL;

		if (at)
			return (uint32_t)(at + 1 - lz->strs_buf);
		if (lz->strs_have == lz->strs_len)
			return 0;
		/* the next search takes in what this one could not match */
		from = lz->strs_have > n + 1 ? lz->strs_have - n - 1 : 0;
		if (!scan_read(lz, lz->strs_at, lz->strs_len, lz->strs_buf,
			       &lz->strs_have, SCAN_STRS_CHUNK))
			return 0;
	}
}

/* The first id of name and class, as whole BTF's index has it; 0: none. */
static uint32_t scan_lookup(struct lazy *lz, const char *name, int class)
{
	uint32_t off = scan_string(lz, name);

	for (uint32_t id = 1; off && (id < lz->scan_n || scan_to(lz, id));
	     id++) {
		const struct btf_type *t =
			(const void *)(lz->types_buf + lz->offs[id]);

		if (t->name_off == off && name_class(t) == class)
			return id;
	}
	lz->failed = true; /* not here: the BTF read whole answers */
	return 0;
}

/*
 * What a run read from the start of BTF in no order, kept for the next
 * run of that kernel: the types and the strings read so far, behind a
 * header that gives the BTF's size and the sections' lengths.
 */
#define START_CACHE_NAME "vmlinux.btf.start"
#define START_MAGIC "IDDBTFS1"
#define START_HEADER (8 + 7 * 8)

static bool same_as_dump(struct lazy *lz, uint64_t at, const uint8_t *data,
			 size_t len);

/* The dump's KASLR offset (VMCOREINFO), 0 when it gives none. */
static uint64_t kaslr_of(struct idd_target *t)
{
	const char *v = idd_target_vmcoreinfo(t, "KERNELOFFSET");

	return v ? strtoull(v, NULL, 16) : 0;
}

/* h: the header of the kept file f, when it is one (magic, size). */
static bool start_header(const struct idd_cache_file *f, uint64_t h[7])
{
	if (f->size < START_HEADER || memcmp(f->data, START_MAGIC, 8))
		return false;
	memcpy(h, (const uint8_t *)f->data + 8, 7 * sizeof(*h));
	return true;
}

static void start_to_cache(const struct lazy *lz)
{
	uint8_t head[START_HEADER];
	uint64_t kaslr, h[7];
	struct idd_cache_part parts[] = {
		{ head, sizeof(head) },
		{ lz->types_buf, lz->types_have },
		{ lz->strs_buf, lz->strs_have },
	};

	if (!lz->scan || !lz->cache_dir || lz->failed ||
	    (lz->types_have <= lz->cached_types &&
	     lz->strs_have <= lz->cached_strs))
		return;
	kaslr = kaslr_of(lz->t);
	h[0] = lz->stop - lz->start;
	h[1] = lz->types_end - lz->types_at;
	h[2] = lz->strs_len;
	h[3] = lz->types_have;
	h[4] = lz->strs_have;
	h[5] = lz->start - kaslr;
	h[6] = lz->stop - kaslr;
	memcpy(head, START_MAGIC, 8);
	memcpy(head + 8, h, sizeof(h));
	idd_cache_store(lz->cache_dir, START_CACHE_NAME, parts, 3);
}

/*
 * What earlier runs read, from the cache: taken when its header matches
 * this BTF's and its bytes the dump's at a few places of each section
 * (see same_as_dump()); else read again from the dump.
 */
static void start_from_cache(struct lazy *lz)
{
	struct idd_cache_file f;
	uint64_t h[7];
	const uint8_t *types, *strs;
	bool ok;

	if (!lz->cache_dir ||
	    !idd_cache_map(lz->cache_dir, START_CACHE_NAME, &f))
		return;
	ok = start_header(&f, h);
	if (ok) {
		ok = h[0] == lz->stop - lz->start &&
		     h[1] == lz->types_end - lz->types_at &&
		     h[2] == lz->strs_len && h[3] <= h[1] && h[4] <= h[2] &&
		     f.size == START_HEADER + h[3] + h[4];
	}
	types = (const uint8_t *)f.data + START_HEADER;
	strs = ok ? types + h[3] : NULL;
	if (ok && same_as_dump(lz, lz->types_at, types, h[3]) &&
	    same_as_dump(lz, lz->strs_at, strs, h[4])) {
		memcpy(lz->types_buf, types, h[3]);
		memcpy(lz->strs_buf, strs, h[4]);
		lz->types_have = lz->cached_types = h[3];
		lz->strs_have = lz->cached_strs = h[4];
	}
	lz->failed = false; /* a sample not read: the dump's own, then */
	idd_cache_unmap(&f);
}

static const struct btf_type *lazy_type(const struct idd_btf *b, uint32_t id)
{
	struct lazy *lz = b->lz;
	struct btf_type *t = map_get(&lz->recs, id), *prev;
	uint64_t addr[2];

	if (t || lz->failed)
		return t;
	if (lz->scan)
		return scan_to(lz, id) ? (const struct btf_type *)(lz->types_buf +
								    lz->offs[id])
				       : NULL;
	if (lz->offs) /* every record checked as the offsets were taken */
		return (const struct btf_type *)(lz->types_buf + lz->offs[id]);
	/*
	 * The index is the kernel's memory, not the BTF: entry id must be
	 * where record id - 1 (read too, mostly from the same page) ends.
	 */
	if (!index_page_ok(lz, id) || !index_page_ok(lz, id - 1) ||
	    !lazy_read(lz, lz->index + 8ull * (id - 1), addr, 16))
		return NULL;
	if (id == 1) {
		if (addr[1] != lz->types_at)
			lz->failed = true;
	} else if ((prev = read_record(lz, addr[0]))) {
		if (addr[0] + record_size(prev) != addr[1])
			lz->failed = true;
		free(prev);
	} else {
		lz->failed = true;
	}
	if (lz->failed || !(t = read_record(lz, addr[1]))) {
		lz->failed = true;
		return NULL;
	}
	if (!map_put(&lz->recs, id, t))
		lz->failed = true;
	return map_get(&lz->recs, id);
}

/*
 * len bytes at addr into buf; where that read fails, byte by byte up to a
 * NUL (a name may end just before memory that is not there).
 */
static bool read_upto_nul(struct lazy *lz, uint64_t addr, char *buf,
			  size_t len)
{
	struct inodedump_error *err =
		idd_target_read_unexplained(lz->t, addr, buf, len);

	if (!err)
		return true;
	inodedump_error_free(err);
	for (size_t i = 0; i < len; i++) {
		if (!lazy_read(lz, addr + i, buf + i, 1))
			return false;
		if (!buf[i]) {
			memset(buf + i, 0, len - i);
			return true;
		}
	}
	return true;
}

static const char *lazy_str(const struct idd_btf *b, uint32_t off)
{
	struct lazy *lz = b->lz;
	char *s = map_get(&lz->strs, off);
	size_t have = 0, cap = 64;

	if (s || lz->failed || off >= lz->strs_len)
		return s ? s : "";
	if (lz->scan && off < lz->strs_have &&
	    memchr(lz->strs_buf + off, 0, lz->strs_have - off))
		return lz->strs_buf + off;
	/*
	 * Read a little at a time (most names are short), never across a
	 * page boundary that the name does not cross.
	 */
	for (;;) {
		uint64_t at = lz->strs_at + off + have;
		size_t want = cap - have, left = lz->strs_len - off - have;
		size_t in_page = lz->page - (at & (lz->page - 1));
		char *grown;

		if (want > left)
			want = left;
		if (want > in_page)
			want = in_page;
		if (!want || !(grown = realloc(s, cap + 1)))
			break;
		s = grown;
		if (!read_upto_nul(lz, at, s + have, want))
			break;
		if (memchr(s + have, 0, want))
			return map_put(&lz->strs, off, s) ? s : "";
		have += want;
		if (cap >= LAZY_STR_MAX)
			break; /* no name is this long: not a string table */
		cap *= 2;
	}
	free(s);
	lz->failed = true;
	return "";
}

/*
 * Named types of a class by name: the lowest id of that name and class,
 * as the index of whole BTF has it (a name's records are adjacent).
 */
static uint32_t lazy_lookup(const struct idd_btf *b, const char *name,
			    int class)
{
	uint32_t lo = b->lz->named, hi = b->ntypes;

	if (b->lz->scan)
		return scan_lookup(b->lz, name, class);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct btf_type *t = type_at(b, mid);

		if (!t)
			return 0;
		if (strcmp(name_of(b, t), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t id = lo; id < b->ntypes; id++) {
		const struct btf_type *t = type_at(b, id);

		if (!t || strcmp(name_of(b, t), name))
			return 0;
		if (name_class(t) == class)
			return id;
	}
	return 0;
}

/* btf__resolve_size() for BTF read on demand. */
static __s64 lazy_size(const struct idd_btf *b, uint32_t id)
{
	uint64_t n = 1;

	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = type_at(b, id);

		if (!t)
			return -1;
		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT:
			return n * t->size > UINT32_MAX ? -1
							: (__s64)(n * t->size);
		case BTF_KIND_PTR:
			return n * 8 > UINT32_MAX ? -1 : (__s64)(n * 8);
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			n *= btf_array(t)->nelems;
			if (n > UINT32_MAX)
				return -1;
			id = btf_array(t)->type;
			break;
		default:
			return -1;
		}
	}
	return -1;
}


/* ----------------------------------------------------------- lookups -- */

/* Strip typedefs and qualifiers. */
static uint32_t peel(const struct idd_btf *b, uint32_t id)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = type_at(b, id);

		if (!t || !(btf_is_typedef(t) || btf_is_mod(t)))
			return id;
		id = t->type;
	}
	return 0;
}

static void load_modules(struct idd_btf *b);

static struct inodedump_error *struct_once(struct idd_btf *b,
					    const char *name,
					    struct idd_struct *out)
{
	uint32_t id = lookup(b, name, 0);
	const struct btf_type *t = type_at(b, id);
	struct idd_btf *in = b;

	memset(out, 0, sizeof(*out));
	if (b->broken)
		return idd_error(INODEDUMP_ERR_TYPE, "%s", b->broken->message);
	if (!t && !b->first_id) /* not parsed: no such btf */
		return idd_error(INODEDUMP_ERR_TYPE, "no BTF");
	if (!t && b->lz) {
		/*
		 * Not found on demand, or a read failed: read whole (a
		 * module's BTF is split on vmlinux's, parsed by libbpf).
		 */
		lazy_whole(b);
		return struct_once(b, name, out);
	}
	if (!t && b->first_id == 1) {
		/* Not vmlinux's: a module's, if one has it. */
		if (!b->mods_tried)
			load_modules(b);
		for (size_t i = 0; i < b->nmods && !t; i++) {
			id = lookup(b->mods[i], name, 0);
			t = type_at(b->mods[i], id);
			in = b->mods[i];
		}
	}
	if (!t)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's BTF has no struct %s (vmlinux's, "
				 "nor that of the %zu modules with BTF)",
				 name, b->nmods);
	/* The dump is untrusted: no struct the decode reads is this big. */
	if (t->size > STRUCT_MAX)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's BTF is corrupt: struct %s claims "
				 "%u bytes", name, t->size);
	out->btf_id = id;
	out->btf = in == b ? NULL : in;
	out->size = t->size;
	return NULL;
}

struct inodedump_error *idd_btf_struct(struct idd_btf *b, const char *name,
				       struct idd_struct *out)
{
	struct inodedump_error *err = struct_once(b, name, out);

	if (lazy_settle(b)) {
		inodedump_error_free(err);
		err = struct_once(b, name, out);
	}
	return err;
}

static void describe(struct idd_btf *b, uint32_t type, struct idd_member *out)
{
	const struct btf_type *t = type_at(b, type);
	__s64 size;

	out->btf = b;
	out->btf_type = type;
	out->kind = IDD_KIND_OTHER;
	if (!t)
		return;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		out->kind = IDD_KIND_INT;
		out->size = t->size;
		out->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		out->kind = IDD_KIND_INT;
		out->size = t->size;
		return;
	case BTF_KIND_PTR:
		out->kind = IDD_KIND_PTR;
		out->size = 8; /* BTF is only made for 64-bit kernels we read */
		return;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		out->kind = IDD_KIND_STRUCT;
		out->size = t->size;
		return;
	case BTF_KIND_ARRAY:
		out->kind = IDD_KIND_ARRAY;
		break;
	default:
		break;
	}
	size = b->lz ? lazy_size(b, type) : B.resolve_size(b->btf, type);
	out->size = size > 0 ? (uint64_t)size : 0;
}

/*
 * Member by name in an aggregate, looking into anonymous members. *budget
 * bounds the members looked at in all: a type that contains itself
 * anonymously must not make the search exponential.
 */
static bool find_member(struct idd_btf *b, uint32_t agg, const char *name,
			size_t len, uint64_t *bits, uint32_t *type,
			uint32_t *bitfield, int depth, unsigned *budget)
{
	const struct btf_type *t = type_at(b, agg);
	const struct btf_member *m;

	if (depth > 8 || !t || !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = str_at(b, m->name_off);
		uint64_t inner = 0;

		if (!*budget)
			return false;
		--*budget;
		if (n && *n) {
			if (strlen(n) == len && !memcmp(n, name, len)) {
				*bits += btf_member_bit_offset(t, i);
				*bitfield = btf_member_bitfield_size(t, i);
				*type = m->type;
				return true;
			}
			continue;
		}
		if (find_member(b, peel(b, m->type), name, len, &inner, type,
				bitfield, depth + 1, budget)) {
			*bits += btf_member_bit_offset(t, i) + inner;
			return true;
		}
	}
	return false;
}

static void member_once(struct idd_btf *b, const struct idd_struct *s,
			const char *path, struct idd_member *out)
{
	uint32_t type = s->btf_id, bitfield = 0;

	if (s->btf)
		b = s->btf; /* a module's struct: its split BTF */
	uint64_t bits = 0;
	unsigned budget = 1u << 16;

	memset(out, 0, sizeof(*out));
	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (!find_member(b, type, p, len, &bits, &type, &bitfield, 0,
				 &budget))
			return;
		type = peel(b, type);
		if (!type_at(b, type))
			return; /* void, or an id past the types */
		if (!dot)
			break;
		if (bitfield)
			return;
		p = dot + 1;
	}
	out->present = true;
	describe(b, type, out);
	if (bitfield) {
		out->bit_size = bitfield;
		out->bit_offset = bits % 8;
		out->size = (out->bit_offset + bitfield + 7) / 8;
	} else if (bits % 8) {
		out->present = false; /* no kernel member is placed so */
		return;
	}
	out->offset = bits / 8;
	/*
	 * Callers read members out of a buffer of the struct's size: a
	 * member outside it is corrupt BTF (the dump is untrusted input).
	 */
	if (out->size > s->size || out->offset > s->size - out->size)
		memset(out, 0, sizeof(*out));
}

void idd_btf_types_member(struct idd_btf *b, const struct idd_struct *s,
			  const char *path, struct idd_member *out)
{
	member_once(b, s, path, out);
	if (lazy_settle(s->btf ? s->btf : b))
		member_once(b, s, path, out);
}

bool idd_btf_member(struct idd_btf *b, const char *structname,
		    const char *path, struct idd_member *out)
{
	struct idd_struct s;
	struct inodedump_error *err = idd_btf_struct(b, structname, &s);

	memset(out, 0, sizeof(*out));
	if (err) {
		inodedump_error_free(err);
		return false;
	}
	idd_btf_types_member(b, &s, path, out);
	return out->present;
}

static struct inodedump_error *pointee_once(struct idd_btf *base,
					     const struct idd_member *m,
					     struct idd_struct *out)
{
	struct idd_btf *b = m->btf ? m->btf : base;
	const struct btf_type *p = type_at(b, m->btf_type), *t;
	uint32_t target;

	if (m->kind != IDD_KIND_PTR || !p || !btf_is_ptr(p))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "member is not a pointer to a struct");
	target = peel(b, p->type);
	t = type_at(b, target);
	if (t && btf_is_composite(t) && t->size <= STRUCT_MAX) {
		memset(out, 0, sizeof(*out));
		out->btf_id = target;
		out->btf = b == base ? NULL : b;
		out->size = t->size;
		return NULL;
	}
	if (!t || !btf_is_fwd(t) || !t->name_off)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "pointer to an anonymous incomplete type");
	return struct_once(base, name_of(b, t), out);
}

struct inodedump_error *idd_btf_pointee(struct idd_btf *base,
					const struct idd_member *m,
					struct idd_struct *out)
{
	struct inodedump_error *err = pointee_once(base, m, out);

	if (lazy_settle(m->btf ? m->btf : base)) {
		inodedump_error_free(err);
		err = pointee_once(base, m, out);
	}
	return err;
}

/* Each enumerator of enum type id, its value signed as the enum says. */
static void each_enumerator(const struct idd_btf *b, uint32_t id,
			    idd_enumerator_fn fn, void *arg)
{
	const struct btf_type *t = type_at(b, id);
	bool sign = t && btf_kflag(t);

	if (!t)
		return;
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (uint32_t i = 0; i < btf_vlen(t); i++, e++)
			fn(str_at(b, e->name_off),
			   sign ? (int64_t)e->val : (int64_t)(uint32_t)e->val,
			   arg);
	} else if (btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (uint32_t i = 0; i < btf_vlen(t); i++, e++)
			fn(str_at(b, e->name_off),
			   (int64_t)btf_enum64_value(e), arg);
	}
}

/*
 * Read on demand: enum id and its enumerators' names copied, before any is
 * told to a caller (who cannot take back what a failed read gave it).
 */
static bool enum_readable(struct idd_btf *b, uint32_t id)
{
	const struct btf_type *t = type_at(b, id);

	if (t && btf_is_enum(t))
		for (uint32_t i = 0; i < btf_vlen(t); i++)
			str_at(b, btf_enum(t)[i].name_off);
	else if (t && btf_is_enum64(t))
		for (uint32_t i = 0; i < btf_vlen(t); i++)
			str_at(b, btf_enum64(t)[i].name_off);
	return !b->lz || !b->lz->failed;
}

bool idd_btf_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			 void *arg)
{
	const struct btf_type *t;

	if (m->btf && m->btf->lz && !enum_readable(m->btf, m->btf_type))
		lazy_settle(m->btf);
	t = type_at(m->btf, m->btf_type);

	if (!t || !btf_is_any_enum(t))
		return false;
	each_enumerator(m->btf, m->btf_type, fn, arg);
	return true;
}

bool idd_btf_enum(struct idd_btf *b, const char *enum_name,
		  idd_enumerator_fn fn, void *arg)
{
	uint32_t id = lookup(b, enum_name, 1);

	if (lazy_settle(b))
		id = lookup(b, enum_name, 1);
	if (b->lz && id && !enum_readable(b, id)) {
		lazy_whole(b);
		id = lookup(b, enum_name, 1);
	}

	if (!id)
		return false;
	each_enumerator(b, id, fn, arg);
	return true;
}

struct find_enumerator {
	const char *name;
	int64_t value;
	bool found;
};

static void match_enumerator(const char *name, int64_t value, void *arg)
{
	struct find_enumerator *f = arg;

	if (!f->found && name && !strcmp(name, f->name)) {
		f->value = value;
		f->found = true;
	}
}

bool idd_btf_enumerator_in(struct idd_btf *b, const char *enum_name,
			   const char *name, int64_t *value)
{
	struct find_enumerator f = { .name = name };

	if (enum_name && idd_btf_enum(b, enum_name, match_enumerator, &f) &&
	    f.found) {
		*value = f.value;
		return true;
	}
	return idd_btf_enumerator(b, name, value);
}

bool idd_btf_enumerator(struct idd_btf *b, const char *name, int64_t *value)
{
	struct find_enumerator f = { .name = name };

	lazy_whole(b); /* every enum is looked at */

	for (size_t i = 0; i < b->nenums && !f.found; i++)
		each_enumerator(b, b->enums[i], match_enumerator, &f);
	if (f.found)
		*value = f.value;
	return f.found;
}

/* ------------------------------------------------------------ sources -- */

/* ----------------------------------------------------------- modules -- */

#define MAX_MODULES 4096
#define MODULE_BTF_MAX (16u << 20)

/* A module's BTF bytes, split on vmlinux's (base). */
static struct idd_btf *parse_split(struct idd_btf *base, const void *data,
				   size_t size, const char *module)
{
	char path[64];
	struct idd_btf *m;
	int fd = memfd_create("inodedump-module-btf", MFD_CLOEXEC);
	bool ok = fd >= 0 && write(fd, data, size) == (ssize_t)size;

	if (!ok || !B.parse_raw_split) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m = calloc(1, sizeof(*m));
	if (m)
		m->btf = B.parse_raw_split(path, base->btf);
	close(fd);
	if (!m || !m->btf) {
		free(m);
		return NULL;
	}
	m->ntypes = B.type_cnt(m->btf);
	m->first_id = base->ntypes;
	m->size = size;
	snprintf(m->module, sizeof(m->module), "%s", module);
	if (build_index(m)) {
		idd_btf_free(m);
		return NULL;
	}
	return m;
}

void idd_btf_set_source(struct idd_btf *b, struct idd_symbols *syms,
			struct idd_target *t)
{
	b->syms = syms;
	b->target = t;
}

/*
 * Every loaded module's BTF, from the kernel's btf_modules list (struct
 * btf_module: the module's struct btf, whose data and data_size are its
 * raw split BTF; struct module's own btf_data is freed after init). Types
 * from vmlinux's BTF. A module that cannot be read is left out.
 */
static void load_modules(struct idd_btf *b)
{
	struct idd_struct bm, bt;
	struct idd_member list, btf_m, data, data_size, name;
	uint64_t head, next;
	struct inodedump_error *err;

	b->mods_tried = true;
	if (!b->syms || !b->target ||
	    !idd_symbols_address(b->syms, "btf_modules", &head))
		return;
	if ((err = idd_btf_struct(b, "btf_module", &bm)) ||
	    (err = idd_btf_struct(b, "btf", &bt))) {
		inodedump_error_free(err);
		return;
	}
	idd_btf_types_member(b, &bm, "list", &list);
	idd_btf_types_member(b, &bm, "btf", &btf_m);
	idd_btf_types_member(b, &bt, "data", &data);
	idd_btf_types_member(b, &bt, "data_size", &data_size);
	idd_btf_types_member(b, &bt, "name", &name);
	if (!list.present || !btf_m.present || !data.present ||
	    !data_size.present || bt.size > 4096 ||
	    idd_target_read_u64(b->target, head, &next))
		return;
	for (size_t n = 0; next != head && n < MAX_MODULES; n++) {
		uint8_t sbtf[4096];
		uint64_t at, mbtf, raw, size;
		struct idd_btf *m, **grown;
		char mod[64] = "";
		void *bytes;

		at = next - list.offset;
		if (idd_target_read_u64(b->target, next, &next) ||
		    idd_target_read_u64(b->target, at + btf_m.offset, &mbtf) ||
		    !mbtf || (err = idd_target_read(b->target, mbtf, sbtf, bt.size))) {
			inodedump_error_free(err);
			err = NULL;
			continue;
		}
		raw = idd_member_uval(&data, sbtf);
		size = idd_member_uval(&data_size, sbtf);
		if (name.present)
			memcpy(mod, sbtf + name.offset,
			       name.size < sizeof(mod) ? name.size : sizeof(mod) - 1);
		if (!raw || size < 24 || size > MODULE_BTF_MAX ||
		    !(bytes = malloc(size)))
			continue;
		if ((err = idd_target_read(b->target, raw, bytes, size))) {
			inodedump_error_free(err);
			err = NULL;
			free(bytes);
			continue;
		}
		m = parse_split(b, bytes, size, mod);
		free(bytes);
		if (!m)
			continue;
		grown = realloc(b->mods, (b->nmods + 1) * sizeof(*grown));
		if (!grown) {
			idd_btf_free(m);
			return;
		}
		b->mods = grown;
		b->mods[b->nmods++] = m;
	}
}

struct idd_btf *idd_btf_open_on_demand(struct idd_target *t, uint64_t kbtf,
				       uint64_t start, uint64_t stop,
				       const char *cache_dir)
{
	struct idd_btf *b;

	if (stop <= start || stop - start > BTF_MAX_SIZE || bpf_load())
		return NULL;
	b = calloc(1, sizeof(*b));
	if (b && !lazy_open(b, t, kbtf, start, stop, cache_dir) &&
	    !scan_open(b, t, start, stop, cache_dir)) {
		free(b);
		b = NULL;
	}
	return b;
}

bool idd_btf_on_demand(const struct idd_btf *b)
{
	return b && b->lz;
}

bool idd_btf_own_offsets(const struct idd_btf *b)
{
	return b && b->lz && !b->lz->index && !b->lz->scan;
}

bool idd_btf_from_start(const struct idd_btf *b)
{
	return b && b->lz && b->lz->scan;
}

const char *idd_btf_reading(const struct idd_btf *b)
{
	if (!b || !b->lz)
		return "";
	if (b->lz->scan)
		return b->lz->cached_types
			       ? ", read on demand from its start: it is not "
				 "sorted; what earlier runs read, from the cache"
			       : ", read on demand from its start: it is not "
				 "sorted";
	if (b->lz->index)
		return ", read on demand";
	return b->lz->types_cached.data
		       ? ", read on demand, its types from the cache: the "
			 "kernel's index of them is not in the dump"
		       : ", read on demand, its types whole: the kernel's "
			 "index of them is not in the dump";
}

const char *idd_btf_module(const struct idd_btf *b)
{
	return b && b->module[0] ? b->module : NULL;
}

/* A member's byte offset in struct agg, or -1. */
static int64_t lazy_member_offset(struct idd_btf *b, uint32_t agg,
				  const char *name)
{
	uint64_t bits = 0;
	uint32_t type = 0, bitfield = 0;
	unsigned budget = 1u << 12;

	if (!agg || !find_member(b, agg, name, strlen(name), &bits, &type,
				 &bitfield, 0, &budget) ||
	    bits % 8 || bitfield)
		return -1;
	return (int64_t)(bits / 8);
}

/*
 * Whether every page of the kernel's index was kept in the dump, as far
 * as its bitmap tells (no page is read): makedumpfile -d 31 is known to
 * drop the tail pages of a large kmalloc() allocation, which the index of
 * a 7.x kernel is (1 MB).
 */
static bool index_kept(struct idd_target *t, uint64_t index, uint32_t nr)
{
	uint64_t page = idd_target_page_size(t), end = index + 8ull * nr, pa;

	if (end < index)
		return false;
	if (!page)
		return true; /* a target with no pages (memory): nothing left out */
	for (uint64_t va = index & ~(page - 1); va < end; va += page) {
		if (!idd_target_walk(t, va, &pa))
			continue; /* our walk cannot tell: the reads will */
		switch (idd_target_pfn_state(t, pa / page)) {
		case IDD_PFN_NO_RAM:
		case IDD_PFN_EXCLUDED:
			return false;
		default:
			break;
		}
	}
	return true;
}

/*
 * Without the kernel's index: the type records read whole (a third less
 * than the whole BTF, and no libbpf parse) and the offset of each taken,
 * each record's kind and size checked and the last ending the types;
 * names stay read on demand. The count of types, or 0.
 */
#define TYPES_CACHE_NAME "vmlinux.btf.types"

/*
 * Whether data (len bytes from the cache) has the dump's bytes at at, as
 * far as eight samples of 256 bytes along it tell, the first and the
 * last included (a few pages read against a whole section's).
 */
static bool same_as_dump(struct lazy *lz, uint64_t at, const uint8_t *data,
			 size_t len)
{
	uint8_t sample[256];
	size_t n = len < sizeof(sample) ? len : sizeof(sample);
	bool same = true;

	for (size_t k = 0; same && n && k < 8; k++) {
		size_t off = (len - n) / 7 * k;

		if (k == 7)
			off = len - n;
		same = lazy_read(lz, at + off, sample, n) &&
		       !memcmp(data + off, sample, n);
	}
	return same;
}

/*
 * The type records from the cache (cache_dir, NULL: none) when its copy
 * has their size and the dump's bytes where same_as_dump() samples them.
 */
static bool types_from_cache(struct lazy *lz, const char *cache_dir,
			     size_t len)
{
	bool same;

	if (!cache_dir ||
	    !idd_cache_map(cache_dir, TYPES_CACHE_NAME, &lz->types_cached))
		return false;
	same = lz->types_cached.size == len &&
	       same_as_dump(lz, lz->types_at, lz->types_cached.data, len);
	if (!same) {
		idd_cache_unmap(&lz->types_cached);
		lz->types_cached.data = NULL;
		return false;
	}
	lz->types_buf = lz->types_cached.data;
	return true;
}

static uint32_t own_offsets(struct lazy *lz, const char *cache_dir)
{
	size_t len = lz->types_end - lz->types_at, off = 0, cap = len / 12 + 2;
	uint32_t n = 1;

	lz->offs = malloc(cap * sizeof(*lz->offs));
	if (!lz->offs)
		return 0;
	if (!types_from_cache(lz, cache_dir, len)) {
		lz->failed = false;
		if (!(lz->types_buf = malloc(len)) ||
		    !lazy_read(lz, lz->types_at, lz->types_buf, len))
			return 0;
		if (cache_dir) {
			struct idd_cache_part part = { lz->types_buf, len };

			idd_cache_store(cache_dir, TYPES_CACHE_NAME, &part, 1);
		}
	}
	lz->offs[0] = 0; /* void: never looked at (type_at() stops at 0) */
	while (off < len) {
		const struct btf_type *r = (const void *)(lz->types_buf + off);
		size_t size = len - off >= 12 ? record_size(r) : 0;

		if (!size || size > len - off || n + 1 >= cap)
			return 0;
		lz->offs[n++] = (uint32_t)off;
		off += size;
	}
	return n;
}

/* Whether lz's BTF begins with an anonymous type, as sorted BTF does. */
static bool first_anonymous_in(struct lazy *lz, struct btf_type *first)
{
	return lazy_read(lz, lz->types_at, first, 12) && !first->name_off &&
	       record_size(first);
}

/* lz set up for the BTF at start..stop, from its header; false: not BTF. */
static bool lazy_header(struct lazy *lz, struct idd_target *t, uint64_t start,
			uint64_t stop, struct btf_header *h)
{
	lz->t = t;
	lz->start = start;
	lz->stop = stop;
	if (!lazy_read(lz, start, h, sizeof(*h)) || h->magic != BTF_MAGIC ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > stop - start ||
	    h->type_off % 4 || h->type_len < 24 || !h->str_len ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > stop - start ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > stop - start)
		return false;
	lz->types_at = start + h->hdr_len + h->type_off;
	lz->types_end = lz->types_at + h->type_len;
	lz->strs_at = start + h->hdr_len + h->str_off;
	lz->strs_len = h->str_len;
	lz->page = idd_target_page_size(t);
	if (!lz->page || (lz->page & (lz->page - 1)))
		lz->page = 4096; /* the unit the index is checked by */
	return true;
}

/*
 * Set b up to read the BTF at start..stop from its start, as far as its
 * lookups need ("BTF in no order" above): any BTF, sorted or not, and
 * nothing read yet but its header. False leaves b as it was.
 */
static bool scan_open(struct idd_btf *b, struct idd_target *t, uint64_t start,
		      uint64_t stop, const char *cache_dir)
{
	struct lazy *lz = calloc(1, sizeof(*lz));
	struct btf_header h;

	if (!lz)
		return false;
	if (!lazy_header(lz, t, start, stop, &h) ||
	    !(lz->types_buf = malloc(h.type_len)) ||
	    !(lz->offs = malloc((h.type_len / 12 + 2) * sizeof(*lz->offs))) ||
	    !(lz->strs_buf = malloc(h.str_len))) {
		lazy_free(lz);
		return false;
	}
	lz->scan = true;
	lz->scan_n = 1; /* id 0, void, has no record */
	lz->offs[0] = 0;
	if (cache_dir && !(lz->cache_dir = strdup(cache_dir))) {
		lazy_free(lz);
		return false;
	}
	start_from_cache(lz);
	b->lz = lz;
	b->ntypes = h.type_len / 12 + 2; /* no more than this: taken as read */
	b->first_id = 1;
	b->size = stop - start;
	return true;
}

/*
 * Set b up to read the BTF at start..stop on demand, when the kernel's
 * own index of it is found through the pointer at kbtf (btf_vmlinux's
 * address; 0: none) and says it is sorted; false leaves b as it
 * was (then read whole). Reads nothing more than the BTF's first page
 * for a BTF that is not sorted (its first type is named).
 */
static bool lazy_open(struct idd_btf *b, struct idd_target *t,
		      uint64_t kbtf, uint64_t start, uint64_t stop,
		      const char *cache_dir)
{
	struct lazy *lz = calloc(1, sizeof(*lz));
	struct btf_header h;
	struct btf_type first;
	uint64_t words[LAZY_BTF_READ / 8], addr[2];
	size_t nwords;
	uint32_t nr = 0;
	int64_t off_types, off_nr, off_named;
	uint32_t sbtf;

	if (!lz)
		return false;
	if (!lazy_header(lz, t, start, stop, &h) ||
	    (cache_dir && !(lz->cache_dir = strdup(cache_dir))))
		goto no;
	/* Sorted BTF begins with its anonymous types. */
	if (!first_anonymous_in(lz, &first))
		goto no;
	addr[0] = lz->types_at;
	addr[1] = lz->types_at + record_size(&first);
	if (!kbtf || !lazy_read(lz, kbtf, &kbtf, 8) || kbtf < KERNEL_MIN)
		goto no;
	/*
	 * struct btf is a kmalloc() object (248 bytes on 7.3): what follows
	 * it on its page is read too, not what is on the next page, which a
	 * dump may have left out.
	 */
	memset(words, 0, sizeof(words));
	nwords = LAZY_BTF_READ / 8;
	{
		uint64_t page = idd_target_page_size(t);
		uint64_t to_end = page ? page - (kbtf & (page - 1)) : LAZY_BTF_READ;

		if (page && !(page & (page - 1)) && to_end >= 256 &&
		    to_end < LAZY_BTF_READ)
			nwords = (size_t)to_end / 8;
	}
	if (!lazy_read(lz, kbtf, words, 8 * nwords))
		goto no;
	/* The index: the pointer whose entries 1 and 2 are those records. */
	off_types = -1;
	lz->failed = false; /* from here a failed read only rules a word out */
	for (size_t w = 0; w < nwords && off_types < 0; w++) {
		uint64_t e[2];

		if (words[w] >= KERNEL_MIN && words[w] % 8 == 0 &&
		    lazy_read(lz, words[w] + 8, e, 16) &&
		    e[0] == addr[0] && e[1] == addr[1]) {
			lz->index = words[w];
			off_types = (int64_t)(8 * w);
		}
	}
	/* The count: the word whose last entry is the record ending the types. */
	off_nr = -1;
	for (size_t w = 0; w < 2 * nwords && off_types >= 0 && off_nr < 0; w++) {
		uint32_t n;
		uint64_t last;
		struct btf_type *r;

		memcpy(&n, (uint8_t *)words + 4 * w, 4);
		if (n < 3 || n > h.type_len / 12 + 1 ||
		    !lazy_read(lz, lz->index + 8ull * (n - 1), &last, 8) ||
		    last < lz->types_at || last >= lz->types_end)
			continue;
		r = read_record(lz, last);
		if (r && last + record_size(r) == lz->types_end) {
			nr = n;
			off_nr = (int64_t)(4 * w);
		}
		free(r);
	}
	lz->failed = false;
	if (off_types < 0 || off_nr < 0 || !index_kept(t, lz->index, nr)) {
		/* No index to use: the records' offsets taken here. */
		lz->index = 0;
		nr = own_offsets(lz, cache_dir);
		if (!nr || lz->failed)
			goto no;
	}
	lz->nr = nr;
	if (lz->index &&
	    !(lz->checked = calloc((8ull * nr / lz->page + 2) / 8 + 1, 1)))
		goto no;
	b->lz = lz;
	b->ntypes = nr;
	b->first_id = 1;
	/* The first named type: anonymous ones come first. */
	{
		uint32_t lo = 1, hi = nr;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			const struct btf_type *r = type_at(b, mid);

			if (!r)
				goto off;
			if (r->name_off)
				hi = mid;
			else
				lo = mid + 1;
		}
		lz->named = lo;
	}
	/* Now check all of it against struct btf as this BTF describes it. */
	sbtf = lookup(b, "btf", 0);
	off_named = lazy_member_offset(b, sbtf, "named_start_id");
	if (!lz->index) {
		/* The count is then checked where struct btf keeps it. */
		off_nr = lazy_member_offset(b, sbtf, "nr_types");
		off_types = lazy_member_offset(b, sbtf, "types");
		if (off_nr < 0 || off_nr + 4 > (int64_t)(8 * nwords) ||
		    memcmp((uint8_t *)words + off_nr, &nr, 4))
			goto off;
	}
	if (lz->failed || !sbtf || off_named < 0 ||
	    off_named + 4 > (int64_t)(8 * nwords) ||
	    lazy_member_offset(b, sbtf, "types") != off_types ||
	    lazy_member_offset(b, sbtf, "nr_types") != off_nr ||
	    memcmp((uint8_t *)words + off_named, &lz->named, 4))
		goto off;
	b->size = stop - start;
	return true;
off:
	b->lz = NULL;
	b->ntypes = 0;
	b->first_id = 0;
no:
	lazy_free(lz);
	return false;
}

#define CACHE_NAME "vmlinux.btf"

/*
 * The kernel's BTF at start (size bytes) read whole out of the dump and
 * parsed by libbpf; kept in cache_dir (NULL: not) once parsed.
 */
static struct inodedump_error *read_whole(struct idd_target *t, uint64_t start,
					  size_t size, const char *cache_dir,
					  struct idd_btf **out)
{
	_cleanup_free_ uint8_t *copy = malloc(size);
	struct inodedump_error *err;

	*out = NULL;
	if (!copy)
		return idd_nomem();
	err = idd_target_read(t, start, copy, size);
	if (err)
		return idd_error_wrap(err, "the kernel's BTF (%zu bytes at 0x%" PRIx64 ")",
				      size, start);
	err = idd_btf_parse_cached(copy, size, "in the dump", cache_dir, out);
	if (!err && cache_dir) {
		struct idd_cache_part part = { copy, size };

		idd_cache_store(cache_dir, CACHE_NAME, &part, 1);
	}
	return err;
}

/*
 * After a lookup: if reading on demand failed, read the BTF whole from
 * then on (libbpf checks it, the messages say what is wrong); true when
 * the lookup is to be made again.
 */
static bool lazy_settle(struct idd_btf *b)
{
	struct lazy *lz = b->lz;
	struct idd_btf *whole = NULL;
	struct inodedump_error *err;

	if (!lz || !lz->failed)
		return false;
	b->lz = NULL;
	/* Kept, as any whole read is: the next run maps it instead. */
	err = read_whole(lz->t, lz->start, lz->stop - lz->start, lz->cache_dir,
			 &whole);
	lazy_free(lz);
	b->ntypes = 0;
	if (err) {
		b->broken = err;
		return true;
	}
	b->btf = whole->btf;
	b->ntypes = whole->ntypes;
	b->slots = whole->slots;
	b->mask = whole->mask;
	b->enums = whole->enums;
	b->nenums = whole->nenums;
	free(whole);
	return true;
}

/* Read the BTF whole now (for what only whole BTF answers). */
static void lazy_whole(struct idd_btf *b)
{
	if (b->lz) {
		b->lz->failed = true;
		lazy_settle(b);
	}
}

/* Whether the BTF at start..stop begins with an anonymous type (sorted). */
static bool first_anonymous(struct idd_target *t, uint64_t start,
			    uint64_t stop)
{
	struct lazy lz = { 0 };
	struct btf_header h;
	struct btf_type first;

	return lazy_header(&lz, t, start, stop, &h) &&
	       first_anonymous_in(&lz, &first);
}

/*
 * BTF in no order that earlier runs read from its start and kept: where
 * the cache says it lies (moved by this dump's KASLR offset), when the
 * dump has it there (its header, and the kept bytes at a few places).
 * Saves the lookups of its place in kallsyms. NULL: not so.
 */
static struct idd_btf *start_cached(struct idd_target *t,
				    const char *cache_dir, uint64_t *at)
{
	struct idd_cache_file f;
	uint64_t h[7], kaslr = kaslr_of(t);
	struct idd_btf *b;
	bool ok;

	if (!cache_dir || !idd_cache_map(cache_dir, START_CACHE_NAME, &f))
		return NULL;
	ok = start_header(&f, h);
	idd_cache_unmap(&f);
	if (!ok || h[6] <= h[5] || h[6] - h[5] != h[0] || h[0] > BTF_MAX_SIZE ||
	    bpf_load() || !(b = calloc(1, sizeof(*b))))
		return NULL;
	if (!scan_open(b, t, h[5] + kaslr, h[6] + kaslr, cache_dir) ||
	    !b->lz->cached_types) {
		idd_btf_free(b);
		return NULL;
	}
	*at = h[5] + kaslr;
	return b;
}

struct inodedump_error *idd_btf_from_dump(struct idd_symbols *syms,
					  struct idd_target *t,
					  const char *cache_dir,
					  struct idd_btf **out, bool *cached,
					  uint64_t *at)
{
	uint64_t start, stop;
	struct idd_cache_file f;
	struct inodedump_error *err;

	*out = NULL;
	*cached = false;
	*at = 0;
	/*
	 * The cache is the kernel's by build-id, and checked as it is
	 * parsed: taken before the two lookups by name that find the dump's
	 * copy (each a search of kallsyms in the dump's pages).
	 */
	if (idd_cache_map(cache_dir, CACHE_NAME, &f)) {
		err = idd_btf_parse_cached(f.data, f.size, "in the cache",
					   cache_dir, out);
		idd_cache_unmap(&f);
		if (!err) {
			*cached = true;
			return NULL;
		}
		inodedump_error_free(err); /* read the dump's, then */
	}
	if (!getenv("INODEDUMP_BTF_WHOLE") &&
	    (*out = start_cached(t, cache_dir, at)))
		return NULL;
	if (!idd_symbols_address(syms, "__start_BTF", &start) ||
	    !idd_symbols_address(syms, "__stop_BTF", &stop) || stop <= start)
		return NULL;
	*at = start;
	if (stop - start > BTF_MAX_SIZE)
		return idd_error_at(INODEDUMP_ERR_DUMP, start,
				    "BTF at 0x%" PRIx64 ": %" PRIu64 " bytes",
				    start, stop - start);
	if (!getenv("INODEDUMP_BTF_WHOLE")) {
		uint64_t kbtf = 0;

		/* The kernel's index is looked for only where it is sorted. */
		if (first_anonymous(t, start, stop))
			idd_symbols_address(syms, "btf_vmlinux", &kbtf);
		if ((*out = idd_btf_open_on_demand(t, kbtf, start, stop,
						   cache_dir)))
			return NULL;
	}
	err = read_whole(t, start, stop - start, cache_dir, out);
	return err;
}

/* ------------------------------------------------------ type source -- */

static void source_close(void *src)
{
	idd_btf_free(src);
}

/* One namespace: no unit to look in. */
static struct inodedump_error *source_struct(void *src, const char *name,
					     const char *cu_hint,
					     struct idd_struct *out)
{
	(void)cu_hint;
	return idd_btf_struct(src, name, out);
}

static void source_member(void *src, const struct idd_struct *s,
			  const char *path, struct idd_member *out)
{
	idd_btf_types_member(src, s, path, out);
}

static struct inodedump_error *source_pointee(void *src,
					      const struct idd_member *m,
					      struct idd_struct *out)
{
	return idd_btf_pointee(src, m, out);
}

static bool source_enumerator(void *src, const char *cu_hint,
			      const char *enum_hint, const char *name,
			      int64_t *value)
{
	(void)cu_hint;
	return idd_btf_enumerator_in(src, enum_hint, name, value);
}

static bool source_enum(void *src, const char *cu_hint, const char *enum_name,
			idd_enumerator_fn fn, void *arg)
{
	(void)cu_hint;
	return idd_btf_enum(src, enum_name, fn, arg);
}

const struct idd_type_ops idd_btf_ops = {
	.close = source_close,
	.find_struct = source_struct,
	.member = source_member,
	.pointee = source_pointee,
	.enumerator = source_enumerator,
	.enum_values = source_enum,
	.member_enum = idd_btf_member_enum,
};
