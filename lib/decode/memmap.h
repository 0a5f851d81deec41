/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: where a page frame's struct page is, in each of the kernel's
 * memory models (memmap.c): the virtual memmap (SPARSEMEM_VMEMMAP), a
 * memory map per memory section (SPARSEMEM without VMEMMAP, the
 * mem_section table EXTREME or static), or the one global mem_map
 * (FLATMEM). Chosen from what the kernel says: VMCOREINFO's keys first,
 * then the architecture's variables.
 */
#ifndef IDD_DECODE_MEMMAP_H
#define IDD_DECODE_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "target/target.h"

/*
 * Functions whose units (through .debug_aranges) hold what the memory map's
 * set-up asks of the types: mm/sparse.c's struct mem_section, mm/page_alloc.c's
 * enums. Each list is tried in order until one places its unit (an __init
 * function may be outside the aranges); slab.c looks them all up in one pass.
 */
/* Every kernel has a struct page: types without one are damaged (a BTF
 * page the dump holds broken) or are not this kernel's. */
#define IDD_NO_STRUCT_PAGE                                                    \
	"the kernel's types have no struct page, which every kernel has: "    \
	"they are damaged or not this kernel's"
#define IDD_SPARSE_CU "mm/sparse.c"
#define IDD_SPARSE_FNS                                                        \
	"mem_section_usage_size", "usemap_size", "online_mem_sections",       \
		"sparse_init"
#define IDD_ALLOC_CU "mm/page_alloc.c"
#define IDD_ALLOC_FNS "get_page_from_freelist", "__free_pages"

enum idd_memmap_model {
	IDD_MEMMAP_UNKNOWN,  /* why says what is missing */
	IDD_MEMMAP_VMEMMAP,  /* page = base + pfn * size */
	IDD_MEMMAP_SECTIONS, /* page = section's map + pfn * size */
	IDD_MEMMAP_FLATMEM,  /* page = base + pfn * size, pfn >= first_pfn */
};

/* What the caller knows from the kernel's types and architecture. */
struct idd_memmap_inputs {
	uint64_t page_bytes;   /* sizeof(struct page) (the types) */
	uint64_t flags_offset; /* offsetof(struct page, flags) */
	bool flags_present;
	/*
	 * The architecture's virtual memmap (frame 0's struct page), 0 when
	 * it gives none; vmemmap_why then says why (or NULL).
	 */
	uint64_t vmemmap;
	const char *vmemmap_why;
	/* ARCH_PFN_OFFSET, FLATMEM's first frame, when the arch says it */
	uint64_t flat_pfn_offset;
	bool flat_pfn_offset_known;
	/* struct mem_section from the types (0: not known) */
	uint64_t section_bytes, section_map_offset;
};

struct idd_memmap {
	enum idd_memmap_model model;
	const char *why; /* IDD_MEMMAP_UNKNOWN: what is missing */
	char *why_buf;
	/*
	 * For the session's notes: VMCOREINFO's sizes of struct mem_section
	 * where the kernel's types say otherwise (the types' are taken), and
	 * damage a read found setting the model up (note_damage()).
	 */
	char *note;
	const char *whence; /* how the model was chosen, for a person */
	uint64_t size;	    /* sizeof(struct page) */
	uint64_t base;	    /* VMEMMAP, FLATMEM: frame 0's struct page */
	uint64_t first_pfn; /* FLATMEM: ARCH_PFN_OFFSET */
	/* SECTIONS */
	uint64_t root;	     /* SYMBOL(mem_section): the table's address */
	bool extreme;	     /* root is an array of pointers to arrays */
	uint64_t nr_roots;   /* LENGTH(mem_section): NR_SECTION_ROOTS */
	uint64_t per_root;   /* SECTIONS_PER_ROOT */
	uint64_t ms_bytes;   /* sizeof(struct mem_section) */
	uint64_t ms_map;     /* offsetof(struct mem_section, section_mem_map) */
	unsigned pfn_shift;  /* PFN_SECTION_SHIFT */
	unsigned sec_width;  /* SECTIONS_SHIFT: atop page->flags */
	uint64_t map_mask;   /* section_mem_map's pointer bits */
	uint64_t first_map;  /* the first section's decoded map */
	uint64_t flags_offset;
	bool flags_present;
};

/* Choose and set up the model; m->model says which (UNKNOWN: m->why). */
void idd_memmap_init(struct idd_memmap *m, struct idd_target *t,
		     const struct idd_memmap_inputs *in);
void idd_memmap_fini(struct idd_memmap *m);
/* "vmemmap", "mem_section (SPARSEMEM_EXTREME)", ... for a person. */
const char *idd_memmap_model_name(const struct idd_memmap *m);

/*
 * pfn's struct page. NULL, or an error: INODEDUMP_ERR_FAULT with no
 * address when the frame has none (a hole: its memory section has no
 * memory map), else the error of the read of mem_section that failed.
 */
struct inodedump_error *idd_memmap_page_slow(const struct idd_memmap *m,
					     struct idd_target *t,
					     uint64_t pfn, uint64_t *page);
/* pfn's struct page read, its first len bytes into buf; *page its
 * address (0 when where it is could not be found). */
struct inodedump_error *idd_memmap_read(const struct idd_memmap *m,
					struct idd_target *t, uint64_t pfn,
					void *buf, size_t len, uint64_t *page);
static inline struct inodedump_error *
idd_memmap_page(const struct idd_memmap *m, struct idd_target *t,
		uint64_t pfn, uint64_t *page)
{
	if (m->model == IDD_MEMMAP_VMEMMAP) { /* the everyday case: no read */
		*page = m->base + pfn * m->size;
		return NULL;
	}
	return idd_memmap_page_slow(m, t, pfn, page);
}

/*
 * How many frames from pfn on have their struct pages one after another
 * from pfn's (at least 1): to the end of pfn's memory section, or all
 * (FLATMEM below its first frame: how many frames until it).
 */
uint64_t idd_memmap_run(const struct idd_memmap *m, uint64_t pfn);

/*
 * The frame of the struct page at page (the kernel's page_to_pfn): by
 * arithmetic for VMEMMAP and FLATMEM; for SECTIONS from the section
 * number the kernel keeps atop page->flags (SECTION_IN_PAGE_FLAGS),
 * checked against that section's map. False when page is no frame's.
 */
bool idd_memmap_pfn(const struct idd_memmap *m, struct idd_target *t,
		    uint64_t page, uint64_t *pfn);

#endif
