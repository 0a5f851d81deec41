// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * This kernel's struct page, as pages.c reads it: the members it reads
 * (and those of the slab, the address_space, the inode and the zone a
 * page leads to), the page flags by the pageflags enum, the page types by
 * the pagetype enum or, before it, by the page_type words VMCOREINFO
 * gives; where the direct map starts; and where each frame's struct page
 * is (memmap.c's memory map, set up here from the architecture's
 * vmemmap or variable the target names). Found once a session, on first
 * use; what is missing is said (why_not), never guessed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/pages_internal.h"

/*
 * Units that define the pageflags and pagetype enums: the one that puts
 * PG_lru and PAGE_BUDDY_MAPCOUNT_VALUE into VMCOREINFO uses both (6.8+;
 * kernel/crash_core.c before), else the page allocator.
 */
static const char *const pages_cu[] = { "kernel/vmcore_info.c",
					"kernel/crash_core.c",
					IDD_ALLOC_CU };
#define SLAB_CU "mm/slub.c"

/*
 * Whether pages_cu[i] is one of the two units vmcoreinfo_append_str may
 * be in and .debug_aranges put it in the other: then this kernel's
 * VMCOREINFO code is not in pages_cu[i] (kernel/vmcore_info.c is 6.9's;
 * before, kernel/crash_core.c), and the unit is not looked for by name,
 * a walk of every unit's name that finds none (100 M instructions on
 * Debian 11's first run).
 */
static bool not_the_unit(struct inodedump *id, size_t i)
{
	return i < 2 && !idd_types_anchored(id->types, pages_cu[i]) &&
	       idd_types_anchored(id->types, pages_cu[1 - i]);
}

static void collect_flag(const char *name, int64_t value, void *arg)
{
	struct page_layout *l = arg;

	if (!name)
		return;
	if (!strcmp(name, "__NR_PAGEFLAGS"))
		l->nr_flags = value;
	else if (!strcmp(name, "PG_lru"))
		l->pg_lru = value;
	else if (!strcmp(name, "PG_private"))
		l->pg_private = value;
	else if (!strcmp(name, "PG_swapcache"))
		l->pg_swapcache = value;
	else if (!strcmp(name, "PG_swapbacked"))
		l->pg_swapbacked = value;
	else if (!strcmp(name, "PG_head"))
		l->pg_head = value;
	else if (!strcmp(name, "PG_reserved"))
		l->pg_reserved = value;
	else if (!strcmp(name, "PG_hwpoison"))
		l->pg_hwpoison = value;
	else if (!strcmp(name, "PG_slab")) /* a page type since 6.10 */
		l->pg_slab = value;
	/* The first name of a bit is its own; later ones are aliases. */
	if (value >= 0 && value < MAX_FLAGS && !l->flag_name[value] &&
	    !strncmp(name, "PG_", 3))
		l->flag_name[value] = strdup(name + 3);
}

static void collect_type(const char *name, int64_t value, void *arg)
{
	struct page_layout *l = arg;

	if (name && l->ntypes < MAX_TYPES && !strncmp(name, "PGTY_", 5) &&
	    (l->type[l->ntypes].name = strdup(name + 5)))
		l->type[l->ntypes++].value = value;
}

/*
 * The page types of a kernel without the pagetype enum: the whole
 * page_type word of each, as VMCOREINFO gives it to dump writers
 * (NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129 on 5.10: ~PG_buddy). The names
 * are those of the enum's PGTY_* that later replaced them.
 */
static void collect_vmcoreinfo_types(struct inodedump *id,
				     struct page_layout *l)
{
	static const char *const names[] = { "buddy", "offline", "slab",
					     "hugetlb", "unaccepted" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char key[64], *end;
		const char *v;
		long long value;
		size_t n = (size_t)snprintf(key, sizeof(key), "NUMBER(PAGE_");

		for (const char *c = names[i]; *c && n + 1 < sizeof(key); c++)
			key[n++] = (char)(*c - 'a' + 'A');
		snprintf(key + n, sizeof(key) - n, "_MAPCOUNT_VALUE)");
		v = idd_target_vmcoreinfo(id->target, key);
		if (!v || !*v || l->ntypes == MAX_TYPES)
			continue;
		value = strtoll(v, &end, 10);
		if (*end || value < INT32_MIN || value > UINT32_MAX)
			continue;
		if (!(l->type[l->ntypes].name = strdup(names[i])))
			continue;
		l->type[l->ntypes++].value = value;
		l->types_whole = true;
	}
}

void idd_pages_layout_free(struct page_layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < MAX_FLAGS; i++)
		free(l->flag_name[i]);
	for (size_t i = 0; i < l->ntypes; i++)
		free(l->type[i].name);
	free(l->excluded);
	free(l->excluded_kinds);
	free(l->why_buf);
	idd_memmap_fini(&l->mm);
	free(l);
}

static void member(struct idd_types *types, const struct idd_struct *s,
		   const char *path, struct idd_member *out)
{
	idd_types_member(types, s, path, out);
}

/* A struct of this kernel by name (cu: where a private one is defined). */
static bool find_struct(struct idd_types *types, const char *name,
			const char *cu, struct idd_struct *s)
{
	struct inodedump_error *err =
		cu ? idd_types_struct_in(types, name, cu, s)
		   : idd_types_struct(types, name, s);

	inodedump_error_free(err);
	return !err;
}

/* The members an explanation reads; each may be absent (less is said). */
static void layout_members(struct inodedump *id, struct page_layout *l)
{
	struct idd_struct s;

	/* struct page held slab_cache before 5.17 (struct slab): asked first,
	 * so that an older kernel never looks for a struct it cannot have */
	if (find_struct(id->types, "page", NULL, &s))
		member(id->types, &s, "slab_cache", &l->slab_cache);
	if (!l->slab_cache.present &&
	    find_struct(id->types, "slab", SLAB_CU, &s))
		member(id->types, &s, "slab_cache", &l->slab_cache);
	if (find_struct(id->types, "kmem_cache", SLAB_CU, &s))
		member(id->types, &s, "name", &l->cache_name);
	if (find_struct(id->types, "address_space", NULL, &s))
		member(id->types, &s, "host", &l->host);
	if (find_struct(id->types, "inode", NULL, &s)) {
		member(id->types, &s, "i_ino", &l->i_ino);
		member(id->types, &s, "i_sb", &l->i_sb);
	}
	if (find_struct(id->types, "super_block", NULL, &s))
		member(id->types, &s, "s_id", &l->s_id);
	l->orders = 0;
	if (find_struct(id->types, "zone", NULL, &s)) {
		struct idd_member fa;
		struct idd_struct area;

		member(id->types, &s, "free_area", &fa);
		if (fa.present &&
		    find_struct(id->types, "free_area", NULL, &area) &&
		    area.size && fa.size / area.size <= 32)
			l->orders = (unsigned)(fa.size / area.size);
	}
}

/*
 * The architecture's virtual memmap (frame 0's struct page), or 0 and
 * why not; the memory model itself is chosen by idd_memmap_init() from
 * VMCOREINFO first.
 */
static uint64_t arch_vmemmap(struct inodedump *id,
			     const struct idd_target_kernel_map *km,
			     struct page_layout *l)
{
	uint64_t v;
	struct inodedump_error *e;

	if (km->vmemmap_start)
		return km->vmemmap_start - km->first_pfn * l->size;
	if (!km->vmemmap_var) {
		l->why_not = "where this kernel's memory map (struct page) is "
			     "is not known for its architecture";
		return 0;
	}
	if (!idd_symbols_address(id->syms, km->vmemmap_var, &v)) {
		l->why_buf = idd_strdup_printf("vmlinux has no %s (no virtual "
					       "mem_map)", km->vmemmap_var);
		l->why_not = l->why_buf ? l->why_buf
					: "vmlinux has no virtual mem_map";
		return 0;
	}
	if ((e = idd_target_read_u64(id->target, v, &v))) {
		l->why_buf = idd_strdup_printf("%s cannot be read: %s",
					       km->vmemmap_var,
					       inodedump_error_message(e));
		inodedump_error_free(e);
		l->why_not = l->why_buf ? l->why_buf
					: "the memory map cannot be read";
		return 0;
	}
	return v;
}

static void memmap_init(struct inodedump *id,
			const struct idd_target_kernel_map *km,
			struct page_layout *l)
{
	struct idd_memmap_inputs in = {
		.page_bytes = l->size,
		.flags_offset = l->flags.offset,
		.flags_present = l->flags.present,
		.flat_pfn_offset = km->flat_pfn_offset,
		.flat_pfn_offset_known = km->flat_pfn_offset_known,
	};
	struct idd_struct ms;

	in.vmemmap = arch_vmemmap(id, km, l);
	in.vmemmap_why = l->why_not;
	/* the unit that defines the sections' array, anchored through
	 * .debug_aranges: a walk of every unit to find it was most of a first
	 * run's cost (12–38 ms of libdw reading DIEs, 6.1 to 7.3) */
	idd_anchor(id->types, id->syms, IDD_SPARSE_CU,
		   (const char *const[]){ IDD_SPARSE_FNS, NULL });
	if (find_struct(id->types, "mem_section", IDD_SPARSE_CU, &ms)) {
		struct idd_member map;

		member(id->types, &ms, "section_mem_map", &map);
		if (map.present) {
			in.section_bytes = ms.size;
			in.section_map_offset = map.offset;
		}
	}
	idd_memmap_init(&l->mm, id->target, &in);
	if (l->mm.note)
		idd_session_note(id, "%s", l->mm.note);
	l->why_not = NULL;
}

/*
 * The layout, made on the session's first ask and kept (id->pages_layout);
 * usable only when all pages.c reads is known. A memory map the target
 * worked out (derived) is then still to be checked (pages.c).
 */
struct page_layout *idd_pages_layout(struct inodedump *id)
{
	struct page_layout *l = id->pages_layout;
	struct idd_target_kernel_map km;
	struct idd_struct page;

	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	id->pages_layout = l;
	l->nr_flags = l->pg_lru = l->pg_private = l->pg_swapcache = -1;
	l->pg_swapbacked = l->pg_head = l->pg_reserved = l->pg_hwpoison = -1;
	l->pg_slab = -1;
	if (!id->types) { /* a session for the log and facts alone */
		l->why_not = "no kernel types: struct page's layout is not known";
		return l;
	}
	if (!find_struct(id->types, "page", NULL, &page)) {
		l->why_not = "the kernel's types have no struct page";
		if (!idd_session_noted(id, IDD_NO_STRUCT_PAGE))
			idd_session_note(id, IDD_NO_STRUCT_PAGE);
		return l;
	}
	l->size = page.size;
	{
		/* find the enums' units through .debug_aranges, not by name */
		static const char *const info_fns[] = { "vmcoreinfo_append_str",
							NULL };

		static const char *const alloc_fns[] = { IDD_ALLOC_FNS, NULL };

		idd_anchor(id->types, id->syms, pages_cu[0], info_fns);
		idd_anchor(id->types, id->syms, pages_cu[1], info_fns);
		/* an enum none of the units has (pagetype before 6.10?) is
		 * then looked for in page_alloc.c's unit, not by every
		 * unit's name (45–51 M instructions on 6.1) */
		idd_anchor(id->types, id->syms, pages_cu[2], alloc_fns);
	}
	member(id->types, &page, "flags.f", &l->flags); /* memdesc_flags_t */
	if (!l->flags.present)
		member(id->types, &page, "flags", &l->flags);
	member(id->types, &page, "mapping", &l->mapping);
	member(id->types, &page, "private", &l->private_);
	member(id->types, &page, "compound_info", &l->compound);
	l->compound_info = l->compound.present;
	if (!l->compound.present)
		member(id->types, &page, "compound_head", &l->compound);
	member(id->types, &page, "page_type", &l->page_type);
	member(id->types, &page, "_refcount.counter", &l->refcount);
	for (size_t i = 0; i < sizeof(pages_cu) / sizeof(pages_cu[0]); i++)
		if (!not_the_unit(id, i) &&
		    idd_types_enum(id->types, pages_cu[i], "pageflags",
				   collect_flag, l))
			break;
	for (size_t i = 0; i < sizeof(pages_cu) / sizeof(pages_cu[0]); i++)
		if (!not_the_unit(id, i) &&
		    idd_types_enum(id->types, pages_cu[i], "pagetype",
				   collect_type, l))
			break;
	if (!l->ntypes)
		collect_vmcoreinfo_types(id, l);
	layout_members(id, l);
	idd_target_kernel_map(id->target, &km);
	l->page_offset = km.direct_pa0;
	l->direct_known = km.direct_pa0 || km.direct_at_zero;
	if (!l->direct_known && km.direct_var &&
	    idd_symbols_address(id->syms, km.direct_var, &l->page_offset)) {
		struct inodedump_error *e = idd_target_read_u64(
			id->target, l->page_offset, &l->page_offset);

		l->direct_known = !e && l->page_offset; /* else not known */
		inodedump_error_free(e);
	}
	memmap_init(id, &km, l);
	if (l->mm.model == IDD_MEMMAP_UNKNOWN) {
		l->why_not = l->mm.why;
		return l;
	}
	/* A virtual memmap the target worked out: checked once usable. */
	if (l->mm.model == IDD_MEMMAP_VMEMMAP && km.vmemmap_start)
		l->derived = km.vmemmap_derived;
	if (!l->size || !l->flags.present || !l->mapping.present ||
	    l->nr_flags < 0) {
		l->why_not = "this kernel's struct page or page flags are not "
			     "what this reads";
		return l;
	}
	l->usable = true;
	return l;
}
