// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Our own reader of the two common dump files, by physical address:
 * makedumpfile's compressed kdump (diskdump) format and 64-bit
 * little-endian ELF cores. It exists for speed: libkdumpfile pulls in
 * C++ (through snappy) and sets up more than a one-inode decode needs,
 * which together cost more than the decode. It takes only what it fully
 * understands and says no to the rest (other formats, split or incomplete
 * dumps, snappy pages, big-endian files): target.c then uses libkdumpfile,
 * which also gets every read this reader cannot do, so its messages stay
 * the ones users see for damaged files.
 *
 * Offsets below are the file formats' own (makedumpfile's diskdump_mod.h,
 * the ELF specification), not a kernel's layout.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "target/target.h"

#define DD_SIGNATURE "KDUMP   "
#define DD_ZLIB 0x1
#define DD_LZO 0x2
#define DD_SNAPPY 0x4
#define DD_INCOMPLETE 0x8
#define DD_ZSTD 0x20
#define DD_MAX_PAGE (1u << 20)
#define RANK_BITS 4096u	       /* bits of bitmap per rank entry */
#define NOTES_MAX (16u << 20)  /* more notes than this: not ours */
#define PHDRS_MAX (1u << 22)
#define PAGE_CACHE 64

struct seg {
	uint64_t start, end, off; /* physical [start, end) at file offset */
};

struct idd_dumpfile {
	int fd;
	bool diskdump;
	char arch[32];
	char release[65];
	char *vmcoreinfo;
	uint32_t page_size;
	/* diskdump */
	uint64_t max_pfn;
	uint64_t bitmap2_off, desc_off;
	uint64_t *rank;	   /* set bits of bitmap 2 before each RANK_BITS */
	uint8_t bits[RANK_BITS / 8]; /* bitmap 2's block bits_block */
	uint64_t bits_block;
	bool bits_valid;
	uint8_t *cbuf;	   /* compressed page */
	/* ELF */
	struct seg *segs;
	size_t nsegs;
	/* the pages last read (page tables and data take turns) */
	uint64_t cached_pfn[PAGE_CACHE];
	bool cached[PAGE_CACHE];
	unsigned next;
	uint8_t *page; /* PAGE_CACHE pages */
};

static bool pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	if (off > INT64_MAX)
		return false;
	while (len) {
		ssize_t got = pread(fd, p, len, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p += got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return true;
}

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static void copy_field(char *dst, size_t size, const uint8_t *src,
		       size_t srclen)
{
	size_t n = strnlen((const char *)src, srclen);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void idd_dumpfile_close(struct idd_dumpfile *d)
{
	if (!d)
		return;
	free(d->vmcoreinfo);
	free(d->rank);
	free(d->cbuf);
	free(d->segs);
	free(d->page);
	free(d);
}

static char *read_text(int fd, uint64_t off, uint64_t size)
{
	char *s;

	if (!size || size > NOTES_MAX)
		return NULL;
	s = malloc(size + 1);
	if (!s)
		return NULL;
	if (!pread_all(fd, s, size, off)) {
		free(s);
		return NULL;
	}
	s[size] = '\0';
	return s;
}

/* rank[i]: the set bits of bitmap 2 before block i (RANK_BITS each). */
static bool build_rank(struct idd_dumpfile *d, uint64_t blocks)
{
	/* Up to 64 KiB of the bitmap per read. */
	static _Thread_local uint8_t chunk[128 * RANK_BITS / 8];

	d->rank[0] = 0;
	for (uint64_t done = 0; done < blocks;) {
		uint64_t n = blocks - done < 128 ? blocks - done : 128;

		if (!pread_all(d->fd, chunk, n * (RANK_BITS / 8),
			       d->bitmap2_off + done * (RANK_BITS / 8)))
			return false;
		for (uint64_t b = 0; b < n; b++, done++) {
			uint64_t sum = 0;
			const uint8_t *p = chunk + b * (RANK_BITS / 8);

			for (size_t w = 0; w < RANK_BITS / 8; w += 8)
				sum += (uint64_t)__builtin_popcountll(le64(p + w));
			d->rank[done + 1] = d->rank[done] + sum;
		}
	}
	return true;
}

static bool open_diskdump(struct idd_dumpfile *d, uint64_t file_size)
{
	uint8_t h[464], sub[104];
	int32_t version, block_size, sub_hdr_size;
	uint32_t status, bitmap_blocks;
	uint64_t bitmap_off, vi_off, vi_size;

	if (!pread_all(d->fd, h, sizeof(h), 0))
		return false;
	version = (int32_t)le32(h + 8);
	status = le32(h + 424);
	block_size = (int32_t)le32(h + 428);
	sub_hdr_size = (int32_t)le32(h + 432);
	bitmap_blocks = le32(h + 436);
	/* Versions 6+ carry 64-bit pfns and VMCOREINFO in the sub-header. */
	if (version < 6 || version > 64 || (status & DD_INCOMPLETE) ||
	    block_size < 512 || (uint32_t)block_size > DD_MAX_PAGE ||
	    (block_size & (block_size - 1)) || sub_hdr_size < 1 ||
	    sub_hdr_size > 4096 || !bitmap_blocks || (bitmap_blocks & 1))
		return false;
	if (!pread_all(d->fd, sub, sizeof(sub), (uint64_t)block_size))
		return false;
	if (le32(sub + 12) != 0) /* split over several files */
		return false;
	vi_off = le64(sub + 32);
	vi_size = le64(sub + 40);
	d->max_pfn = le64(sub + 96);
	d->page_size = (uint32_t)block_size;
	copy_field(d->release, sizeof(d->release), h + 12 + 2 * 65, 65);
	copy_field(d->arch, sizeof(d->arch), h + 12 + 4 * 65, 65);
	bitmap_off = (uint64_t)block_size * (1 + (uint64_t)sub_hdr_size);
	d->bitmap2_off = bitmap_off + (uint64_t)bitmap_blocks / 2 * block_size;
	d->desc_off = bitmap_off + (uint64_t)bitmap_blocks * block_size;
	/* Both bitmaps must hold max_pfn bits and lie inside the file. */
	if (d->max_pfn > (uint64_t)bitmap_blocks / 2 * block_size * 8 ||
	    d->desc_off > file_size || vi_off > file_size ||
	    vi_size > file_size - vi_off)
		return false;
	d->rank = calloc(d->max_pfn / RANK_BITS + 2, sizeof(*d->rank));
	if (!d->rank)
		return false;
	/*
	 * The last page's descriptor says where the file must end (the
	 * bitmap's set bits count the descriptors): a truncated file is
	 * libkdumpfile's, and its messages.
	 */
	{
		uint8_t desc[24];
		uint64_t blocks = (d->max_pfn + RANK_BITS - 1) / RANK_BITS, n;

		if (!build_rank(d, blocks))
			return false;
		n = d->rank[blocks];
		if (!n || n > d->max_pfn ||
		    !pread_all(d->fd, desc, sizeof(desc),
			       d->desc_off + (n - 1) * 24) ||
		    le64(desc) > file_size ||
		    le32(desc + 8) > file_size - le64(desc))
			return false;
	}
	d->vmcoreinfo = read_text(d->fd, vi_off, vi_size);
	d->cbuf = malloc(d->page_size);
	if (!d->vmcoreinfo || !d->cbuf)
		return false;
	d->diskdump = true;
	return true;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The VMCOREINFO note among the ELF notes at [off, off + size). */
static char *elf_vmcoreinfo(int fd, uint64_t off, uint64_t size, bool *xen)
{
	uint8_t *notes;
	char *found = NULL;

	if (!size || size > NOTES_MAX || !(notes = malloc(size)))
		return NULL;
	if (!pread_all(fd, notes, size, off)) {
		free(notes);
		return NULL;
	}
	for (uint64_t p = 0; p + 12 <= size;) {
		uint64_t namesz = le32(notes + p), descsz = le32(notes + p + 4);
		uint64_t name = p + 12, desc = name + ((namesz + 3) & ~3ULL);

		if (desc > size || descsz > size - desc)
			break;
		if (namesz == sizeof("Xen") && !memcmp(notes + name, "Xen", 4))
			*xen = true;
		if (!found && namesz == sizeof("VMCOREINFO") &&
		    !memcmp(notes + name, "VMCOREINFO", namesz)) {
			found = malloc(descsz + 1);
			if (found) {
				memcpy(found, notes + desc, descsz);
				found[descsz] = '\0';
			}
		}
		p = desc + ((descsz + 3) & ~3ULL);
	}
	free(notes);
	return found;
}

static bool open_elf(struct idd_dumpfile *d, uint64_t file_size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t n = 0, at_zero = 0;
	bool sorted = true, xen = false;

	if (!pread_all(d->fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    le16toh(eh.e_type) != ET_CORE ||
	    le16toh(eh.e_machine) != EM_X86_64 ||
	    le16toh(eh.e_phentsize) != sizeof(Elf64_Phdr))
		return false;
	uint64_t phnum = le16toh(eh.e_phnum), phoff = le64toh(eh.e_phoff);

	if (phnum == PN_XNUM) { /* the real count is in section 0's sh_info */
		Elf64_Shdr sh;

		if (!eh.e_shoff ||
		    !pread_all(d->fd, &sh, sizeof(sh), le64toh(eh.e_shoff)))
			return false;
		phnum = le32toh(sh.sh_info);
	}
	if (!phnum || phnum > PHDRS_MAX || phoff > file_size ||
	    phnum * sizeof(Elf64_Phdr) > file_size - phoff)
		return false;
	ph = malloc(phnum * sizeof(*ph));
	d->segs = malloc(phnum * sizeof(*d->segs));
	if (!ph || !d->segs || !pread_all(d->fd, ph, phnum * sizeof(*ph), phoff)) {
		free(ph);
		return false;
	}
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t type = le32toh(ph[i].p_type);
		uint64_t off = le64toh(ph[i].p_offset);
		uint64_t filesz = le64toh(ph[i].p_filesz);
		uint64_t memsz = le64toh(ph[i].p_memsz);
		uint64_t pa = le64toh(ph[i].p_paddr);

		if (type == PT_NOTE && !d->vmcoreinfo)
			d->vmcoreinfo = elf_vmcoreinfo(d->fd, off, filesz, &xen);
		if (type != PT_LOAD || !filesz)
			continue;
		/* Zero-filled tails and segments past the end: not ours. */
		if (filesz != memsz || off > file_size ||
		    filesz > file_size - off || pa + filesz < pa) {
			free(ph);
			return false;
		}
		at_zero += pa == 0;
		d->segs[n] = (struct seg){ pa, pa + filesz, off };
		if (n && d->segs[n].start < d->segs[n - 1].start)
			sorted = false;
		n++;
	}
	free(ph);
	/*
	 * A Xen dump's frames are not the physical addresses we walk; several
	 * segments at physical 0 mean a writer that left p_paddr unset.
	 */
	if (!n || !d->vmcoreinfo || xen || at_zero > 1)
		return false;
	if (!sorted)
		qsort(d->segs, n, sizeof(*d->segs), seg_cmp);
	/*
	 * Overlaps (the kernel image is also in a RAM segment; QEMU writes a
	 * segment per virtual mapping): keep the first segment's bytes.
	 */
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct seg s = d->segs[i];

		if (k && s.start < d->segs[k - 1].end) {
			uint64_t skip = d->segs[k - 1].end - s.start;

			if (s.end <= d->segs[k - 1].end)
				continue;
			s.start += skip;
			s.off += skip;
		}
		d->segs[k++] = s;
	}
	d->nsegs = k;
	d->page_size = 4096; /* x86-64 */
	strcpy(d->arch, "x86_64");
	return true;
}

struct idd_dumpfile *idd_dumpfile_open(int fd)
{
	struct idd_dumpfile *d = calloc(1, sizeof(*d));
	off_t size = lseek(fd, 0, SEEK_END);
	char sig[8];

	if (!d || size <= 0)
		goto no;
	d->fd = fd;
	if (pread_all(fd, sig, sizeof(sig), 0) &&
	    !memcmp(sig, DD_SIGNATURE, sizeof(sig))
		    ? !open_diskdump(d, (uint64_t)size)
		    : !open_elf(d, (uint64_t)size))
		goto no;
	d->page = malloc((size_t)d->page_size * PAGE_CACHE);
	if (!d->page)
		goto no;
	return d;
no:
	idd_dumpfile_close(d);
	return NULL;
}

const char *idd_dumpfile_format(const struct idd_dumpfile *d)
{
	return d->diskdump ? "diskdump" : "elf";
}

const char *idd_dumpfile_arch(const struct idd_dumpfile *d)
{
	return d->arch[0] ? d->arch : NULL;
}

const char *idd_dumpfile_release(const struct idd_dumpfile *d)
{
	return d->release[0] ? d->release : NULL;
}

const char *idd_dumpfile_vmcoreinfo(const struct idd_dumpfile *d)
{
	return d->vmcoreinfo;
}

uint32_t idd_dumpfile_page_size(const struct idd_dumpfile *d)
{
	return d->page_size;
}

/*
 * Set bits of bitmap 2 below pfn (whose bit is set), or -1. rank[] is
 * complete from open_diskdump(); the block of bits last looked at is kept.
 */
static int64_t desc_index(struct idd_dumpfile *d, uint64_t pfn)
{
	uint64_t block = pfn / RANK_BITS, bit = pfn % RANK_BITS, count = 0;
	const uint8_t *bits = d->bits;

	if (!d->bits_valid || d->bits_block != block) {
		d->bits_valid = pread_all(d->fd, d->bits, sizeof(d->bits),
					  d->bitmap2_off +
						  block * sizeof(d->bits));
		d->bits_block = block;
		if (!d->bits_valid)
			return -1;
	}

	if (!(bits[bit / 8] & (1u << (bit % 8))))
		return -1; /* not in the dump */
	for (uint64_t w = 0; w < bit / 64; w++)
		count += (uint64_t)__builtin_popcountll(le64(bits + w * 8));
	count += (uint64_t)__builtin_popcountll(le64(bits + bit / 64 * 8) &
						((1ULL << (bit % 64)) - 1));
	return (int64_t)(d->rank[block] + count);
}

static bool diskdump_page(struct idd_dumpfile *d, uint64_t pfn,
			  uint8_t *page)
{
	uint8_t desc[24];
	int64_t idx;
	uint64_t off;
	uint32_t size, flags;

	if (pfn >= d->max_pfn || (idx = desc_index(d, pfn)) < 0 ||
	    !pread_all(d->fd, desc, sizeof(desc),
		       d->desc_off + (uint64_t)idx * sizeof(desc)))
		return false;
	off = le64(desc);
	size = le32(desc + 8);
	flags = le32(desc + 12);
	if (!size || size > d->page_size)
		return false;
	if (!(flags & (DD_ZLIB | DD_LZO | DD_SNAPPY | DD_ZSTD))) {
		return size == d->page_size && pread_all(d->fd, page, size, off);
	}
	if (!pread_all(d->fd, d->cbuf, size, off))
		return false;
	if (flags & DD_ZLIB) {
		uLongf out = d->page_size;

		return uncompress(page, &out, d->cbuf, size) == Z_OK &&
		       out == d->page_size;
	}
	if (flags & DD_LZO) {
		lzo_uint out = d->page_size;

		return lzo1x_decompress_safe(d->cbuf, size, page, &out,
					     NULL) == LZO_E_OK &&
		       out == d->page_size;
	}
	if (flags & DD_ZSTD) {
		size_t out = ZSTD_decompress(page, d->page_size, d->cbuf,
					     size);

		return !ZSTD_isError(out) && out == d->page_size;
	}
	return false; /* snappy: libkdumpfile's */
}

static bool elf_read(struct idd_dumpfile *d, uint64_t pa, void *buf,
		     size_t len)
{
	size_t lo = 0, hi = d->nsegs;

	while (lo < hi) { /* the last segment starting at or before pa */
		size_t mid = lo + (hi - lo) / 2;

		if (d->segs[mid].start <= pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	const struct seg *s = &d->segs[lo - 1];

	return pa < s->end && len <= s->end - pa &&
	       pread_all(d->fd, buf, len, s->off + (pa - s->start));
}

bool idd_dumpfile_read(struct idd_dumpfile *d, uint64_t pa, void *buf,
		       size_t len)
{
	uint8_t *out = buf;

	while (len) {
		uint64_t in_page = pa % d->page_size;
		size_t n = d->page_size - in_page;

		if (n > len)
			n = len;
		if (!d->diskdump) {
			if (!elf_read(d, pa, out, n))
				return false;
		} else {
			uint64_t pfn = pa / d->page_size;
			unsigned slot = PAGE_CACHE;

			for (unsigned i = 0; i < PAGE_CACHE; i++)
				if (d->cached[i] && d->cached_pfn[i] == pfn)
					slot = i;
			if (slot == PAGE_CACHE) {
				slot = d->next++ % PAGE_CACHE;
				d->cached[slot] = false;
				if (!diskdump_page(d, pfn,
						   d->page + (size_t)slot *
								     d->page_size))
					return false;
				d->cached[slot] = true;
				d->cached_pfn[slot] = pfn;
			}
			memcpy(out, d->page + (size_t)slot * d->page_size + in_page,
			       n);
		}
		out += n;
		pa += n;
		len -= n;
	}
	return true;
}
