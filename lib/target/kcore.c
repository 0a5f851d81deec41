// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * /proc/kcore by our reader: the running kernel's memory as an ELF core
 * whose PT_LOADs map kernel virtual addresses (fs/proc/kcore.c: the
 * kernel's text, RAM through the direct map, vmalloc and modules,
 * vmemmap), VMCOREINFO in its notes (kernels since 4.19). A read is a
 * pread(2) of each 4 KiB page it touches, at its offset in the program
 * header that holds the address, through the page cache (a page a
 * program header holds only in part: the bytes asked for, uncached;
 * all dropped by forget(), so --follow reads the
 * kernel as it is now): no page walk, no libkdumpfile. An address in no
 * program header, and a read the kernel fails or cuts short, is an error
 * naming that address. The file's size (about the whole address space)
 * is never read. Its headers and notes are in the kernel's byte order,
 * which is its machine's (s390x: big-endian). A kcore our reader does
 * not take (no VMCOREINFO note, a machine whose walk we do not have, an
 * order not its machine's) is libkdumpfile's, as before, and why is
 * said (idd_target_declined()).
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "target/arch.h"
#include "target/backend.h"

#define KC_PAGE 4096u
#define KC_PHDRS_MAX (1u << 20) /* a RAM range each, and a few more */

/* A PT_LOAD: kernel virtual [va, end) at file offset off; pa or none. */
struct kseg {
	uint64_t va, end, off, pa; /* pa: UINT64_MAX when not RAM or text */
	uint64_t idx;		   /* its program header */
};

struct kcore {
	struct idd_backend base;
	const struct idd_arch_ops *arch;
	int fd;
	char *vmcoreinfo;
	size_t vmcoreinfo_size;
	struct kseg *segs;  /* by va */
	struct kseg *by_pa; /* those with a physical address, by pa */
	size_t nsegs, npa;
	struct idd_page_cache cache; /* keyed by virtual page (va / 4096) */
	bool cache_ok;
	bool le; /* its headers' order: the kernel's */
};

/* A header field of n bytes in the kcore's order. */
static uint64_t field(const struct kcore *k, const void *p, size_t n)
{
	return idd_load(p, n, !k->le);
}

static struct kcore *to_kcore(struct idd_backend *b)
{
	return (struct kcore *)b;
}

static int va_cmp(const void *a, const void *b)
{
	const struct kseg *x = a, *y = b;

	if (x->va != y->va)
		return x->va < y->va ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int pa_cmp(const void *a, const void *b)
{
	const struct kseg *x = a, *y = b;

	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The segment holding key (its va, else its pa): among those starting at
 * or before it, the first that reaches past it (segments may overlap:
 * ppc64's text is in its RAM's).
 */
static const struct kseg *seg_of(const struct kseg *s, size_t n,
				 uint64_t key, bool phys)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((phys ? s[mid].pa : s[mid].va) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		uint64_t start = phys ? s[i].pa : s[i].va;

		if (key - start < s[i].end - s[i].va)
			return &s[i];
	}
	return NULL;
}

/*
 * Bytes [addr, addr + len) of segment s, pread(2) straight from the
 * file: NULL, or the error naming the first byte the kernel did not
 * give.
 */
static struct inodedump_error *read_direct(struct kcore *k,
					   const struct kseg *s,
					   uint64_t addr, uint8_t *buf,
					   size_t len)
{
	uint64_t off = s->off + (addr - s->va);
	size_t done = 0;
	char why[160];

	while (done < len) {
		ssize_t got;

		if (off + done > INT64_MAX) {
			errno = EOVERFLOW;
			got = -1;
		} else {
			got = pread(k->fd, buf + done, len - done,
				    (off_t)(off + done));
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got > 0) {
			done += (size_t)got;
			continue;
		}
		if (got < 0)
			snprintf(why, sizeof(why), "cannot be read there: %s",
				 strerror(errno));
		else
			snprintf(why, sizeof(why), "ended after %zu of the %zu "
				 "bytes read at 0x%llx (a short read)", done,
				 len, (unsigned long long)addr);
		return idd_error_at(
			INODEDUMP_ERR_FAULT, addr + done,
			"address 0x%llx: %s %s (program header %llu, kernel "
			"addresses 0x%llx-0x%llx, file offset %llu)",
			(unsigned long long)(addr + done),
			idd_target_path(k->base.target), why,
			(unsigned long long)s->idx, (unsigned long long)s->va,
			(unsigned long long)(s->end - 1),
			(unsigned long long)(off + done));
	}
	return NULL;
}

struct fill_arg {
	struct kcore *k;
	const struct kseg *s;
};

static bool fill_page(void *arg, uint64_t vpn, uint8_t *page)
{
	const struct fill_arg *a = arg;
	uint64_t va = vpn * KC_PAGE;

	return idd_pread_all(a->k->fd, page, KC_PAGE,
			     a->s->off + (va - a->s->va));
}

/* [addr, addr + len) of segment s, a page at a time through the cache. */
static struct inodedump_error *read_seg(struct kcore *k, const struct kseg *s,
					uint64_t addr, uint8_t *buf, size_t len)
{
	struct fill_arg arg = { k, s };

	while (len) {
		uint64_t page_va = addr & ~(uint64_t)(KC_PAGE - 1);
		size_t n = KC_PAGE - (size_t)(addr - page_va);
		const uint8_t *page = NULL;
		struct inodedump_error *err;

		if (n > len)
			n = len;
		/* a page wholly in the segment: cached; else read as asked */
		if (k->cache_ok && page_va >= s->va &&
		    s->end - page_va >= KC_PAGE)
			page = idd_page_cache_get(&k->cache, page_va / KC_PAGE,
						  fill_page, &arg);
		if (page) {
			memcpy(buf, page + (addr - page_va), n);
		} else if ((err = read_direct(k, s, addr, buf, n))) {
			return err;
		}
		addr += n;
		buf += n;
		len -= n;
	}
	return NULL;
}

static struct inodedump_error *kcore_read_virt(struct idd_backend *b,
					       uint64_t addr, void *buf,
					       size_t len)
{
	struct kcore *k = to_kcore(b);
	uint8_t *out = buf;

	while (len) {
		const struct kseg *s = seg_of(k->segs, k->nsegs, addr, false);
		struct inodedump_error *err;
		size_t n;

		if (!s)
			return idd_error_at(
				INODEDUMP_ERR_FAULT, addr,
				"address 0x%llx is in none of %s's program "
				"headers: the running kernel does not map it "
				"there%s",
				(unsigned long long)addr, idd_target_path(b->target),
				addr >> 63 || k->arch->own_user_space
					? "" : " (a user-space address)");
		n = s->end - addr < len ? (size_t)(s->end - addr) : len;
		err = read_seg(k, s, addr, out, n);
		if (err)
			return err;
		addr += n;
		out += n;
		len -= n;
	}
	return NULL;
}

/* Through the program headers that give a physical address (RAM, text). */
static bool kcore_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
			    size_t len)
{
	struct kcore *k = to_kcore(b);
	uint8_t *out = buf;

	while (len) {
		const struct kseg *s = seg_of(k->by_pa, k->npa, pa, true);
		size_t n;
		struct inodedump_error *err;

		if (!s)
			return false;
		n = s->end - s->va - (pa - s->pa);
		if (n > len)
			n = len;
		err = read_seg(k, s, s->va + (pa - s->pa), out, n);
		if (err) {
			inodedump_error_free(err);
			return false;
		}
		pa += n;
		out += n;
		len -= n;
	}
	return true;
}

static const char *kcore_format(struct idd_backend *b)
{
	(void)b;
	return "elf"; /* as libkdumpfile names it */
}

static const char *kcore_arch(struct idd_backend *b)
{
	return to_kcore(b)->arch->name;
}

/* The machine's one page size; else VMCOREINFO's (0: the target asks it). */
static uint64_t kcore_page_size(struct idd_backend *b)
{
	uint64_t sizes = to_kcore(b)->arch->page_sizes;

	return sizes & (sizes - 1) ? 0 : sizes;
}

static const char *kcore_uts_release(struct idd_backend *b)
{
	const char *release = idd_target_vmcoreinfo(b->target, "OSRELEASE");

	return release && *release ? release : NULL;
}

static const char *kcore_vmcoreinfo(struct idd_backend *b)
{
	return to_kcore(b)->vmcoreinfo;
}

static size_t kcore_vmcoreinfo_size(struct idd_backend *b)
{
	return to_kcore(b)->vmcoreinfo_size;
}

/* The live kernel's memory as it is now: every cached page dropped. */
static bool kcore_forget(struct idd_backend *b)
{
	struct kcore *k = to_kcore(b);

	if (k->cache_ok)
		idd_page_cache_free(&k->cache);
	k->cache_ok = idd_page_cache_init(&k->cache, KC_PAGE);
	return true; /* without a cache every read is a pread(2) */
}

static void kcore_close(struct idd_backend *b)
{
	struct kcore *k = to_kcore(b);

	inodedump_error_free(b->damage);
	free(k->vmcoreinfo);
	free(k->segs);
	free(k->by_pa);
	idd_page_cache_free(&k->cache);
	free(k);
}

static const struct idd_backend_ops kcore_ops = {
	.reader = "inodedump",
	.translation = "/proc/kcore's program headers (kernel virtual "
		       "addresses)",
	.translates = true,
	.read_phys = kcore_read_phys,
	.read_virt = kcore_read_virt,
	.format = kcore_format,
	.arch = kcore_arch,
	.page_size = kcore_page_size,
	.uts_release = kcore_uts_release,
	.vmcoreinfo = kcore_vmcoreinfo,
	.vmcoreinfo_size = kcore_vmcoreinfo_size,
	.forget = kcore_forget,
	.close = kcore_close,
};

/* Why our reader does not take it, for the target to say: false. */
static bool IDD_ATTR_PRINTF(2, 3) declined(struct kcore *k, const char *fmt,
					   ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	idd_target_declined(k->base.target, "/proc/kcore: %s", why);
	return false;
}

/* The PT_LOADs and the VMCOREINFO note; false when not ours. */
static bool read_phdrs(struct kcore *k, const Elf64_Phdr *ph, uint64_t phnum)
{
	bool xen = false;

	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t type = field(k, &ph[i].p_type, 4);
		uint64_t off = field(k, &ph[i].p_offset, 8);
		uint64_t filesz = field(k, &ph[i].p_filesz, 8);
		uint64_t va = field(k, &ph[i].p_vaddr, 8);
		uint64_t pa = field(k, &ph[i].p_paddr, 8);

		if (type == PT_NOTE && !k->vmcoreinfo)
			k->vmcoreinfo = idd_elf_find_vmcoreinfo(
				k->fd, off, filesz, k->le, &xen,
				&k->vmcoreinfo_size);
		if (type != PT_LOAD || !filesz)
			continue;
		if (va + filesz < va || off > INT64_MAX ||
		    filesz > INT64_MAX - off)
			return declined(k, "program header %llu: %llu bytes at "
					"0x%llx, file offset %llu: past the "
					"end of the address space or file",
					(unsigned long long)i,
					(unsigned long long)filesz,
					(unsigned long long)va,
					(unsigned long long)off);
		/* a physical address only where the range fits in one */
		if (pa != UINT64_MAX && pa + filesz < pa)
			pa = UINT64_MAX;
		k->segs[k->nsegs++] = (struct kseg){ va, va + filesz, off, pa,
						     i };
	}
	if (!k->nsegs)
		return declined(k, "no PT_LOAD program header");
	if (!k->vmcoreinfo)
		return declined(k, "no VMCOREINFO note (kernels before 4.19 "
				"write none)");
	qsort(k->segs, k->nsegs, sizeof(*k->segs), va_cmp);
	for (size_t i = 0; i < k->nsegs; i++)
		if (k->segs[i].pa != UINT64_MAX)
			k->by_pa[k->npa++] = k->segs[i];
	qsort(k->by_pa, k->npa, sizeof(*k->by_pa), pa_cmp);
	return true;
}

/* Whether our reader takes the file; k is filled when it does. */
static bool take(struct kcore *k, const uint8_t *h)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	uint64_t phnum;
	bool ok;

	memcpy(&eh, h, sizeof(eh));
	if (memcmp(h, ELFMAG, SELFMAG))
		return declined(k, "no ELF header");
	k->le = h[EI_DATA] == ELFDATA2LSB;
	if (h[EI_CLASS] != ELFCLASS64 ||
	    (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
		return declined(k, "ELF class %u, data %u: not a 64-bit "
				"kernel's", h[EI_CLASS], h[EI_DATA]);
	if (field(k, &eh.e_type, 2) != ET_CORE ||
	    field(k, &eh.e_phentsize, 2) != sizeof(Elf64_Phdr))
		return declined(k, "ELF type %u, program headers of %u bytes: "
				"no 64-bit core file",
				(unsigned)field(k, &eh.e_type, 2),
				(unsigned)field(k, &eh.e_phentsize, 2));
	k->arch = idd_arch_of_elf((unsigned)field(k, &eh.e_machine, 2));
	if (!k->arch)
		return declined(k, "ELF machine %u, none whose kernel "
				"inodedump reads",
				(unsigned)field(k, &eh.e_machine, 2));
	/* the kernel writes its own order, which is its machine's */
	if (k->le == k->arch->big_endian)
		return declined(k, "%s-endian headers, but %s kernels are "
				"%s-endian", k->le ? "little" : "big",
				k->arch->name,
				k->arch->big_endian ? "big" : "little");
	phnum = field(k, &eh.e_phnum, 2);
	if (!phnum || phnum == PN_XNUM || phnum > KC_PHDRS_MAX)
		return declined(k, "%llu program headers",
				(unsigned long long)phnum);
	ph = malloc(phnum * sizeof(*ph));
	k->segs = malloc(phnum * sizeof(*k->segs));
	k->by_pa = malloc(phnum * sizeof(*k->by_pa));
	ok = ph && k->segs && k->by_pa;
	if (ok && !idd_pread_all(k->fd, ph, phnum * sizeof(*ph),
				 field(k, &eh.e_phoff, 8)))
		ok = declined(k, "its %llu program headers at %llu cannot be "
			      "read", (unsigned long long)phnum,
			      (unsigned long long)field(k, &eh.e_phoff, 8));
	ok = ok && read_phdrs(k, ph, phnum);
	free(ph);
	return ok;
}

struct inodedump_error *idd_kcore_probe(struct idd_target *t,
					const char *path, int fd,
					struct idd_backend **out)
{
	uint8_t h[sizeof(Elf64_Ehdr)] = { 0 };
	struct kcore *k;

	(void)path;
	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return idd_nomem();
	k->base.ops = &kcore_ops;
	k->base.target = t;
	k->fd = fd;
	k->cache_ok = idd_page_cache_init(&k->cache, KC_PAGE);
	errno = 0;
	if (idd_pread_upto(fd, h, sizeof(h), 0) < sizeof(h)) {
		declined(k, "its ELF header cannot be read (%s)",
			 errno ? strerror(errno) : "end of file");
		kcore_close(&k->base);
		return NULL;
	}
	if (!take(k, h)) {
		kcore_close(&k->base);
		return NULL;
	}
	*out = &k->base;
	return NULL;
}
