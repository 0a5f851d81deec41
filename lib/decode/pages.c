// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why a page is not in the dump, from the dump itself. A dump writer that
 * filters (makedumpfile's -d) keeps the page descriptors (mem_map, the
 * vmemmap) at every level: what each page was is still there. When a read
 * hits a page the writer left out, this reads that page's struct page with
 * the types of the kernel being read (page flags by the pageflags enum,
 * page_type by the pagetype enum, the compound word as this kernel encodes
 * it) and says what the page was, which dump-level bit excludes that kind
 * of page, and whether the exclusion fits. A kernel without the pagetype
 * enum (before 6.11: 5.10's PG_buddy is a #define) marks a page's type
 * with a whole page_type word VMCOREINFO gives (PAGE_BUDDY_MAPCOUNT_VALUE
 * and its like), and a slab page with the PG_slab flag (before 6.10): a slab page is kernel memory
 * that no bit excludes, so a slab page left out is the writer's mistake.
 * No writer is named by version: the dump does not say which wrote it.
 * This kernel's struct page and where each frame's is (the memory map)
 * are found once a session by pages_layout.c; a memory map the target
 * worked out is checked here before any page is read through it.
 *
 * The dump-level bits are makedumpfile's (-d, makedumpfile(8)); which
 * kind of page each excludes follows its rules: free = in the buddy
 * allocator (page_type buddy, the block of 2^private pages it heads);
 * cache = on an LRU list (or swap cache) and not anonymous; user =
 * anonymous (mapping's low bit) and not slab, or hugetlb.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "decode/memmap.h"
#include "decode/pages_internal.h"
#include "decode/session.h"

/* makedumpfile's dump-level bits. */
enum {
	DL_ZERO = 1,
	DL_CACHE = 2,
	DL_CACHE_PRI = 4,
	DL_USER = 8,
	DL_FREE = 16,
	DL_ALWAYS = 32, /* not a bit: excluded at every level */
};

/*
 * The low bits of page->mapping that mark an anonymous page. A #define,
 * not in the DWARF: include/linux/page-flags.h PAGE_MAPPING_ANON 0x1 and
 * PAGE_MAPPING_KSM 0x3 (2.6.x to 6.x), FOLIO_MAPPING_ANON 0x1 and
 * FOLIO_MAPPING_KSM 0x3 (7.x): the same values in every kernel we read.
 */
#define MAPPING_ANON 0x1u
#define MAPPING_KSM 0x3u

#define NAME_MAX_CACHE 64

enum page_kind {
	PK_OTHER,     /* kernel memory no test of a writer excludes */
	PK_SLAB,
	PK_LARGE_KMALLOC,
	PK_FREE,
	PK_UNACCEPTED,
	PK_OFFLINE,
	PK_HWPOISON,
	PK_TABLE,
	PK_HUGETLB,
	PK_ANON,
	PK_KSM,
	PK_CACHE,
	PK_RESERVED,
	PK_UNUSED,    /* no reference, not in the buddy allocator */
};

/* One struct page, as read. */
struct page_info {
	uint64_t pfn, addr;
	uint64_t flags, mapping, private_, compound;
	uint32_t page_type;
	int32_t refcount;
};

/* What the page was. */
struct page_what {
	enum page_kind kind;
	struct page_info self, head;
	uint64_t block_pfn; /* PK_FREE: the buddy block's first pfn */
	unsigned block_order;
	char detail[256];
};

static void check_derived(struct inodedump *id, struct page_layout *l);

/* The layout, its derived memory map checked when it is first made. */
static struct page_layout *layout(struct inodedump *id)
{
	struct page_layout *l = id->pages_layout;

	if (l)
		return l;
	l = idd_pages_layout(id);
	if (l && l->usable && l->derived)
		check_derived(id, l);
	return l;
}

/* A struct page's fields from its bytes. */
static void page_from(const struct page_layout *l, uint64_t pfn,
		      uint64_t addr, const uint8_t *buf, struct page_info *p)
{
	memset(p, 0, sizeof(*p));
	p->pfn = pfn;
	p->addr = addr;
	p->flags = idd_member_uval(&l->flags, buf);
	p->mapping = idd_member_uval(&l->mapping, buf);
	if (l->private_.present)
		p->private_ = idd_member_uval(&l->private_, buf);
	if (l->compound.present)
		p->compound = idd_member_uval(&l->compound, buf);
	p->page_type = l->page_type.present
			       ? (uint32_t)idd_member_uval(&l->page_type, buf)
			       : UINT32_MAX;
	if (l->refcount.present)
		p->refcount = (int32_t)idd_member_sval(&l->refcount, buf);
}

static bool read_page(struct inodedump *id, const struct page_layout *l,
		      uint64_t pfn, struct page_info *p)
{
	uint8_t buf[256];
	uint64_t addr;
	struct inodedump_error *err;

	if (l->size > sizeof(buf))
		return false;
	err = idd_memmap_read(&l->mm, id->target, pfn, buf, l->size, &addr);
	idd_session_note_damage(id, "the memory map is damaged", err);
	if (err) {
		inodedump_error_free(err);
		return false;
	}
	page_from(l, pfn, addr, buf, p);
	return true;
}

static bool has_flag(const struct page_info *p, int64_t bit)
{
	return bit >= 0 && bit < 64 && (p->flags >> bit & 1);
}

/* The type page_type names ("slab", "buddy"), or NULL when none. */
static const char *page_type_name(const struct page_layout *l,
				  const struct page_info *p)
{
	if (l->types_whole) {
		for (size_t i = 0; i < l->ntypes; i++)
			if (p->page_type == (uint32_t)l->type[i].value)
				return l->type[i].name;
		return NULL;
	}
	/* DWARF may give a one-byte enumerator sign-extended (0xf5: -11). */
	for (size_t i = 0; i < l->ntypes; i++)
		if ((uint8_t)l->type[i].value != 0xff &&
		    (p->page_type >> 24) == (uint8_t)l->type[i].value)
			return l->type[i].name;
	return NULL;
}

static bool is_type(const struct page_layout *l, const struct page_info *p,
		    const char *name)
{
	const char *t = page_type_name(l, p);

	return t && !strcmp(t, name);
}

/* A slab's page: page_type slab (6.10+) or the PG_slab flag (before). */
static bool is_slab(const struct page_layout *l, const struct page_info *p)
{
	return is_type(l, p, "slab") || has_flag(p, l->pg_slab);
}

/*
 * The head page's struct page address from a tail's compound word: a
 * pointer to the head with bit 0 set, or (7.x's compound_info with the
 * HugeTLB vmemmap optimisation) a mask of high bits with bit 0 set that,
 * and-ed with the tail's address, gives the head's.
 */
static bool head_of(const struct page_layout *l, const struct page_info *p,
		    uint64_t *head)
{
	uint64_t m = p->compound & ~1ULL, low = ~m;

	if (!(p->compound & 1)) {
		*head = p->addr;
		return true;
	}
	if (l->compound_info && m && !(low & (low + 1)))
		*head = p->addr & m;
	else
		*head = m;
	return *head <= p->addr && (p->addr - *head) % l->size == 0 &&
	       (p->addr - *head) / l->size < (1u << 20) &&
	       (p->addr - *head) / l->size <= p->pfn;
}

/*
 * The head's pfn: n struct pages before the tail's is n frames before it
 * while both are in one run of the memory map (always with vmemmap; in
 * the tail's memory section else), or as the kernel's page_to_pfn says.
 */
static bool head_pfn(struct inodedump *id, const struct page_layout *l,
		     const struct page_info *p, uint64_t head, uint64_t *pfn)
{
	uint64_t n = (p->addr - head) / l->size,
		 run = idd_memmap_run(&l->mm, p->pfn - n);

	if (run == UINT64_MAX || run > n) {
		*pfn = p->pfn - n;
		return true;
	}
	return idd_memmap_pfn(&l->mm, id->target, head, pfn);
}

/* The buddy block holding pfn: its head, whose order (private) covers it. */
static bool free_block(struct inodedump *id, const struct page_layout *l,
		       uint64_t pfn, struct page_what *w)
{
	for (unsigned order = 0; order < l->orders; order++) {
		uint64_t base = pfn & ~((1ULL << order) - 1);
		struct page_info b;

		if (!read_page(id, l, base, &b))
			return false;
		if (is_type(l, &b, "buddy") && b.private_ >= order &&
		    b.private_ < l->orders) {
			w->block_pfn = base;
			w->block_order = (unsigned)b.private_;
			w->head = b;
			return true;
		}
	}
	return false;
}

static IDD_ATTR_PRINTF(3, 4) void append(char *buf, size_t len,
					 const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static void slab_detail(struct inodedump *id, const struct page_layout *l,
			struct page_what *w)
{
	uint64_t cache = 0, name_addr;
	char *name = NULL;
	bool truncated;
	struct inodedump_error *err;

	if (!l->slab_cache.present || !l->cache_name.present)
		return;
	if (!(err = idd_target_read_u64(id->target,
					w->head.addr + l->slab_cache.offset,
					&cache)) && cache &&
	    !(err = idd_target_read_u64(id->target,
					cache + l->cache_name.offset,
					&name_addr)))
		err = idd_target_read_string(id->target, name_addr,
					     NAME_MAX_CACHE, &name, &truncated);
	if (err || !cache) {
		idd_session_note_damage(id, "a slab's cache is damaged", err);
		inodedump_error_free(err);
		return;
	}
	append(w->detail, sizeof(w->detail), " of kmem_cache \"%s\" (0x%" PRIx64 ")",
	       name, cache);
	free(name);
}

static void cache_detail(struct inodedump *id, const struct page_layout *l,
			 struct page_what *w)
{
	uint64_t host, ino, sb;
	uint8_t sid[32] = "";

	struct inodedump_error *err;

	if (!l->host.present || !l->i_ino.present)
		return;
	err = idd_target_read_u64(id->target, w->head.mapping + l->host.offset,
				  &host);
	if (!err && host)
		err = idd_target_read_u64(id->target, host + l->i_ino.offset,
					  &ino);
	if (err || !host) {
		append(w->detail, sizeof(w->detail),
		       " of an inode not known: its address_space 0x%" PRIx64
		       " %s", w->head.mapping,
		       err && err->code == INODEDUMP_ERR_FILTERED
			       ? "or inode is not in the dump either"
			       : "has no readable host");
		inodedump_error_free(err);
		return;
	}
	append(w->detail, sizeof(w->detail), " of inode %" PRIu64 " (0x%" PRIx64 ")",
	       ino, host);
	if (!l->i_sb.present || !l->s_id.present)
		return;
	err = idd_target_read_u64(id->target, host + l->i_sb.offset, &sb);
	if (!err && sb)
		err = idd_target_read(id->target, sb + l->s_id.offset, sid,
				      sizeof(sid) - 1);
	if (!err && sb && sid[0])
		append(w->detail, sizeof(w->detail), " on %s",
		       (const char *)sid);
	inodedump_error_free(err);
}

/* What the page at pfn was, from its struct page and its head's. */
static bool classify(struct inodedump *id, const struct page_layout *l,
		     uint64_t pfn, bool detail, struct page_what *w)
{
	const struct page_info *h;
	uint64_t head, head_frame;
	const char *type;

	memset(w, 0, sizeof(*w));
	if (!read_page(id, l, pfn, &w->self))
		return false;
	w->head = w->self;
	if (head_of(l, &w->self, &head) && head != w->self.addr &&
	    (!head_pfn(id, l, &w->self, head, &head_frame) ||
	     !read_page(id, l, head_frame, &w->head) || w->head.addr != head))
		w->head = w->self;
	h = &w->head;
	type = page_type_name(l, h);
	if (is_slab(l, h)) {
		w->kind = PK_SLAB;
		snprintf(w->detail, sizeof(w->detail), "a slab page");
		if (detail)
			slab_detail(id, l, w);
	} else if (type && !strcmp(type, "large_kmalloc")) {
		w->kind = PK_LARGE_KMALLOC;
		snprintf(w->detail, sizeof(w->detail), "a large kmalloc() allocation");
	} else if (type && !strcmp(type, "buddy")) {
		w->kind = PK_FREE;
		w->block_pfn = h->pfn;
		w->block_order = (unsigned)h->private_;
	} else if (type && !strcmp(type, "unaccepted")) {
		w->kind = PK_UNACCEPTED;
		snprintf(w->detail, sizeof(w->detail), "unaccepted memory");
	} else if (type && !strcmp(type, "offline")) {
		w->kind = PK_OFFLINE;
		snprintf(w->detail, sizeof(w->detail), "logically offline memory");
	} else if (type && !strcmp(type, "table")) {
		w->kind = PK_TABLE;
		snprintf(w->detail, sizeof(w->detail), "a page table");
	} else if (type && !strcmp(type, "hugetlb")) {
		w->kind = PK_HUGETLB;
		snprintf(w->detail, sizeof(w->detail), "a hugetlbfs page");
	} else if (has_flag(h, l->pg_hwpoison)) {
		w->kind = PK_HWPOISON;
		snprintf(w->detail, sizeof(w->detail), "a hardware-poisoned page");
	} else if (h->mapping && (h->mapping & MAPPING_KSM) == MAPPING_KSM) {
		w->kind = PK_KSM;
		snprintf(w->detail, sizeof(w->detail), "a KSM (merged user) page");
	} else if (h->mapping & MAPPING_ANON) {
		w->kind = PK_ANON;
		snprintf(w->detail, sizeof(w->detail),
			 "an anonymous (user) page (anon_vma 0x%" PRIx64 ")",
			 h->mapping & ~(uint64_t)MAPPING_KSM);
	} else if (h->mapping && (has_flag(h, l->pg_lru) ||
				  (has_flag(h, l->pg_swapcache) &&
				   has_flag(h, l->pg_swapbacked)))) {
		w->kind = PK_CACHE;
		snprintf(w->detail, sizeof(w->detail), "%spage cache",
			 has_flag(h, l->pg_private) ? "private " : "");
		if (detail)
			cache_detail(id, l, w);
	} else if (detail && free_block(id, l, pfn, w)) {
		w->kind = PK_FREE;
	} else if (has_flag(h, l->pg_reserved)) {
		w->kind = PK_RESERVED;
		snprintf(w->detail, sizeof(w->detail), "reserved memory");
	} else if (h->refcount == 0) {
		w->kind = PK_UNUSED;
		snprintf(w->detail, sizeof(w->detail),
			 "unused (no reference and not in the buddy allocator)");
	} else {
		w->kind = PK_OTHER;
		snprintf(w->detail, sizeof(w->detail), "kernel memory");
	}
	if (w->kind == PK_FREE)
		snprintf(w->detail, sizeof(w->detail),
			 "free (in the buddy allocator: a block of %llu pages "
			 "from pfn 0x%" PRIx64 ")",
			 1ULL << w->block_order, w->block_pfn);
	if (w->head.addr != w->self.addr && w->kind != PK_FREE)
		append(w->detail, sizeof(w->detail),
		       " (page %" PRIu64 " of the compound page at pfn 0x%" PRIx64 ")",
		       pfn - w->head.pfn, w->head.pfn);
	return true;
}

/* The dump-level bit that excludes this kind of page; 0 for none. */
static int bit_for(const struct page_layout *l, const struct page_what *w)
{
	switch (w->kind) {
	case PK_FREE:
	case PK_UNACCEPTED:
		return DL_FREE;
	case PK_CACHE:
		return has_flag(&w->head, l->pg_private) ? DL_CACHE_PRI
							 : DL_CACHE;
	case PK_ANON:
	case PK_KSM:
	case PK_HUGETLB:
		return DL_USER;
	case PK_OFFLINE:
	case PK_HWPOISON:
		return DL_ALWAYS;
	default:
		return 0;
	}
}

static const char *bit_words(int bit)
{
	switch (bit) {
	case DL_ZERO: return "zero pages, bit 1";
	case DL_CACHE: return "cache pages, bit 2";
	case DL_CACHE_PRI: return "private cache pages, bit 4";
	case DL_USER: return "user pages, bit 8";
	case DL_FREE: return "free pages, bit 16";
	default: return "no bit";
	}
}

/*
 * The bit a test of this page's own words would take it for, not knowing
 * its head page or this kernel's page types: where a writer goes wrong on
 * the tail of a compound page, or on a slab page whose mapping word (a
 * slab's list link or count) has the anonymous bit.
 */
static int own_bit(const struct page_layout *l, const struct page_info *p)
{
	if (is_type(l, p, "buddy"))
		return DL_FREE;
	if (p->mapping & MAPPING_ANON)
		return DL_USER;
	if (has_flag(p, l->pg_lru))
		return has_flag(p, l->pg_private) ? DL_CACHE_PRI : DL_CACHE;
	return 0;
}

static void flag_names(const struct page_layout *l, const struct page_info *p,
		       char *buf, size_t len)
{
	buf[0] = '\0';
	for (int64_t b = 0; b < l->nr_flags && b < MAX_FLAGS; b++)
		if (has_flag(p, b))
			append(buf, len, "%s%s", buf[0] ? "|" : "",
			       l->flag_name[b] ? l->flag_name[b] : "?");
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* The judgement: does the exclusion fit, and what to do. */
static void judge(const struct page_layout *l, const struct page_what *w,
		  int level, char *buf, size_t len)
{
	int bit = bit_for(l, w), own = own_bit(l, &w->self);

	if (level < 0) {
		append(buf, len, "; the dump does not say its dump level");
	} else if (bit == DL_ALWAYS) {
		append(buf, len, "; writers leave such pages out at every "
				 "dump level: no dump holds it");
		return;
	} else if (bit && (level & bit)) {
		append(buf, len, "; dump level %d excludes %s: left out as "
				 "asked", level, bit_words(bit));
	} else if (bit == DL_CACHE && (level & DL_CACHE_PRI)) {
		append(buf, len, "; dump level %d excludes cache pages (bit 4 "
				 "takes private and non-private): left out as "
				 "asked", level);
		bit = DL_CACHE_PRI;
	} else {
		if (bit)
			append(buf, len, "; dump level %d does not exclude such "
					 "pages (%s would)", level,
			       bit_words(bit));
		else
			append(buf, len, "; no dump-level bit excludes such "
					 "pages");
		append(buf, len, ", so the writer should have kept it: the "
				 "writer's mistake, not the kernel's");
		if (own && (level & own) && w->self.addr != w->head.addr)
			append(buf, len, " (read alone, without its head page, "
					 "this tail page's own struct page looks "
					 "like one of %s: mapping word 0x%" PRIx64 ")",
			       bit_words(own), w->self.mapping);
		else if (own && (level & own))
			append(buf, len, " (its own words look like one of "
					 "%s to a test that does not know this "
					 "kernel's page types: mapping word 0x%"
					 PRIx64 ")",
			       bit_words(own), w->self.mapping);
		bit = 0;
	}
	if (bit == DL_FREE)
		append(buf, len, "; the memory was free when the dump was "
				 "taken, so the address points at no live "
				 "object (a stale pointer?): only a dump without "
				 "bit 16 (e.g. -d 1) would hold its old bytes");
	else
		append(buf, len, "; a dump with -d 17 (zero and free pages "
				 "excluded) keeps it");
}

/* Why pfn's struct page was not read, for a person (malloc'd): not in the
 * dump (either: tail), damaged there, or where it is not found. */
static char *page_unread(struct inodedump *id, const struct page_layout *l,
			 uint64_t pfn, const char *tail)
{
	uint8_t buf[256];
	uint64_t addr;
	struct inodedump_error *err = idd_memmap_read(&l->mm, id->target, pfn,
		buf, l->size < sizeof(buf) ? l->size : sizeof(buf), &addr);
	char *s;

	if (addr && (!err || !err->damage))
		s = idd_strdup_printf("its struct page at 0x%" PRIx64
				      " is not in the dump%s", addr, tail);
	else
		s = idd_strdup_printf("%s cannot be read: %s", addr ?
				      "its struct page" : "where its struct "
				      "page is", inodedump_error_message(err));
	inodedump_error_free(err);
	return s;
}

char *idd_explain_filtered(void *arg, uint64_t phys)
{
	struct inodedump *id = arg;
	const struct page_layout *l = layout(id);
	uint64_t psize = idd_target_page_size(id->target);
	struct page_what w;
	char buf[1024], flags[256];
	const char *type;

	if (!l || !psize)
		return NULL;
	if (!l->usable)
		return idd_strdup_printf("what the page was is not known (%s)",
					 l->why_not);
	if (!classify(id, l, phys / psize, true, &w)) {
		char *why = page_unread(id, l, phys / psize, " either"),
		     *s = idd_strdup_printf("what the page was is not known "
					    "(%s)", why ? why : "");

		free(why);
		return s;
	}
	flag_names(l, &w.head, flags, sizeof(flags));
	type = page_type_name(l, &w.head);
	snprintf(buf, sizeof(buf),
		 "pfn 0x%" PRIx64 " (struct page 0x%" PRIx64 ") was %s "
		 "[flags %s; page_type %s]",
		 w.self.pfn, w.self.addr, w.detail, flags, type ? type : "none");
	judge(l, &w, idd_target_dump_level(id->target), buf, sizeof(buf));
	return strdup(buf);
}

/*
 * The kmem_cache whose slab holds the direct-map address va, through the
 * memory map as laid out, and its name; false (why) when it is not seen.
 */
static bool cache_at(struct inodedump *id, const struct page_layout *l,
		     uint64_t va, uint64_t *cache, char *name, char *why,
		     size_t len)
{
	uint64_t psize = idd_target_page_size(id->target), name_addr;
	struct page_what w;
	char *s = NULL;
	bool truncated;
	struct inodedump_error *err = NULL;

	if (!psize || !l->direct_known || va < l->page_offset ||
	    !classify(id, l, (va - l->page_offset) / psize, false, &w) ||
	    w.kind != PK_SLAB) {
		snprintf(why, len, "0x%" PRIx64 " is in no slab it shows", va);
		return false;
	}
	if (!l->slab_cache.present || !l->cache_name.present ||
	    (err = idd_target_read_u64(id->target,
				       w.head.addr + l->slab_cache.offset,
				       cache)) ||
	    (err = idd_target_read_u64(id->target,
				       *cache + l->cache_name.offset,
				       &name_addr)) ||
	    (err = idd_target_read_string(id->target, name_addr,
					  NAME_MAX_CACHE, &s, &truncated))) {
		snprintf(why, len, "the cache of 0x%" PRIx64 "'s slab: %s", va,
			 err ? inodedump_error_message(err)
			     : "no slab_cache or name in the types");
		inodedump_error_free(err);
		return false;
	}
	snprintf(name, NAME_MAX_CACHE + 1, "%s", s);
	free(s);
	return true;
}

/*
 * A memory map the target worked out (VMCOREINFO gives none) is checked
 * before anything is read through it, against struct pages the kernel's
 * own pointers lead to: the vmap_area first on VMCOREINFO's
 * vmap_area_list is in a slab of "vmap_area", that cache in a slab of
 * "kmem_cache", which is in a slab of itself. Refuted, the memory map is
 * not used, and why is said wherever a page would have been.
 */
static void check_derived(struct inodedump *id, struct page_layout *l)
{
	const char *list = idd_target_vmcoreinfo(id->target,
						 "SYMBOL(vmap_area_list)");
	const char *off = idd_target_vmcoreinfo(id->target,
						"OFFSET(vmap_area.list)");
	uint64_t next = 0, area, meta, self;
	char n1[NAME_MAX_CACHE + 1], n2[NAME_MAX_CACHE + 1],
		n3[NAME_MAX_CACHE + 1], why[384] = "";
	struct inodedump_error *err = NULL;

	if (!list || !off)
		snprintf(why, sizeof(why), "VMCOREINFO has no vmap_area_list "
			 "to check it with");
	else if ((err = idd_target_read_u64(id->target,
					    strtoull(list, NULL, 16), &next)))
		snprintf(why, sizeof(why), "vmap_area_list: %s",
			 inodedump_error_message(err));
	else if (cache_at(id, l, next - strtoull(off, NULL, 10), &area, n1,
			  why, sizeof(why)) &&
		 cache_at(id, l, area, &meta, n2, why, sizeof(why)) &&
		 cache_at(id, l, meta, &self, n3, why, sizeof(why)) &&
		 (strcmp(n1, "vmap_area") || strcmp(n2, "kmem_cache") ||
		  self != meta))
		snprintf(why, sizeof(why), "a vmap_area's slab is of \"%s\", "
			 "whose slab is of \"%s\", whose slab is of \"%s\" "
			 "(\"vmap_area\", then \"kmem_cache\" twice, were "
			 "it right)", n1, n2, n3);
	inodedump_error_free(err);
	if (!why[0])
		return;
	l->usable = false;
	l->why_buf = idd_strdup_printf("%s, and a check of it against the "
				       "kernel's own struct pages failed: %s",
				       l->derived, why);
	l->why_not = l->why_buf ? l->why_buf
				: "the memory map worked out did not hold";
}

/* ---- a page asked about (slab.c, --what) ---- */

struct inodedump_error *idd_pages_slab_base(struct inodedump *id,
					   uint64_t page, uint64_t *va)
{
	const struct page_layout *l = layout(id);
	uint64_t psize = idd_target_page_size(id->target), pfn;

	if (!l || !l->usable || !l->direct_known || !psize ||
	    !idd_memmap_pfn(&l->mm, id->target, page, &pfn))
		return idd_error_at(INODEDUMP_ERR_FAULT, page,
				    "struct page 0x%" PRIx64 ": where its memory "
				    "is mapped is not known", page);
	*va = l->page_offset + pfn * psize;
	return NULL;
}

bool idd_pages_direct_phys(struct inodedump *id, uint64_t va, uint64_t *pa)
{
	const struct page_layout *l = layout(id);
	uint64_t max = idd_target_max_pfn(id->target),
		 psize = idd_target_page_size(id->target);

	if (!l || !l->direct_known || va < l->page_offset || !psize ||
	    (va - l->page_offset) >> 52 ||
	    (max && (va - l->page_offset) / psize >= max))
		return false;
	*pa = va - l->page_offset;
	return true;
}

bool idd_pages_slab(struct inodedump *id, uint64_t pfn, uint64_t *slab,
		    uint64_t *head_pfn, bool *unread)
{
	const struct page_layout *l = layout(id);
	struct page_what w;

	*unread = false;
	if (!l)
		return false;
	if (!l->usable) {
		*unread = true; /* not known (why_not): never "in no slab" */
		return false;
	}
	if (!classify(id, l, pfn, false, &w)) {
		*unread = true; /* its struct page is not in the dump */
		return false;
	}
	if (w.kind != PK_SLAB)
		return false;
	*slab = w.head.addr;
	*head_pfn = w.head.pfn;
	return true;
}

char *idd_pages_describe(struct inodedump *id, uint64_t pfn)
{
	const struct page_layout *l = layout(id);
	struct page_what w;

	if (!l)
		return NULL;
	if (!l->usable)
		return idd_strdup_printf("what the page is is not known (%s)",
					 l->why_not);
	if (!classify(id, l, pfn, true, &w)) {
		char *why = page_unread(id, l, pfn, ""),
		     *s = idd_strdup_printf("what the page is is not known "
					    "(%s)", why ? why : "");

		free(why);
		return s;
	}
	return idd_strdup_printf("pfn 0x%" PRIx64 " (struct page 0x%" PRIx64
				 "): %s", w.self.pfn, w.self.addr, w.detail);
}

/*
 * Every slab's head page: fn(its struct page address, pfn, arg) in pfn
 * order, from the memmap read a 4 KiB piece at a time; false from fn
 * stops. *unread: pieces of the memmap the dump does not hold (their
 * pages' slabs are not seen). Slabs are told by the same marks classify()
 * reads (page_type slab, PG_slab), on head pages only.
 */
/*
 * Whether the dump's bitmaps leave out every frame of [pfn, pfn + n): then
 * no slab there has an object to read, and the struct pages that say so
 * need not be read (on a -d 31 dump of a mostly free machine, most of the
 * memory map: each of its pages a decompression). Formats without bitmaps:
 * false.
 */
static bool none_dumped(struct idd_target *t, uint64_t pfn, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		int s = idd_target_pfn_state(t, pfn + i);

		if (s != IDD_PFN_EXCLUDED && s != IDD_PFN_NO_RAM)
			return false;
	}
	return true;
}

bool idd_pages_each_slab(struct inodedump *id,
			 bool (*fn)(uint64_t page, uint64_t pfn, void *arg),
			 void *arg, uint64_t *unread, char **first_error)
{
	const struct page_layout *l = layout(id);
	uint64_t max = idd_target_max_pfn(id->target), per;
	uint8_t *buf;
	bool more = true;

	*unread = 0;
	if (l && !l->usable && !*first_error)
		*first_error = strdup(l->why_not);
	if (!l || !l->usable || !l->size || l->size > 256 || !max)
		return false;
	per = 4096 / l->size ? 4096 / l->size : 1;
	if (!(buf = malloc(per * l->size)))
		return false;
	for (uint64_t pfn = 0, n; more && pfn < max; pfn += n) {
		uint64_t addr, run = idd_memmap_run(&l->mm, pfn);
		struct inodedump_error *err =
			idd_memmap_page(&l->mm, id->target, pfn, &addr);

		n = max - pfn < per ? max - pfn : per;
		if (run < n) /* a section's map ends: the next is elsewhere */
			n = run;
		if (err && err->code == INODEDUMP_ERR_FAULT &&
		    !err->has_address) {
			/* a hole: the section has no memory map, no frames */
			inodedump_error_free(err);
			n = run < max - pfn ? run : max - pfn;
			continue;
		}
		if (!err && none_dumped(id->target, pfn, n))
			continue; /* no frame here has content to walk */
		if (!err)
			err = idd_target_read(id->target, addr, buf,
					      n * l->size);
		if (err) {
			/* the first one said: a reader that failed is no gap */
			if (!*first_error)
				*first_error = strdup(inodedump_error_message(err));
			inodedump_error_free(err);
			*unread += n;
			continue;
		}
		for (uint64_t i = 0; more && i < n; i++) {
			struct page_info p;

			page_from(l, pfn + i, addr + i * l->size,
				  buf + i * l->size, &p);
			if ((p.compound & 1) || !is_slab(l, &p))
				continue;
			more = fn(p.addr, p.pfn, arg);
		}
	}
	free(buf);
	return true;
}

/* ---- what the writer left out, counted (--info) ---- */

enum { EX_FREE, EX_CACHE, EX_USER, EX_SLAB, EX_KERNEL, EX_ALWAYS, EX_UNREAD,
       EX_KINDS };

static int excluded_kind(const struct page_layout *l, const struct page_what *w)
{
	switch (w->kind) {
	case PK_SLAB:
	case PK_LARGE_KMALLOC:
		return EX_SLAB;
	default:
		switch (bit_for(l, w)) {
		case DL_FREE: return EX_FREE;
		case DL_CACHE:
		case DL_CACHE_PRI: return EX_CACHE;
		case DL_USER: return EX_USER;
		case DL_ALWAYS: return EX_ALWAYS;
		default: return EX_KERNEL;
		}
	}
}

/*
 * Every page frame the bitmaps hold: how many the writer left out, and
 * what each of those was by its struct page. A free block is counted
 * whole from its head (2^private pages), as a writer excludes it.
 */
static void count_excluded(struct inodedump *id, struct page_layout *l)
{
	uint64_t max = idd_target_max_pfn(id->target), ram = 0, left = 0;
	uint64_t n[EX_KINDS] = { 0 };

	for (uint64_t pfn = 0; pfn < max; pfn++) {
		int state = idd_target_pfn_state(id->target, pfn);
		struct page_what w;

		if (state == IDD_PFN_UNKNOWN)
			return;
		if (state == IDD_PFN_NO_RAM)
			continue;
		ram++;
		if (state == IDD_PFN_DUMPED)
			continue;
		left++;
		if (!l->usable || !classify(id, l, pfn, false, &w)) {
			n[EX_UNREAD]++;
			continue;
		}
		n[excluded_kind(l, &w)]++;
		/* The rest of a free block: its pages carry no type of their own. */
		if (w.kind == PK_FREE && w.block_order && w.block_order < 32) {
			uint64_t end = w.block_pfn + (1ULL << w.block_order);

			for (pfn++; pfn < end && pfn < max; pfn++) {
				state = idd_target_pfn_state(id->target, pfn);
				if (state == IDD_PFN_UNKNOWN)
					return;
				ram += state != IDD_PFN_NO_RAM;
				left += state == IDD_PFN_EXCLUDED;
				n[EX_FREE] += state == IDD_PFN_EXCLUDED;
			}
			pfn--;
		}
	}
	l->excluded = idd_strdup_printf("%" PRIu64 " of %" PRIu64 " pages",
					left, ram);
	if (!left)
		return;
	l->excluded_kinds = idd_strdup_printf(
		"free %" PRIu64 " (bit 16), cache %" PRIu64 " (bits 2, 4), "
		"user %" PRIu64 " (bit 8), at every level %" PRIu64 "; slab %" PRIu64
		" and other kernel memory %" PRIu64 " (no bit excludes these: "
		"the writer's mistake)%s",
		n[EX_FREE], n[EX_CACHE], n[EX_USER], n[EX_ALWAYS], n[EX_SLAB],
		n[EX_KERNEL], n[EX_UNREAD] ? "; struct page not read: " : "");
	if (n[EX_UNREAD] && l->excluded_kinds) {
		char *s = idd_strdup_printf("%s%" PRIu64 "%s%s%s",
					    l->excluded_kinds, n[EX_UNREAD],
					    l->usable ? "" : " (",
					    l->usable ? "" : l->why_not,
					    l->usable ? "" : ")");

		free(l->excluded_kinds);
		l->excluded_kinds = s;
	}
	/* Counts that cannot be what the dump says: declared, not shown as
	 * facts. Struct pages that could not be read (the memory map's
	 * set-up failed, with types: its VMCOREINFO values or tables
	 * damaged), or pages left out as free by a dump level that excludes
	 * free pages while none classifies as free (PAGE_BUDDY_MAPCOUNT_VALUE
	 * or the struct pages wrong). */
	if (n[EX_UNREAD] && !l->usable && id->types &&
	    !idd_session_partial(id))
		idd_session_note(id, "%" PRIu64 " pages the dump left out could "
				 "not be classified: %s", n[EX_UNREAD],
				 l->why_not);
	if (idd_target_dump_level(id->target) > 0 &&
	    (idd_target_dump_level(id->target) & 16) && !n[EX_FREE] &&
	    n[EX_KERNEL] + n[EX_SLAB] > left / 2)
		idd_session_note(id, "the dump's level excludes free pages, "
				 "yet none of the %" PRIu64 " it left out is free "
				 "by its struct page: the struct pages or "
				 "VMCOREINFO's page type values are wrong",
				 left);
}

const char *idd_pages_excluded(struct inodedump *id, bool by_kind)
{
	struct page_layout *l = layout(id);

	if (!l || idd_target_max_pfn(id->target) == 0)
		return NULL;
	if (!l->excluded)
		count_excluded(id, l);
	return by_kind ? l->excluded_kinds : l->excluded;
}
