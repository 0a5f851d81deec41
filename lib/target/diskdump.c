// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * makedumpfile's compressed kdump (diskdump) format: the header read and
 * checked once, and our reader of it by physical address. The reader
 * exists for speed (libkdumpfile pulls in C++ through snappy and sets up
 * more than a one-inode decode needs); it takes only what it fully
 * understands and says no to the rest (split or incomplete dumps, header
 * versions before 6), which then goes to libkdumpfile, as does every read
 * it cannot do (snappy pages). Damage it finds (a bitmap that does not
 * count the descriptors, a descriptor that does not fit, data that does
 * not decompress) it reports itself, naming the page and the descriptor:
 * libkdumpfile 0.5.1 trusts such damage and can crash on it.
 *
 * The header's block size is the dump's page unit, its frame numbers
 * counted in it; it may be larger than the kernel's page (QEMU writes
 * 64 KiB blocks for every arm64 guest): the facts (page size, frame
 * states) are then said in the kernel's pages, VMCOREINFO's PAGESIZE.
 *
 * Offsets below are the file format's own (makedumpfile's
 * diskdump_mod.h: struct disk_dump_header, then struct kdump_sub_header
 * at block_size), not a kernel's layout.
 */
#include <libdeflate.h>
#include <lzo/lzo1x.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "core/cleanup.h"
#include "target/arch.h"
#include "target/backend.h"
#include "target/vmcoreinfo_scan.h"

#include "target/diskdump_format.h"

#define RANK_BITS 4096u	       /* bits of bitmap per rank entry */
/*
 * The most a kernel writes: VMCOREINFO is a page (VMCOREINFO_BYTES), the
 * notes one per CPU; a header asking for more is damaged.
 */
#define VMCOREINFO_MAX (1u << 20)
#define NOTES_MAX (16u << 20)

/* The header and sub-header, as much of each as the file has. */
struct header {
	uint8_t h[DD_HEADER_SIZE], sub[DD_SUB_SIZE];
	size_t h_len, sub_len;
	int32_t block_size;
	uint32_t bitmap_blocks;
	bool big; /* written big-endian (s390x): put in little-endian */
};

/*
 * What decompressing a page needs: a buffer for its compressed bytes and
 * one decompressor of each kind, kept between pages. The reader has one;
 * each thread of a large read (read_pages_parallel) its own.
 */
struct inflater {
	uint8_t *cbuf;
	struct libdeflate_decompressor *deflate;
	ZSTD_DCtx *zstd;
};

static void inflater_free(struct inflater *in)
{
	free(in->cbuf);
	libdeflate_free_decompressor(in->deflate);
	ZSTD_freeDCtx(in->zstd);
}

struct diskdump {
	struct idd_backend base;
	int fd;
	int dump_level;
	char arch[DD_UTS_FIELD], release[DD_UTS_FIELD], sysname[DD_UTS_FIELD];
	int32_t version;
	uint32_t status;
	bool big; /* its header and descriptors big-endian (s390x) */
	uint64_t eraseinfo_size;
	char writer[384];
	uint64_t bitmap1_off;
	uint8_t bits1[RANK_BITS / 8]; /* bitmap 1's block bits1_block */
	uint64_t bits1_block;
	bool bits1_valid;
	char *vmcoreinfo;
	size_t vmcoreinfo_size; /* as the sub-header gives it */
	uint64_t vmcoreinfo_pa; /* none there: the kernel's, found here */
	uint32_t page_size; /* the header's block size: the dump's page */
	uint32_t kpage;	    /* the kernel's page, found on first need */
	char page_whence[80];
	uint64_t max_pfn;   /* in the dump's pages */
	uint64_t bitmap2_off, desc_off;
	uint64_t data_start; /* the end of the descriptor table (0: unknown) */
	uint64_t *rank;	   /* set bits of bitmap 2 before each RANK_BITS */
	uint8_t bits[RANK_BITS / 8]; /* bitmap 2's block bits_block */
	uint64_t bits_block;
	bool bits_valid;
	struct idd_page_cache cache; /* decompressed pages */
	struct inflater in; /* the reader's own */
};

static struct diskdump *to_diskdump(struct idd_backend *b)
{
	return (struct diskdump *)b;
}

/*
 * libkdumpfile 0.5.1 allocates what a diskdump header asks for before it
 * checks it against the file: a corrupt block size or note size becomes a
 * multi-gigabyte malloc. Refuse headers that do not fit their file.
 */
static struct inodedump_error *check_header(const char *path,
					    const struct header *hd,
					    off_t size)
{
	int32_t block_size = hd->block_size;
	int32_t bitmap_blocks = (int32_t)hd->bitmap_blocks;

	if (hd->h_len < DD_BITMAP_BLOCKS + 4)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: diskdump header truncated", path);
	if (block_size < 512 || block_size > (1 << 20) ||
	    (block_size & (block_size - 1)))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt diskdump header: block size %d",
				 path, block_size);
	if (bitmap_blocks < 0 ||
	    (int64_t)bitmap_blocks * block_size > (int64_t)size)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt or truncated diskdump: %d bitmap "
				 "blocks of %d bytes but the file has %lld",
				 path, bitmap_blocks, block_size, (long long)size);
	if (hd->sub_len < 64)
		return NULL;
	/* offset/size of VMCOREINFO and of the ELF notes */
	for (int i = 0; i < 2; i++) {
		uint64_t off = idd_le64(hd->sub + DD_SUB_VMCOREINFO + 16 * i);
		uint64_t len = idd_le64(hd->sub + DD_SUB_VMCOREINFO + 16 * i + 8);

		uint64_t max = i == 0 ? VMCOREINFO_MAX : NOTES_MAX;
		char why[96];

		if (len > (uint64_t)size || off > (uint64_t)size - len)
			snprintf(why, sizeof(why), "past the end of the file "
				 "(%lld bytes)", (long long)size);
		else if (len > max)
			snprintf(why, sizeof(why), "more than any kernel writes "
				 "(at most %llu)", (unsigned long long)max);
		else
			continue;
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt diskdump sub-header: %s at %llu, "
				 "%llu bytes, %s",
				 path, i == 0 ? "VMCOREINFO" : "notes",
				 (unsigned long long)off, (unsigned long long)len,
				 why);
	}
	return NULL;
}

/* makedumpfile's -d from the sub-header, or -1. */
static int header_dump_level(const struct header *hd)
{
	int32_t level;

	if (hd->sub_len < DD_SUB_DUMP_LEVEL + 4)
		return -1;
	level = (int32_t)idd_le32(hd->sub + DD_SUB_DUMP_LEVEL);
	return level < 0 || level > 31 ? -1 : level;
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

static char *read_text(int fd, uint64_t off, uint64_t size)
{
	char *s;

	if (!size || size > NOTES_MAX)
		return NULL;
	s = malloc(size + 1);
	if (!s)
		return NULL;
	if (!idd_pread_all(fd, s, size, off)) {
		free(s);
		return NULL;
	}
	s[size] = '\0';
	return s;
}

/* rank[i]: the set bits of bitmap 2 before block i (RANK_BITS each). */
static bool build_rank(struct diskdump *d, uint64_t blocks)
{
	/* Up to 64 KiB of the bitmap per read. */
	static _Thread_local uint8_t chunk[128 * RANK_BITS / 8];

	d->rank[0] = 0;
	for (uint64_t done = 0; done < blocks;) {
		uint64_t n = blocks - done < 128 ? blocks - done : 128;

		if (!idd_pread_all(d->fd, chunk, n * (RANK_BITS / 8),
				   d->bitmap2_off + done * (RANK_BITS / 8)))
			return false;
		for (uint64_t b = 0; b < n; b++, done++) {
			uint64_t sum = 0;
			const uint8_t *p = chunk + b * (RANK_BITS / 8);

			for (size_t w = 0; w < RANK_BITS / 8; w += 8)
				sum += (uint64_t)__builtin_popcountll(idd_le64(p + w));
			d->rank[done + 1] = d->rank[done] + sum;
		}
	}
	return true;
}

/*
 * The bitmap's set bits count the descriptors, and the first page's data
 * follows the last descriptor (makedumpfile and QEMU write the shared
 * zero page, at most a page, first): a bitmap or descriptor table that
 * disagrees is damage, reported as such. The last page's descriptor says
 * where the file must end: a truncated file (*truncated) is
 * libkdumpfile's, which reads what it still holds.
 */
static struct inodedump_error *check_pages(struct diskdump *d,
					   const char *path,
					   uint64_t file_size,
					   bool *truncated)
{
	uint8_t desc[DD_DESC_SIZE];
	uint64_t blocks = (d->max_pfn + RANK_BITS - 1) / RANK_BITS, n, first;
	uint64_t data_start;

	*truncated = false;
	if (!build_rank(d, blocks)) {
		*truncated = true;
		return NULL;
	}
	n = d->rank[blocks];
	if (!n || n > d->max_pfn)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt diskdump: its page bitmap has "
				 "%llu pages set for %llu page frames",
				 path, (unsigned long long)n,
				 (unsigned long long)d->max_pfn);
	data_start = d->desc_off + n * DD_DESC_SIZE;
	d->data_start = data_start;
	if (!idd_pread_all(d->fd, desc, sizeof(desc), d->desc_off) ||
	    data_start > file_size) {
		*truncated = true;
		return NULL;
	}
	idd_diskdump_descs_to_le(desc, 1, d->big);
	first = idd_le64(desc);
	if (first < data_start || first - data_start > d->page_size)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt diskdump: the page bitmap counts "
				 "%llu pages, so their descriptors end at file "
				 "offset %llu, but the first descriptor's data "
				 "is at %llu: the bitmap or the descriptor table "
				 "is damaged",
				 path, (unsigned long long)n,
				 (unsigned long long)data_start,
				 (unsigned long long)first);
	if (!idd_pread_all(d->fd, desc, sizeof(desc),
			   d->desc_off + (n - 1) * DD_DESC_SIZE)) {
		*truncated = true;
		return NULL;
	}
	idd_diskdump_descs_to_le(desc, 1, d->big);
	/*
	 * The last page's descriptor: one of a page (size 1..page_size,
	 * its data after the table), else the bitmap counts more pages than
	 * the table holds (its last entries are page data): damage, never a
	 * truncation to read past (the reads would shift onto other pages).
	 */
	if (idd_le64(desc) < data_start || !idd_le32(desc + 8) ||
	    idd_le32(desc + 8) > d->page_size)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt diskdump: the page bitmap counts "
				 "%llu pages, but entry %llu of the descriptor "
				 "table is no page's (data at %llu, %u bytes): "
				 "the bitmap or the descriptor table is damaged",
				 path, (unsigned long long)n,
				 (unsigned long long)(n - 1),
				 (unsigned long long)idd_le64(desc),
				 idd_le32(desc + 8));
	/*
	 * A cut file's last data is where n pages of at most a block each
	 * reach; data past that is its descriptor's damage, which reading
	 * that page says: the file stays ours, not libkdumpfile's unsaid.
	 */
	if (idd_le64(desc) - data_start > n * d->page_size)
		return NULL;
	*truncated = idd_le64(desc) > file_size ||
		     idd_le32(desc + 8) > file_size - idd_le64(desc);
	return NULL;
}

/*
 * Whether our reader takes the file (*taken); d is filled when it does.
 * An error: damage our reader found, reported as ours.
 */
static struct inodedump_error *take(struct diskdump *d, const char *path,
				    const struct header *hd,
				    uint64_t file_size, bool *taken)
{
	const uint8_t *h = hd->h, *sub = hd->sub;
	int32_t version = (int32_t)idd_le32(h + DD_VERSION);
	int32_t block_size = hd->block_size;
	int32_t sub_hdr_size = (int32_t)idd_le32(h + DD_SUB_HDR_SIZE);
	uint32_t status = idd_le32(h + DD_STATUS);
	uint32_t bitmap_blocks = hd->bitmap_blocks;
	uint64_t bitmap_off, vi_off, vi_size;
	struct inodedump_error *err;
	bool truncated;

	d->big = hd->big;

	*taken = false;
	if (hd->h_len < DD_HEADER_SIZE || hd->sub_len < DD_SUB_SIZE)
		return NULL;
	/* Versions 6+ carry 64-bit pfns and VMCOREINFO in the sub-header. */
	if (version < 6 || version > 64 || (status & DD_INCOMPLETE) ||
	    block_size < 512 || (uint32_t)block_size > DD_MAX_PAGE ||
	    (block_size & (block_size - 1)) || sub_hdr_size < 1 ||
	    sub_hdr_size > 4096 || !bitmap_blocks || (bitmap_blocks & 1))
		return NULL;
	if (idd_le32(sub + DD_SUB_SPLIT) != 0) /* split over several files */
		return NULL;
	vi_off = idd_le64(sub + DD_SUB_VMCOREINFO);
	vi_size = idd_le64(sub + DD_SUB_VMCOREINFO + 8);
	d->max_pfn = idd_le64(sub + DD_SUB_MAX_PFN);
	d->page_size = (uint32_t)block_size;
	copy_field(d->release, sizeof(d->release),
		   h + DD_UTSNAME + 2 * DD_UTS_FIELD, DD_UTS_FIELD);
	copy_field(d->arch, sizeof(d->arch), h + DD_UTSNAME + 4 * DD_UTS_FIELD,
		   DD_UTS_FIELD);
	copy_field(d->sysname, sizeof(d->sysname), h + DD_UTSNAME, DD_UTS_FIELD);
	/* QEMU 11 names the machine "Unknown": as good as not naming it. */
	if (!strcmp(d->arch, "Unknown"))
		d->arch[0] = '\0';
	d->version = version;
	d->status = status;
	d->eraseinfo_size = idd_le64(sub + DD_SUB_ERASEINFO + 8);
	bitmap_off = (uint64_t)block_size * (1 + (uint64_t)sub_hdr_size);
	d->bitmap1_off = bitmap_off;
	d->bitmap2_off = bitmap_off + (uint64_t)bitmap_blocks / 2 * block_size;
	d->desc_off = bitmap_off + (uint64_t)bitmap_blocks * block_size;
	/* Both bitmaps must hold max_pfn bits and lie inside the file. */
	if (d->max_pfn > (uint64_t)bitmap_blocks / 2 * block_size * 8 ||
	    d->desc_off > file_size || vi_off > file_size ||
	    vi_size > file_size - vi_off)
		return NULL;
	d->rank = calloc(d->max_pfn / RANK_BITS + 2, sizeof(*d->rank));
	if (!d->rank)
		return idd_nomem();
	err = check_pages(d, path, file_size, &truncated);
	if (truncated) /* libkdumpfile reads what is left: said (issue 41) */
		idd_target_declined(d->base.target, "diskdump: its pages' data "
				    "reach past its %llu bytes: cut short",
				    (unsigned long long)file_size);
	if (err || truncated)
		return err;
	d->vmcoreinfo = read_text(d->fd, vi_off, vi_size);
	d->vmcoreinfo_size = (size_t)vi_size;
	d->in.cbuf = malloc(d->page_size);
	/* none at all: the kernel's own may be found in its memory (probe) */
	*taken = idd_page_cache_init(&d->cache, d->page_size) &&
		 (d->vmcoreinfo || !vi_size) && d->in.cbuf;
	return NULL;
}

/* ---- reads ---- */

/*
 * Set bits of bitmap 2 below pfn (whose bit is set), or -1. rank[] is
 * complete from take(); the block of bits last looked at is kept.
 */
static int64_t desc_index(struct diskdump *d, uint64_t pfn)
{
	uint64_t block = pfn / RANK_BITS, bit = pfn % RANK_BITS, count = 0;
	const uint8_t *bits = d->bits;

	if (!d->bits_valid || d->bits_block != block) {
		d->bits_valid = idd_pread_all(d->fd, d->bits, sizeof(d->bits),
					      d->bitmap2_off +
						      block * sizeof(d->bits));
		d->bits_block = block;
		if (!d->bits_valid)
			return -1;
	}
	if (!(bits[bit / 8] & (1u << (bit % 8))))
		return -1; /* not in the dump */
	for (uint64_t w = 0; w < bit / 64; w++)
		count += (uint64_t)__builtin_popcountll(idd_le64(bits + w * 8));
	count += (uint64_t)__builtin_popcountll(idd_le64(bits + bit / 64 * 8) &
						((1ULL << (bit % 64)) - 1));
	return (int64_t)(d->rank[block] + count);
}

/* Damage found reading page frame pfn: the target reports it, as ours. */
static bool IDD_ATTR_PRINTF(4, 5) damaged(struct diskdump *d, uint64_t pfn,
					  int64_t idx, const char *fmt, ...)
{
	struct idd_target *t = d->base.target;
	char *why;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	inodedump_error_free(d->base.damage);
	d->base.damage = idd_error(INODEDUMP_ERR_FAULT,
				   "corrupt diskdump %s: page frame 0x%llx, "
				   "descriptor %lld at file offset %llu: %s",
				   idd_target_path(t), (unsigned long long)pfn,
				   (long long)idx,
				   (unsigned long long)(d->desc_off +
							(uint64_t)idx *
								DD_DESC_SIZE),
				   why ? why : "out of memory");
	free(why);
	return false;
}

static const char *method(uint32_t flags)
{
	return flags & DD_ZLIB ? "zlib" : flags & DD_LZO ? "lzo" : "zstd";
}

/*
 * One zlib stream (header, data, adler32: what makedumpfile's compress2()
 * wrote) into page, with libdeflate: a whole-buffer decompressor, faster
 * than zlib's inflate() (bench/RESULTS.md), with the same checks (the adler32, no
 * output past the page). Bytes after the stream's end are ignored, as
 * inflate() ignored them.
 */
static bool inflate_page(struct inflater *in, uint8_t *page, uint32_t size,
			 uint32_t page_size, size_t *out)
{
	size_t used;

	if (!in->deflate && !(in->deflate = libdeflate_alloc_decompressor()))
		return false;
	*out = 0;
	return libdeflate_zlib_decompress_ex(in->deflate, in->cbuf, size, page,
					     page_size, &used, out) ==
	       LIBDEFLATE_SUCCESS;
}

/* What decode_page found. */
enum page_result {
	PAGE_OK,
	PAGE_SNAPPY,	 /* not ours: libkdumpfile's */
	PAGE_SIZE_BAD,	 /* more data than a page */
	PAGE_RAW_SHORT,	 /* uncompressed, but not a page of it */
	PAGE_PAST_END,	 /* the data is past the end of the file */
	PAGE_UNDECODED,	 /* does not decompress to a page */
	PAGE_NOMEM,
};

/* The page a descriptor (DD_DESC_SIZE bytes) stands for, into page. */
static enum page_result decode_page(int fd, uint32_t page_size,
				    struct inflater *in, const uint8_t *desc,
				    uint8_t *page)
{
	uint64_t off = idd_le64(desc);
	uint32_t size = idd_le32(desc + 8), flags = idd_le32(desc + 12);
	const uint32_t compressed = flags & (DD_ZLIB | DD_LZO | DD_ZSTD);
	size_t out = page_size;
	bool ok;

	if (!size || size > page_size)
		return PAGE_SIZE_BAD;
	if ((flags & DD_SNAPPY) && !compressed)
		return PAGE_SNAPPY;
	if (!compressed && size != page_size)
		return PAGE_RAW_SHORT;
	if (!idd_pread_all(fd, compressed ? in->cbuf : page, size, off))
		return PAGE_PAST_END;
	if (!compressed)
		return PAGE_OK;
	if (flags & DD_ZLIB) {
		ok = inflate_page(in, page, size, page_size, &out);
	} else if (flags & DD_LZO) {
		lzo_uint got = page_size;

		ok = lzo1x_decompress_safe(in->cbuf, size, page, &got,
					   NULL) == LZO_E_OK;
		out = got;
	} else {
		if (!in->zstd && !(in->zstd = ZSTD_createDCtx()))
			return PAGE_NOMEM;
		out = ZSTD_decompressDCtx(in->zstd, page, page_size, in->cbuf,
					  size);
		ok = !ZSTD_isError(out);
	}
	return ok && out == page_size ? PAGE_OK : PAGE_UNDECODED;
}

static bool read_page(struct diskdump *d, uint64_t pfn, uint8_t *page)
{
	uint8_t desc[DD_DESC_SIZE];
	int64_t idx;
	uint32_t size, flags;

	if (pfn >= d->max_pfn)
		return false;
	idx = desc_index(d, pfn);
	if (idx < 0) {
		/* Left out by the writer, unless the bitmap cannot be read. */
		d->base.absent = d->bits_valid;
		return false;
	}
	if (!idd_pread_all(d->fd, desc, sizeof(desc),
			   d->desc_off + (uint64_t)idx * sizeof(desc)))
		return damaged(d, pfn, idx, "past the end of the file");
	idd_diskdump_descs_to_le(desc, 1, d->big);
	size = idd_le32(desc + 8);
	flags = idd_le32(desc + 12);
	if (idd_le64(desc) < d->data_start)
		return damaged(d, pfn, idx,
			       "its data at offset %llu is inside the header, "
			       "the bitmaps or the descriptor table (the pages' "
			       "data start at %llu)",
			       (unsigned long long)idd_le64(desc),
			       (unsigned long long)d->data_start);
	switch (decode_page(d->fd, d->page_size, &d->in, desc, page)) {
	case PAGE_OK:
		return true;
	case PAGE_SNAPPY: /* libkdumpfile's, in a dump that says it has it */
		if (d->status & DD_SNAPPY)
			return false;
		return damaged(d, pfn, idx, "snappy data, which the header's "
			       "status 0x%x does not name", d->status);
	case PAGE_SIZE_BAD:
		return damaged(d, pfn, idx,
			       "%u bytes of page data, for pages of %u bytes",
			       size, d->page_size);
	case PAGE_RAW_SHORT:
		return damaged(d, pfn, idx,
			       "%u bytes of uncompressed data, for pages of "
			       "%u bytes", size, d->page_size);
	case PAGE_PAST_END:
		return damaged(d, pfn, idx,
			       "%u bytes of data at offset %llu, past the end "
			       "of the file", size,
			       (unsigned long long)idd_le64(desc));
	case PAGE_NOMEM:
		return damaged(d, pfn, idx, "out of memory");
	case PAGE_UNDECODED:
		break;
	}
	return damaged(d, pfn, idx,
		       "its %u bytes of %s data at offset %llu do not "
		       "decompress to a page of %u bytes",
		       size, method(flags), (unsigned long long)idd_le64(desc),
		       d->page_size);
}

static bool fill_page(void *d, uint64_t pfn, uint8_t *page)
{
	return read_page(d, pfn, page);
}

/*
 * A large read (the kernel's BTF, 5 MB, is the one a run without vmlinux
 * makes) decompresses its pages on several threads, each with its own
 * inflater, straight into the caller's buffer: on the stock 6.12 dump the
 * ~1,200 zlib pages of BTF are most of a first run's instructions. Only
 * the simple case goes this way, every page of the range in the dump with
 * its descriptors in a row; a page that does not decode sends the whole
 * range back to the one-thread path, which reports it as always.
 * INODEDUMP_READ_THREADS bounds the threads (1: none).
 */
#define PARALLEL_MIN_PAGES 64
#define PARALLEL_MAX_THREADS 8

struct parallel {
	struct diskdump *d;
	const uint8_t *descs; /* one a page */
	uint8_t *out;	      /* page i at out + i * page_size */
	size_t npages;
	atomic_size_t next;
	atomic_bool failed;
};

static void decode_pages(struct parallel *p, struct inflater *in)
{
	const uint32_t ps = p->d->page_size;
	size_t i = 0, end = 0;

	/* 16 pages at a time: each thread writes a run of the buffer. */
	for (;; i++) {
		if (i == end) {
			i = atomic_fetch_add(&p->next, 16);
			end = i + 16 < p->npages ? i + 16 : p->npages;
		}
		if (i >= p->npages || atomic_load(&p->failed))
			return;
		/* data inside the table: read_page() says what is wrong */
		if (idd_le64(p->descs + i * DD_DESC_SIZE) < p->d->data_start ||
		    decode_page(p->d->fd, ps, in, p->descs + i * DD_DESC_SIZE,
				p->out + i * ps) != PAGE_OK)
			atomic_store(&p->failed, true);
	}
}

struct worker {
	pthread_t thread;
	struct parallel *p;
	struct inflater in;
	bool started;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* Its own allocations, not next to the caller's hot ones. */
	w->in.cbuf = malloc(w->p->d->page_size);
	if (w->in.cbuf)
		decode_pages(w->p, &w->in);
	return NULL;
}

static unsigned read_threads(size_t npages)
{
	const char *env = getenv("INODEDUMP_READ_THREADS");
	long n = env && *env ? strtol(env, NULL, 10)
			     : sysconf(_SC_NPROCESSORS_ONLN);

	if (n > PARALLEL_MAX_THREADS)
		n = PARALLEL_MAX_THREADS;
	if ((size_t)n > npages / 16)
		n = (long)(npages / 16);
	return n > 1 ? (unsigned)n : 1;
}

/* Whole pages from pfn on into out, in parallel; false: not done so. */
static bool read_pages_parallel(struct diskdump *d, uint64_t pfn,
				uint8_t *out, size_t npages)
{
	struct worker workers[PARALLEL_MAX_THREADS] = { 0 };
	struct parallel p = { .d = d, .out = out, .npages = npages };
	_cleanup_free_ uint8_t *descs = NULL;
	unsigned threads = read_threads(npages);
	int64_t first;

	if (threads < 2 || pfn + npages > d->max_pfn ||
	    (first = desc_index(d, pfn)) < 0)
		return false;
	for (size_t i = 1; i < npages; i++)
		if (desc_index(d, pfn + i) != first + (int64_t)i)
			return false;
	descs = malloc(npages * DD_DESC_SIZE);
	if (!descs || !idd_pread_all(d->fd, descs, npages * DD_DESC_SIZE,
				     d->desc_off + (uint64_t)first *
							   DD_DESC_SIZE))
		return false;
	idd_diskdump_descs_to_le(descs, npages, d->big);
	p.descs = descs;
	atomic_init(&p.next, 0);
	atomic_init(&p.failed, false);
	for (unsigned t = 1; t < threads; t++) {
		struct worker *w = &workers[t];

		w->p = &p;
		w->started = !pthread_create(&w->thread, NULL, worker_main, w);
	}
	decode_pages(&p, &d->in);
	for (unsigned t = 1; t < threads; t++) {
		if (workers[t].started)
			pthread_join(workers[t].thread, NULL);
		inflater_free(&workers[t].in);
	}
	return !atomic_load(&p.failed);
}

static bool diskdump_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
			       size_t len)
{
	struct diskdump *d = to_diskdump(b);
	uint8_t *out = buf;

	b->absent = false;
	while (len) {
		uint64_t in_page = pa % d->page_size;
		size_t n = d->page_size - in_page;
		const uint8_t *page;

		if (!in_page && len / d->page_size >= PARALLEL_MIN_PAGES &&
		    read_pages_parallel(d, pa / d->page_size, out,
					len / d->page_size)) {
			n = len / d->page_size * d->page_size;
			out += n;
			pa += n;
			len -= n;
			continue;
		}
		page = idd_page_cache_get(&d->cache, pa / d->page_size,
					  fill_page, d);
		if (!page)
			return false;
		if (n > len)
			n = len;
		memcpy(out, page + in_page, n);
		out += n;
		pa += n;
		len -= n;
	}
	return true;
}

/* A read of the VMCOREINFO scan: a page it cannot read is said later. */
static bool scan_read(void *arg, uint64_t pa, void *buf, size_t len)
{
	struct diskdump *d = arg;
	bool ok = diskdump_read_phys(&d->base, pa, buf, len);

	inodedump_error_free(d->base.damage);
	d->base.damage = NULL;
	d->base.absent = false;
	return ok;
}

/* ---- the facts ---- */

static const char *diskdump_format(struct idd_backend *b)
{
	(void)b;
	return "diskdump";
}

static const char *diskdump_arch(struct idd_backend *b)
{
	struct diskdump *d = to_diskdump(b);

	return d->arch[0] ? d->arch : NULL;
}

/*
 * The kernel's page: VMCOREINFO's PAGESIZE where it divides the block
 * size, else the block size (makedumpfile writes the two alike).
 */
static uint32_t kernel_page(struct diskdump *d)
{
	const char *v;
	char *end;
	unsigned long long size;

	if (d->kpage)
		return d->kpage;
	d->kpage = d->page_size;
	v = idd_target_vmcoreinfo(d->base.target, "PAGESIZE");
	if (v && *v) {
		size = strtoull(v, &end, 10);
		if (!*end && size >= 512 && !(size & (size - 1)) &&
		    size < d->page_size)
			d->kpage = (uint32_t)size;
	}
	return d->kpage;
}

static uint64_t diskdump_page_size(struct idd_backend *b)
{
	return kernel_page(to_diskdump(b));
}

static const char *diskdump_page_size_whence(struct idd_backend *b)
{
	struct diskdump *d = to_diskdump(b);

	if (kernel_page(d) == d->page_size)
		return NULL;
	snprintf(d->page_whence, sizeof(d->page_whence),
		 "VMCOREINFO PAGESIZE; the header's blocks are %u bytes",
		 d->page_size);
	return d->page_whence;
}

/* The header's, else VMCOREINFO's (as libkdumpfile does). */
static const char *diskdump_uts_release(struct idd_backend *b)
{
	struct diskdump *d = to_diskdump(b);
	const char *release = d->release[0] ? d->release
			      : idd_target_vmcoreinfo(b->target, "OSRELEASE");

	return release && *release ? release : NULL;
}

static int diskdump_dump_level(struct idd_backend *b)
{
	return to_diskdump(b)->dump_level;
}

static const char *diskdump_compression(struct idd_backend *b)
{
	uint32_t status = to_diskdump(b)->status;

	if (status & DD_ZLIB)
		return "zlib";
	if (status & DD_LZO)
		return "lzo";
	if (status & DD_SNAPPY)
		return "snappy";
	if (status & DD_ZSTD)
		return "zstd";
	return "none";
}

/* What the header shows of its writer (diskdump_check.c). */
static const char *diskdump_writer(struct idd_backend *b)
{
	struct diskdump *d = to_diskdump(b);

	return idd_diskdump_writer(d->writer, sizeof(d->writer), d->sysname,
				   d->release, d->version,
				   d->eraseinfo_size != 0, d->vmcoreinfo_pa);
}

/* Bit pfn of the bitmap at off, through the one block kept in bits. */
static int bitmap_bit(struct diskdump *d, uint64_t off, uint8_t *bits,
		      uint64_t *block_of, bool *valid, uint64_t pfn)
{
	uint64_t block = pfn / RANK_BITS, bit = pfn % RANK_BITS;

	if (!*valid || *block_of != block) {
		*valid = idd_pread_all(d->fd, bits, RANK_BITS / 8,
				       off + block * (RANK_BITS / 8));
		*block_of = block;
		if (!*valid)
			return -1;
	}
	return bits[bit / 8] >> (bit % 8) & 1;
}

static int diskdump_pfn_state(struct idd_backend *b, uint64_t pfn)
{
	struct diskdump *d = to_diskdump(b);
	int ram, dumped;

	pfn /= d->page_size / kernel_page(d); /* the block holding it */
	if (pfn >= d->max_pfn)
		return IDD_PFN_NO_RAM;
	ram = bitmap_bit(d, d->bitmap1_off, d->bits1, &d->bits1_block,
			 &d->bits1_valid, pfn);
	dumped = bitmap_bit(d, d->bitmap2_off, d->bits, &d->bits_block,
			    &d->bits_valid, pfn);
	if (ram < 0 || dumped < 0)
		return IDD_PFN_UNKNOWN;
	return dumped ? IDD_PFN_DUMPED : ram ? IDD_PFN_EXCLUDED : IDD_PFN_NO_RAM;
}

static uint64_t diskdump_max_pfn(struct idd_backend *b)
{
	struct diskdump *d = to_diskdump(b);

	return d->max_pfn * (d->page_size / kernel_page(d));
}

static bool diskdump_little_endian(struct idd_backend *b)
{
	return !to_diskdump(b)->big;
}

static const char *diskdump_vmcoreinfo(struct idd_backend *b)
{
	return to_diskdump(b)->vmcoreinfo;
}

static size_t diskdump_vmcoreinfo_size(struct idd_backend *b)
{
	return to_diskdump(b)->vmcoreinfo_size;
}

static void diskdump_close(struct idd_backend *b)
{
	struct diskdump *d = to_diskdump(b);

	if (!d)
		return;
	inodedump_error_free(d->base.damage);
	free(d->vmcoreinfo);
	free(d->rank);
	inflater_free(&d->in);
	idd_page_cache_free(&d->cache);
	free(d);
}

static const struct idd_backend_ops diskdump_ops = {
	.reader = "inodedump",
	.translation = "libkdumpfile (libaddrxlat)",
	.read_phys = diskdump_read_phys,
	.format = diskdump_format,
	.arch = diskdump_arch,
	.page_size = diskdump_page_size,
	.page_size_whence = diskdump_page_size_whence,
	.uts_release = diskdump_uts_release,
	.dump_level = diskdump_dump_level,
	.compression = diskdump_compression,
	.writer = diskdump_writer,
	.pfn_state = diskdump_pfn_state,
	.max_pfn = diskdump_max_pfn,
	.little_endian = diskdump_little_endian,
	.vmcoreinfo = diskdump_vmcoreinfo,
	.vmcoreinfo_size = diskdump_vmcoreinfo_size,
	.close = diskdump_close,
};

struct inodedump_error *idd_diskdump_probe(struct idd_target *t,
					   const char *path, int fd,
					   off_t size, bool ours,
					   int *dump_level,
					   struct idd_backend **out)
{
	struct header hd = { 0 };
	struct inodedump_error *err;
	struct diskdump *d;
	bool taken;

	*out = NULL;
	hd.h_len = idd_pread_upto(fd, hd.h, sizeof(hd.h), 0);
	if (hd.h_len < 8 || memcmp(hd.h, DD_SIGNATURE, 8) != 0)
		return NULL;
	hd.big = idd_diskdump_big_endian(hd.h, hd.h_len);
	if (hd.big)
		idd_diskdump_header_to_le(hd.h, hd.h_len, NULL, 0);
	hd.block_size = (int32_t)idd_le32(hd.h + DD_BLOCK_SIZE);
	hd.bitmap_blocks = idd_le32(hd.h + DD_BITMAP_BLOCKS);
	if (hd.h_len >= DD_BITMAP_BLOCKS + 4 && hd.block_size > 0)
		hd.sub_len = idd_pread_upto(fd, hd.sub, sizeof(hd.sub),
					    (uint64_t)hd.block_size);
	if (hd.big)
		idd_diskdump_header_to_le(NULL, 0, hd.sub, hd.sub_len);
	err = check_header(path, &hd, size);
	if (err)
		return err;
	*dump_level = header_dump_level(&hd);
	if (hd.sub_len >= DD_SUB_SIZE)
		idd_diskdump_header_problems(t, hd.h, hd.sub, fd, size,
					     hd.big);
	if (!ours)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->base.ops = &diskdump_ops;
	d->base.target = t;
	d->fd = fd;
	d->dump_level = *dump_level;
	err = take(d, path, &hd, (uint64_t)size, &taken);
	/* None in the sub-header (QEMU's of a machine without fw_cfg). */
	if (!err && taken && !d->vmcoreinfo) {
		struct idd_vmcoreinfo_found f = { 0 };

		taken = idd_vmcoreinfo_from_memory(
			&d->base, "diskdump: no VMCOREINFO in its sub-header",
			idd_arch_find(d->arch), d->max_pfn * d->page_size,
			scan_read, d, &f);
		d->vmcoreinfo = f.text;
		d->vmcoreinfo_size = f.size;
		d->vmcoreinfo_pa = f.pa;
	}
	if (err || !taken) {
		diskdump_close(&d->base);
		return err;
	}
	*out = &d->base;
	return NULL;
}
