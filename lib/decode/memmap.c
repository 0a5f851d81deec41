// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where a page frame's struct page is (include/asm-generic/memory_model.h),
 * in each memory model a kernel may be built with:
 *
 * - SPARSEMEM: kernel/vmcore_info.c (crash_core.c before 6.8) writes
 *   SYMBOL(mem_section) (the table's address: the array itself, or with
 *   SPARSEMEM_EXTREME the array of NR_SECTION_ROOTS pointers to pages of
 *   sections), LENGTH(mem_section) (NR_SECTION_ROOTS), SIZE(mem_section),
 *   OFFSET(mem_section.section_mem_map), NUMBER(SECTION_SIZE_BITS) and
 *   NUMBER(MAX_PHYSMEM_BITS). mm/sparse.c stores in section_mem_map
 *   sparse_encode_mem_map(): the section's memory map less the section's
 *   first pfn, so that __pfn_to_page(pfn) = that + pfn, with flags in its
 *   low bits. With SPARSEMEM_VMEMMAP every section's map is the virtual
 *   memmap, so every section decodes to vmemmap itself: one section read
 *   at set-up tells the two apart, and the vmemmap kernel is then read by
 *   arithmetic alone.
 * - FLATMEM: VMCOREINFO has SYMBOL(mem_map) (the variable) instead, and
 *   __pfn_to_page(pfn) = mem_map + (pfn - ARCH_PFN_OFFSET), the offset
 *   being the architecture's (asm-generic: 0).
 * - Neither in VMCOREINFO (no VMCOREINFO): the architecture's vmemmap.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/memmap.h"

/*
 * section_mem_map's flags, include/linux/mmzone.h: SECTION_HAS_MEM_MAP
 * is (1UL<<1) from 2.6.13 to 5.x and SECTION_HAS_MEM_MAP_BIT = 1 in the
 * enum of 6.x and 7.x (checked in 6.12 and 7.3).
 */
static const struct {
	unsigned since; /* version, major * 100 + minor */
	unsigned has_mem_map_bit;
} section_flags[] = {
	{ 206, 1 },
};

/*
 * The pointer bits of section_mem_map. mmzone.h: the encoded map "is
 * aligned to the minimum alignment of the two values: all mem_map arrays
 * are page-aligned; section_nr_to_pfn() always clears PFN_SECTION_SHIFT
 * lowest bits", and the flags (SECTION_MAP_LAST_BIT, which varies with
 * version and config) fit below that alignment by a BUILD_BUG_ON. So the
 * mask is that alignment, from this kernel's own numbers.
 */
static uint64_t map_mask(uint64_t page_size, unsigned pfn_shift,
			 uint64_t page_bytes)
{
	uint64_t pfn_align = (page_bytes & -page_bytes) << pfn_shift,
		 align = pfn_align < page_size ? pfn_align : page_size;

	return ~(align - 1);
}

static bool info_number(struct idd_target *t, const char *key, int base,
			uint64_t *out)
{
	const char *v = idd_target_vmcoreinfo(t, key);
	char *end;

	if (!v || !*v)
		return false;
	*out = strtoull(v, &end, base);
	return !*end;
}

/* Model unknown: why is text, then sep and detail when detail is given. */
static void unknown(struct idd_memmap *m, const char *text, const char *sep,
		    const char *detail)
{
	m->model = IDD_MEMMAP_UNKNOWN;
	free(m->why_buf);
	m->why_buf = idd_strdup_printf("%s%s%s", text, detail ? sep : "",
				       detail ? detail : "");
	m->why = m->why_buf ? m->why_buf : "the memory model is not known";
}

static unsigned has_mem_map_bit(void)
{
	/* one entry today: every version we read uses the same bit */
	return section_flags[0].has_mem_map_bit;
}

/*
 * The section_mem_map word of section nr; 0 when the table has no such
 * section (past its end, or an EXTREME root not allocated).
 */
static struct inodedump_error *section_word(const struct idd_memmap *m,
					    struct idd_target *t, uint64_t nr,
					    uint64_t *word)
{
	uint64_t ms;
	struct inodedump_error *err;

	*word = 0;
	if (m->extreme) {
		uint64_t root = nr / m->per_root, p;

		if (root >= m->nr_roots)
			return NULL;
		err = idd_target_read_u64(t, m->root + root * 8, &p);
		if (err)
			return idd_error_wrap(err, "mem_section root %" PRIu64,
					      root);
		if (!p)
			return NULL;
		ms = p + nr % m->per_root * m->ms_bytes;
	} else {
		if (nr >= m->nr_roots)
			return NULL;
		ms = m->root + nr * m->ms_bytes;
	}
	err = idd_target_read_u64(t, ms + m->ms_map, word);
	return err ? idd_error_wrap(err, "mem_section %" PRIu64, nr) : NULL;
}

/* Section nr's decoded map (frame 0's struct page as it counts), or 0. */
static struct inodedump_error *section_map(const struct idd_memmap *m,
					   struct idd_target *t, uint64_t nr,
					   uint64_t *map)
{
	uint64_t word;
	struct inodedump_error *err = section_word(m, t, nr, &word);

	*map = 0;
	if (!err && (word >> has_mem_map_bit() & 1))
		*map = word & m->map_mask;
	return err;
}

/*
 * The first section with a memory map, bounded by the table's length:
 * roots (or, static, sections) read a page's worth at a time.
 */
static struct inodedump_error *first_map(const struct idd_memmap *m,
					 struct idd_target *t, uint64_t *nr,
					 uint64_t *map)
{
	uint64_t step = m->extreme ? m->per_root : 1;

	*map = 0;
	for (uint64_t s = 0; s / step < m->nr_roots; s += step) {
		uint64_t p = 0;
		struct inodedump_error *err;

		if (m->extreme) {
			err = idd_target_read_u64(t, m->root + s / step * 8, &p);
			if (err)
				return idd_error_wrap(err, "mem_section root %" PRIu64,
						      s / step);
			if (!p)
				continue;
		}
		for (uint64_t i = 0; i < step; i++) {
			err = section_map(m, t, s + i, map);
			if (err || *map) {
				*nr = s + i;
				return err;
			}
		}
	}
	return NULL;
}

/* Damage a read found setting the model up: a note beside any other. */
static void note_damage(struct idd_memmap *m, const struct inodedump_error *err)
{
	char *s;

	if (!err || !err->damage)
		return;
	s = idd_strdup_printf("%s%sthe memory map cannot be found where the "
			      "dump is damaged: %s", m->note ? m->note : "",
			      m->note ? "; " : "", err->message);
	free(m->note);
	m->note = s;
}

static void init_sections(struct idd_memmap *m, struct idd_target *t,
			  const struct idd_memmap_inputs *in)
{
	uint64_t bits = 0, phys = 0, len = 0, nsec;
	uint64_t psize = idd_target_page_size(t);
	uint64_t nr = 0, map = 0;
	unsigned pshift = 0;
	struct inodedump_error *err;
	char missing[128] = ""; /* the keys VMCOREINFO lacks */

	if (!info_number(t, "SYMBOL(mem_section)", 16, &m->root) || !m->root)
		strcat(missing, " SYMBOL(mem_section) as an address");
	if (!info_number(t, "NUMBER(SECTION_SIZE_BITS)", 10, &bits))
		strcat(missing, " NUMBER(SECTION_SIZE_BITS)");
	if (!info_number(t, "NUMBER(MAX_PHYSMEM_BITS)", 10, &phys))
		strcat(missing, " NUMBER(MAX_PHYSMEM_BITS)");
	if (!info_number(t, "LENGTH(mem_section)", 10, &len))
		strcat(missing, " LENGTH(mem_section)");
	if (missing[0]) {
		unknown(m, "the kernel is SPARSEMEM (VMCOREINFO has "
			   "SYMBOL(mem_section)) but its VMCOREINFO lacks",
			"", missing);
		return;
	}
	{
		/*
		 * The types' struct mem_section where there are types (the
		 * kernel's own build), VMCOREINFO's where not; the two
		 * disagreeing is damage to say (issue 41), not a layout.
		 */
		uint64_t vb = 0, vm = 0;
		bool hb = info_number(t, "SIZE(mem_section)", 10, &vb),
		     hm = info_number(t, "OFFSET(mem_section.section_mem_map)",
				      10, &vm);

		m->ms_bytes = in->section_bytes ? in->section_bytes : vb;
		m->ms_map = in->section_bytes ? in->section_map_offset : vm;
		if (in->section_bytes &&
		    ((hb && vb != in->section_bytes) ||
		     (hm && vm != in->section_map_offset)))
			m->note = idd_strdup_printf(
				"VMCOREINFO's SIZE(mem_section)=%s and "
				"OFFSET(mem_section.section_mem_map)=%s "
				"disagree with the kernel's types (%llu and "
				"%llu bytes): the types' taken",
				hb ? idd_target_vmcoreinfo(t, "SIZE(mem_section)")
				   : "(none)",
				hm ? idd_target_vmcoreinfo(
					     t, "OFFSET(mem_section.section_mem_map)")
				   : "(none)",
				(unsigned long long)in->section_bytes,
				(unsigned long long)in->section_map_offset);
	}
	while (pshift < 32 && (1ULL << pshift) != psize)
		pshift++;
	if (!m->ms_bytes || m->ms_map + 8 > m->ms_bytes || pshift == 32 ||
	    bits <= pshift || bits >= phys || phys > 64 || phys - bits > 40) {
		unknown(m, "the memory sections' sizes (SIZE(mem_section), "
			   "OFFSET(mem_section.section_mem_map), "
			   "SECTION_SIZE_BITS, MAX_PHYSMEM_BITS, the page size) "
			   "are missing or make no sense", NULL, NULL);
		return;
	}
	m->pfn_shift = (unsigned)(bits - pshift);
	m->sec_width = (unsigned)(phys - bits);
	nsec = 1ULL << m->sec_width; /* NR_MEM_SECTIONS */
	m->per_root = psize / m->ms_bytes;
	m->nr_roots = len;
	if (len == nsec) { /* SECTIONS_PER_ROOT 1 */
		m->extreme = false;
		m->per_root = 1;
	} else if (m->per_root && len == (nsec + m->per_root - 1) / m->per_root) {
		m->extreme = true;
	} else {
		unknown(m, "LENGTH(mem_section) fits neither a static table "
			   "(NR_MEM_SECTIONS) nor SPARSEMEM_EXTREME's roots", NULL, NULL);
		return;
	}
	m->map_mask = map_mask(psize, m->pfn_shift, m->size);
	err = first_map(m, t, &nr, &map);
	note_damage(m, err);
	if (err || !map) {
		unknown(m, "no memory section's map could be read from "
			   "mem_section", ": ",
			err ? inodedump_error_message(err) : NULL);
		inodedump_error_free(err);
		return;
	}
	if (in->vmemmap && map == in->vmemmap) {
		m->model = IDD_MEMMAP_VMEMMAP;
		m->base = in->vmemmap;
		m->whence = "vmemmap (SPARSEMEM_VMEMMAP: mem_section's maps are "
			    "the virtual memmap)";
		return;
	}
	m->model = IDD_MEMMAP_SECTIONS;
	m->first_map = map;
	m->whence = m->extreme ? "mem_section (SPARSEMEM_EXTREME, a memory "
				 "map per section)"
			       : "mem_section (SPARSEMEM, a memory map per "
				 "section)";
}

static void init_flatmem(struct idd_memmap *m, struct idd_target *t,
			 const struct idd_memmap_inputs *in)
{
	uint64_t var, map;
	struct inodedump_error *err;

	if (!info_number(t, "SYMBOL(mem_map)", 16, &var) || !var) {
		unknown(m, "VMCOREINFO's SYMBOL(mem_map) is not an address", NULL, NULL);
		return;
	}
	if (!in->flat_pfn_offset_known) {
		unknown(m, "the kernel is FLATMEM (SYMBOL(mem_map)) but its "
			   "architecture's ARCH_PFN_OFFSET is not known", NULL, NULL);
		return;
	}
	err = idd_target_read_u64(t, var, &map);
	note_damage(m, err);
	if (err || !map) {
		unknown(m, err ? "FLATMEM's mem_map cannot be read"
			       : "FLATMEM's mem_map is NULL",
			": ", err ? inodedump_error_message(err) : NULL);
		inodedump_error_free(err);
		return;
	}
	m->model = IDD_MEMMAP_FLATMEM;
	m->first_pfn = in->flat_pfn_offset;
	m->base = map - in->flat_pfn_offset * m->size;
	m->whence = "mem_map (FLATMEM)";
}

void idd_memmap_init(struct idd_memmap *m, struct idd_target *t,
		     const struct idd_memmap_inputs *in)
{
	memset(m, 0, sizeof(*m));
	m->size = in->page_bytes;
	m->flags_offset = in->flags_offset;
	m->flags_present = in->flags_present;
	if (!m->size) {
		unknown(m, "the size of struct page is not known", NULL, NULL);
		return;
	}
	if (idd_target_vmcoreinfo(t, "SYMBOL(mem_section)")) {
		init_sections(m, t, in);
	} else if (idd_target_vmcoreinfo(t, "SYMBOL(mem_map)")) {
		init_flatmem(m, t, in);
	} else if (in->vmemmap) {
		m->model = IDD_MEMMAP_VMEMMAP;
		m->base = in->vmemmap;
		m->whence = "vmemmap (the architecture's; VMCOREINFO names no "
			    "memory model)";
	} else {
		unknown(m, in->vmemmap_why ? in->vmemmap_why
					   : "VMCOREINFO names no memory model "
					     "(neither mem_section nor mem_map) "
					     "and the architecture gives no "
					     "vmemmap",
			NULL, NULL);
	}
}

void idd_memmap_fini(struct idd_memmap *m)
{
	free(m->why_buf);
	m->why_buf = NULL;
	free(m->note);
	m->note = NULL;
}

const char *idd_memmap_model_name(const struct idd_memmap *m)
{
	return m->model == IDD_MEMMAP_UNKNOWN ? "unknown" : m->whence;
}

struct inodedump_error *idd_memmap_read(const struct idd_memmap *m,
					struct idd_target *t, uint64_t pfn,
					void *buf, size_t len, uint64_t *page)
{
	struct inodedump_error *err = idd_memmap_page(m, t, pfn, page);

	if (err)
		*page = 0;
	return err ? err : idd_target_read(t, *page, buf, len);
}

struct inodedump_error *idd_memmap_page_slow(const struct idd_memmap *m,
					     struct idd_target *t,
					     uint64_t pfn, uint64_t *page)
{
	uint64_t nr, map;
	struct inodedump_error *err;

	switch (m->model) {
	case IDD_MEMMAP_VMEMMAP:
		*page = m->base + pfn * m->size;
		return NULL;
	case IDD_MEMMAP_FLATMEM:
		if (pfn < m->first_pfn)
			return idd_error(INODEDUMP_ERR_FAULT,
					 "pfn 0x%" PRIx64 " is below FLATMEM's "
					 "first frame 0x%" PRIx64 ": it has no "
					 "struct page", pfn, m->first_pfn);
		*page = m->base + pfn * m->size;
		return NULL;
	case IDD_MEMMAP_SECTIONS:
		nr = pfn >> m->pfn_shift;
		if ((err = section_map(m, t, nr, &map)))
			return err;
		if (!map)
			return idd_error(INODEDUMP_ERR_FAULT,
					 "pfn 0x%" PRIx64 " has no struct page: "
					 "its memory section %" PRIu64 " has no "
					 "memory map", pfn, nr);
		*page = map + pfn * m->size;
		return NULL;
	default:
		return idd_error(INODEDUMP_ERR_FAULT,
				 "where pfn 0x%" PRIx64 "'s struct page is is "
				 "not known (%s)", pfn, m->why);
	}
}

uint64_t idd_memmap_run(const struct idd_memmap *m, uint64_t pfn)
{
	if (m->model == IDD_MEMMAP_FLATMEM && pfn < m->first_pfn)
		return m->first_pfn - pfn; /* no struct page below it */
	if (m->model != IDD_MEMMAP_SECTIONS)
		return UINT64_MAX;
	return (1ULL << m->pfn_shift) - (pfn & ((1ULL << m->pfn_shift) - 1));
}

/* pfn, if page is its struct page (as the kernel's __pfn_to_page says). */
static bool is_page_of(const struct idd_memmap *m, struct idd_target *t,
		       uint64_t page, uint64_t pfn)
{
	uint64_t map;
	struct inodedump_error *err;

	if (pfn >> m->pfn_shift >> m->sec_width)
		return false; /* past NR_MEM_SECTIONS */
	err = section_map(m, t, pfn >> m->pfn_shift, &map);
	inodedump_error_free(err);
	return !err && map && map + pfn * m->size == page;
}

/*
 * SECTIONS: two candidates, each checked by pfn -> page: the section the
 * kernel keeps atop page->flags (page_to_section(): SECTIONS_PGOFF =
 * BITS_PER_LONG - SECTIONS_WIDTH, the width MAX_PHYSMEM_BITS -
 * SECTION_SIZE_BITS), and the first section's map (mm/sparse.c lays
 * a node's maps out one after another, so most sections decode alike).
 */
static bool section_pfn(const struct idd_memmap *m, struct idd_target *t,
			uint64_t page, uint64_t *pfn)
{
	uint64_t flags, map;
	struct inodedump_error *err = NULL;

	if (m->flags_present &&
	    !(err = idd_target_read_u64(t, page + m->flags_offset, &flags)) &&
	    !section_map(m, t, flags >> (64 - m->sec_width), &map) && map &&
	    page >= map && (page - map) % m->size == 0 &&
	    is_page_of(m, t, page, (page - map) / m->size)) {
		*pfn = (page - map) / m->size;
		return true;
	}
	inodedump_error_free(err);
	if (page < m->first_map || (page - m->first_map) % m->size)
		return false;
	*pfn = (page - m->first_map) / m->size;
	return is_page_of(m, t, page, *pfn);
}

bool idd_memmap_pfn(const struct idd_memmap *m, struct idd_target *t,
		    uint64_t page, uint64_t *pfn)
{
	switch (m->model) {
	case IDD_MEMMAP_VMEMMAP:
	case IDD_MEMMAP_FLATMEM:
		if (page < m->base || (page - m->base) % m->size)
			return false;
		*pfn = (page - m->base) / m->size;
		return *pfn >= m->first_pfn;
	case IDD_MEMMAP_SECTIONS:
		return section_pfn(m, t, page, pfn);
	default:
		return false;
	}
}
