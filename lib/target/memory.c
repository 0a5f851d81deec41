// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Memory images in buffers instead of a dump. By kernel virtual address
 * (idd_target_open_memory: tests and fuzzers hand the decoder the bytes
 * it will read), or by physical address with our page walk translating
 * (idd_target_open_physical: tests of the walk on synthetic page tables).
 */
#include <stdlib.h>
#include <string.h>

#include "target/arch.h"
#include "target/backend.h"

struct memory {
	struct idd_backend base;
	const struct idd_memory_region *regions;
	size_t nregions;
	char arch[32];
	uint64_t page_size;
};

static struct memory *to_memory(struct idd_backend *b)
{
	return (struct memory *)b;
}

static const struct idd_memory_region *region_of(const struct memory *m,
						 uint64_t addr)
{
	for (size_t i = 0; i < m->nregions; i++)
		if (addr >= m->regions[i].start &&
		    addr - m->regions[i].start < m->regions[i].size)
			return &m->regions[i];
	return NULL;
}

/* len bytes at addr from the regions; the first address none holds. */
static bool copy_out(const struct memory *m, uint64_t addr, uint8_t *buf,
		     size_t len, uint64_t *missing)
{
	while (len) {
		const struct idd_memory_region *r = region_of(m, addr);
		size_t n;

		if (!r) {
			*missing = addr;
			return false;
		}
		n = r->size - (size_t)(addr - r->start);
		if (n > len)
			n = len;
		memcpy(buf, r->data + (addr - r->start), n);
		buf += n;
		addr += n;
		len -= n;
	}
	return true;
}

static struct inodedump_error *memory_read_virt(struct idd_backend *b,
						uint64_t addr, void *buf,
						size_t len)
{
	uint64_t missing;

	if (copy_out(to_memory(b), addr, buf, len, &missing))
		return NULL;
	return idd_error_at(INODEDUMP_ERR_FAULT, missing,
			    "address 0x%llx is not in the memory image",
			    (unsigned long long)missing);
}

static bool memory_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
			     size_t len)
{
	uint64_t missing;

	return copy_out(to_memory(b), pa, buf, len, &missing);
}

static const char *memory_format(struct idd_backend *b)
{
	(void)b;
	return "memory";
}

static const char *memory_arch(struct idd_backend *b)
{
	struct memory *m = to_memory(b);

	return m->arch[0] ? m->arch : NULL;
}

static uint64_t memory_page_size(struct idd_backend *b)
{
	return to_memory(b)->page_size;
}

static void memory_close(struct idd_backend *b)
{
	free(b);
}

/* By kernel virtual address: the image is all there is. */
static const struct idd_backend_ops virtual_ops = {
	.reader = "memory",
	.translation = "memory image",
	.translates = true,
	.read_virt = memory_read_virt,
	.format = memory_format,
	.close = memory_close,
};

/* By physical address: our walk translates, nothing falls back. */
static const struct idd_backend_ops physical_ops = {
	.reader = "memory",
	.translation = "none (the page tables are not usable)",
	.read_phys = memory_read_phys,
	.format = memory_format,
	.arch = memory_arch,
	.page_size = memory_page_size,
	.close = memory_close,
};

static struct inodedump_error *open_image(
	const struct idd_backend_ops *ops,
	const struct idd_memory_region *regions, size_t n, const char *arch,
	const char *vmcoreinfo, struct idd_target **out)
{
	struct idd_target *t = idd_target_new();
	struct memory *m = calloc(1, sizeof(*m));

	if (!t || !m || (arch && strlen(arch) >= sizeof(m->arch))) {
		free(m);
		idd_target_close(t);
		return t && m ? idd_error(INODEDUMP_ERR_USAGE,
					  "architecture name too long")
			      : idd_nomem();
	}
	m->base.ops = ops;
	m->regions = regions;
	m->nregions = n;
	if (arch) {
		const struct idd_arch_ops *a = idd_arch_find(arch);

		strcpy(m->arch, arch);
		/* The machine's one page size; several: VMCOREINFO's (0). */
		m->page_size = !a ? 4096
			       : a->page_sizes & (a->page_sizes - 1) ? 0
								    : a->page_sizes;
	}
	idd_target_attach(t, &m->base);
	if (vmcoreinfo)
		idd_target_parse_vmcoreinfo(t, vmcoreinfo);
	*out = t;
	return NULL;
}

struct inodedump_error *idd_target_open_memory(
	const struct idd_memory_region *regions, size_t n,
	const char *vmcoreinfo, struct idd_target **out)
{
	return open_image(&virtual_ops, regions, n, NULL, vmcoreinfo, out);
}

struct inodedump_error *idd_target_open_physical(
	const struct idd_memory_region *regions, size_t n, const char *arch,
	const char *vmcoreinfo, struct idd_target **out)
{
	return open_image(&physical_ops, regions, n, arch ? arch : "", vmcoreinfo,
			  out);
}
