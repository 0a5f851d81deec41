// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ELF dumps: the header read and checked once, and our reader of 64-bit
 * ELF cores by physical address, of the machines whose page walk is ours
 * (arch.h), in their kernels' byte order (s390x's big-endian); and of
 * QEMU's pseries ELF, big-endian headers of a little-endian kernel, and
 * like QEMU's s390x ELF no VMCOREINFO note (the kernel's is found in
 * memory). Like diskdump.c it
 * exists for speed and takes only what it fully understands (not /proc/
 * kcore, Xen, zero-filled tails, several segments at physical 0: a writer
 * that left p_paddr unset); the rest is libkdumpfile's, which also gets
 * every read this reader cannot do. Program headers that disagree (the
 * same memory with other bytes) are said, not trusted silently (issue
 * 29). Offsets are the ELF specification's.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "target/arch.h"
#include "target/backend.h"
#include "target/vmcoreinfo_scan.h"

#define NOTES_MAX (16u << 20)  /* more notes than this: not ours */
#define PHDRS_MAX (1u << 22)
/*
 * Overlapping segments whose bytes are compared at open (a real dump has
 * a handful: /proc/vmcore's kernel text over its RAM segment), and the
 * pages of each compared: the first, the last, two between.
 */
#define CLASH_CHECKS 64
#define CLASH_SAMPLES 4
#define NOTES_CHECKED 16

/* The fields of an ELF header the checks and the reader need. */
struct header {
	uint8_t h[64];
	bool is64;
	uint64_t type, machine, phoff, phentsize, phnum, shoff, shentsize,
		shnum;
};

struct seg {
	uint64_t start, end, off; /* physical [start, end) at file offset */
	uint64_t idx;		  /* its program header */
};

/*
 * Program headers that disagree, said at open as a problem of the target
 * (idd_target_problem_add()): the first pair found and how many.
 */
struct clash {
	uint64_t a, b;	      /* the program headers */
	uint64_t start, end; /* physical (memory) or file offsets (data) */
	uint64_t at;	      /* memory: the first different byte seen */
	size_t n;
};

struct elf {
	struct idd_backend base;
	const struct idd_arch_ops *arch; /* its ELF machine's */
	int fd;
	char *vmcoreinfo;
	size_t vmcoreinfo_size; /* the note's descsz */
	bool le;		/* the headers' byte order */
	uint64_t vmcoreinfo_pa; /* not a note: the kernel's, found here */
	bool vmcoreinfo_twice;	/* ...and another, different one too */
	char writer[192];	/* what the file shows of its writer */
	struct seg *segs;
	size_t nsegs;
	struct idd_page_cache cache; /* one pread(2) a page, not a read */
	bool cache_ok;
	/*
	 * memory: two segments hold the same physical range with different
	 * bytes; data: two take the same file bytes for different physical
	 * addresses; header: a segment's bytes are the ELF header, program
	 * headers or notes (a, start and end only).
	 */
	struct clash memory, data, header;
};

static struct elf *to_elf(struct idd_backend *b)
{
	return (struct elf *)b;
}

/* A field of len bytes at off in p, little-endian (le) or big. */
static uint64_t field_of(const uint8_t *p, size_t off, size_t len, bool le)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v |= (uint64_t)p[off + (le ? i : len - 1 - i)] << (8 * i);
	return v;
}

/* An ELF header field of len bytes at off, in the file's byte order. */
static uint64_t field(const uint8_t *h, size_t off, size_t len)
{
	return field_of(h, off, len, h[EI_DATA] == ELFDATA2LSB);
}

static void parse_header(struct header *hd)
{
	const uint8_t *h = hd->h;
	bool is64 = hd->is64;

	hd->type = field(h, 16, 2);
	hd->machine = field(h, 18, 2);
	hd->phoff = is64 ? field(h, 32, 8) : field(h, 28, 4);
	hd->shoff = is64 ? field(h, 40, 8) : field(h, 32, 4);
	hd->phentsize = field(h, is64 ? 54 : 42, 2);
	hd->phnum = field(h, is64 ? 56 : 44, 2);
	hd->shentsize = field(h, is64 ? 58 : 46, 2);
	hd->shnum = field(h, is64 ? 60 : 48, 2);
}

/* The program header count: e_phnum, or section 0's sh_info (PN_XNUM). */
static bool count_phdrs(int fd, const struct header *hd, uint64_t *phnum)
{
	uint8_t sh[64];

	*phnum = hd->phnum;
	if (hd->phnum != PN_XNUM)
		return true;
	if (!hd->shoff || !hd->shnum ||
	    !idd_pread_all(fd, sh, hd->is64 ? 64 : 40, hd->shoff))
		return false;
	*phnum = field_of(sh, hd->is64 ? 44 : 28, 4, /* sh_info */
			  hd->h[EI_DATA] == ELFDATA2LSB);
	return true;
}

/*
 * No note segment larger than a kernel writes (VMCOREINFO is a page, the
 * rest a few notes per CPU): libkdumpfile reads each whole.
 */
static struct inodedump_error *check_notes(const char *path, int fd,
					   const struct header *hd,
					   uint64_t phnum)
{
	uint8_t ph[56 * 64];
	size_t size = hd->phentsize;
	bool le = hd->h[EI_DATA] == ELFDATA2LSB;

	for (uint64_t i = 0; i < phnum; i += 64) {
		uint64_t n = phnum - i < 64 ? phnum - i : 64;

		if (!idd_pread_all(fd, ph, n * size, hd->phoff + i * size))
			return NULL; /* checked against the file already */
		for (uint64_t j = 0; j < n; j++) {
			const uint8_t *p = ph + j * size;
			uint64_t filesz = hd->is64 ? field_of(p, 32, 8, le)
						   : field_of(p, 16, 4, le);

			if (field_of(p, 0, 4, le) == PT_NOTE &&
			    filesz > NOTES_MAX)
				return idd_error(
					INODEDUMP_ERR_DUMP,
					"%s: corrupt ELF dump: program header "
					"%llu is a note segment of %llu bytes, "
					"more than any kernel writes (at most "
					"%u)",
					path, (unsigned long long)(i + j),
					(unsigned long long)filesz, NOTES_MAX);
		}
	}
	return NULL;
}

/*
 * libkdumpfile 0.5.1 follows an ELF header's program- and section-header
 * tables without checking them against the file (fuzzed ones crash it,
 * a huge count makes it ask for petabytes), and reads every note segment
 * whole: refuse ELF headers whose tables do not fit in the file, and
 * notes larger than a kernel writes.
 */
static struct inodedump_error *check_header(const char *path, int fd,
					    const struct header *hd,
					    off_t size)
{
	uint64_t phnum;

	if (!hd->phnum)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: ELF file without program headers: not "
				 "a dump", path);
	if (hd->phentsize != (hd->is64 ? 56u : 32u) ||
	    hd->phoff > (uint64_t)size ||
	    (hd->shnum && (hd->shentsize != (hd->is64 ? 64u : 40u) ||
			   hd->shoff > (uint64_t)size ||
			   hd->shnum * hd->shentsize >
				   (uint64_t)size - hd->shoff)) ||
	    !count_phdrs(fd, hd, &phnum) || !phnum ||
	    phnum > ((uint64_t)size - hd->phoff) / hd->phentsize)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt or truncated ELF dump: %llu "
				 "program headers of %llu bytes at %llu and "
				 "%llu section headers at %llu, in a file of "
				 "%lld bytes",
				 path, (unsigned long long)hd->phnum,
				 (unsigned long long)hd->phentsize,
				 (unsigned long long)hd->phoff,
				 (unsigned long long)hd->shnum,
				 (unsigned long long)hd->shoff, (long long)size);
	return check_notes(path, fd, hd, phnum);
}

/* By address; at the same one the first program header first. */
static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Sort, unless already in order: QEMU writes its 65 k segments of a
 * paging dump in order of both address and file offset, and a sort of
 * sorted input still costs n log n comparisons (85 M instructions there).
 */
static void sort_segs(struct seg *segs, size_t n,
		      int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp(&segs[i - 1], &segs[i]) > 0) {
			qsort(segs, n, sizeof(*segs), cmp);
			return;
		}
}

/* The VMCOREINFO note among the ELF notes at [off, off + size). */
char *idd_elf_find_vmcoreinfo(int fd, uint64_t off, uint64_t size, bool le,
			      bool *xen, size_t *found_size)
{
	uint8_t *notes;
	char *found = NULL;

	if (!size || size > NOTES_MAX || !(notes = malloc(size)))
		return NULL;
	if (!idd_pread_all(fd, notes, size, off)) {
		free(notes);
		return NULL;
	}
	for (uint64_t p = 0; p + 12 <= size;) {
		uint64_t namesz = field_of(notes, p, 4, le);
		uint64_t descsz = field_of(notes, p + 4, 4, le);
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
				*found_size = (size_t)descsz;
			}
		}
		p = desc + ((descsz + 3) & ~3ULL);
	}
	free(notes);
	return found;
}

static void clash(struct clash *c, uint64_t a, uint64_t b, uint64_t start,
		  uint64_t end, uint64_t at)
{
	if (!c->n++)
		*c = (struct clash){ a, b, start, end, at, 1 };
}

/*
 * Whether len bytes at file offsets x and y are the same, by a sample:
 * CLASH_SAMPLES pages spread over them; *at is the first byte seen to
 * differ. A page that cannot be read counts as the same (the read of it
 * will say so).
 */
static bool same_bytes(int fd, uint64_t x, uint64_t y, uint64_t len,
		       uint64_t *at)
{
	uint8_t a[4096], b[4096];

	for (uint64_t j = 0; j < CLASH_SAMPLES; j++) {
		uint64_t pos = len > sizeof(a) ? (len - sizeof(a)) * j /
						     (CLASH_SAMPLES - 1)
					       : 0;
		size_t n = len - pos < sizeof(a) ? (size_t)(len - pos)
						 : sizeof(a);

		if (!idd_pread_all(fd, a, n, x + pos) ||
		    !idd_pread_all(fd, b, n, y + pos))
			continue;
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i]) {
				*at = pos + i;
				return false;
			}
		if (len <= sizeof(a))
			break;
	}
	return true;
}

/*
 * Overlaps (the kernel image is also in a RAM segment; QEMU writes a
 * segment per virtual mapping): keep the first segment's bytes. Where
 * the two take their bytes from different places in the file, those
 * bytes must be the same (an alias); different ones mean a program
 * header is wrong, and which cannot be known: said (e->memory).
 */
static size_t merge_overlaps(struct elf *e, struct seg *segs, size_t n)
{
	size_t k = 0, checks = 0;

	for (size_t i = 0; i < n; i++) {
		struct seg s = segs[i];

		if (k && s.start < segs[k - 1].end) {
			const struct seg *p = &segs[k - 1];
			uint64_t skip = p->end - s.start;
			uint64_t end = s.end < p->end ? s.end : p->end, at;

			if (s.off - s.start != p->off - p->start &&
			    checks++ < CLASH_CHECKS &&
			    !same_bytes(e->fd, p->off + (s.start - p->start),
					s.off, end - s.start, &at))
				clash(&e->memory, p->idx, s.idx, s.start, end,
				      s.start + at);

			if (s.end <= segs[k - 1].end)
				continue;
			s.start += skip;
			s.off += skip;
		}
		segs[k++] = s;
	}
	return k;
}

static int off_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Two segments that take the same file bytes (QEMU writes one copy of a
 * page mapped twice) must give them the same physical address; when they
 * do not, one of them is wrong: said (e->data). Sorts by_off by offset.
 */
static void check_data(struct elf *e, struct seg *by_off, size_t n)
{
	const struct seg *q = NULL; /* the one reaching furthest so far */

	sort_segs(by_off, n, off_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct seg *s = &by_off[i];
		uint64_t s_end = s->off + (s->end - s->start);
		uint64_t q_end = q ? q->off + (q->end - q->start) : 0;

		if (q && s->off < q_end &&
		    s->off - s->start != q->off - q->start)
			clash(&e->data, q->idx, s->idx, s->off,
			      s_end < q_end ? s_end : q_end, 0);
		if (!q || s_end > q_end)
			q = s;
	}
}

/* The file's ELF header, program headers and first notes. */
struct reserved {
	uint64_t lo[2 + NOTES_CHECKED], hi[2 + NOTES_CHECKED];
	size_t n;
	uint64_t end; /* the highest hi[]: a segment past it meets none */
};

static void find_reserved(struct reserved *r, const Elf64_Phdr *ph,
			  uint64_t phnum, uint64_t phoff)
{
	r->lo[0] = 0;
	r->hi[0] = sizeof(Elf64_Ehdr);
	r->lo[1] = phoff;
	r->hi[1] = phoff + phnum * sizeof(*ph);
	r->n = 2;
	for (uint64_t j = 0; j < phnum && r->n < 2 + NOTES_CHECKED; j++)
		if (le32toh(ph[j].p_type) == PT_NOTE) {
			r->lo[r->n] = le64toh(ph[j].p_offset);
			r->hi[r->n] = r->lo[r->n] + le64toh(ph[j].p_filesz);
			r->n++;
		}
	r->end = 0;
	for (size_t j = 0; j < r->n; j++)
		if (r->hi[j] > r->end)
			r->end = r->hi[j];
}

/*
 * A segment's bytes [off, end), program header i's, that are the file's
 * headers or notes, not memory: said (e->header).
 */
static void check_reserved(struct elf *e, const struct reserved *r,
			   uint64_t i, uint64_t off, uint64_t end)
{
	if (off >= r->end)
		return;
	for (size_t j = 0; j < r->n; j++)
		if (off < r->hi[j] && r->lo[j] < end) {
			clash(&e->header, i, 0, off, end, 0);
			return;
		}
}

/*
 * The kernel's VMCOREINFO note in memory, for a dump without one (QEMU's
 * pseries and s390x ELF: no fw_cfg, so no vmcoreinfo device), looked for
 * in every segment (idd_vmcoreinfo_scan()).
 */
struct seg_file {
	int fd;
	const struct seg *seg;
};

static bool seg_read(void *arg, uint64_t pa, void *buf, size_t len)
{
	const struct seg_file *sf = arg;

	return idd_pread_all(sf->fd, buf, len,
			     sf->seg->off + (pa - sf->seg->start));
}

static void scan_vmcoreinfo(struct elf *e, const struct seg *segs, size_t n)
{
	struct idd_vmcoreinfo_found f = { 0 };

	for (size_t i = 0; i < n && !f.twice; i++) {
		struct seg_file sf = { e->fd, &segs[i] };

		idd_vmcoreinfo_scan(&f, segs[i].start, segs[i].end, seg_read,
				    &sf, e->arch->big_endian);
	}
	idd_vmcoreinfo_scan_end(&f);
	e->vmcoreinfo = f.text;
	e->vmcoreinfo_size = f.size;
	e->vmcoreinfo_pa = f.pa;
	e->vmcoreinfo_twice = f.twice;
}

/* Why our reader does not take the file, for the target to say: false. */
static bool IDD_ATTR_PRINTF(2, 3) declined(struct elf *e, const char *fmt,
					   ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	idd_target_declined(e->base.target, "ELF dump: %s", why);
	return false;
}

/*
 * Program header i, which our reader does not take: a zero-filled tail
 * (makedumpfile's ELF: memory beyond p_filesz it filtered out) is a
 * format, not damage, unless its memory overlaps another segment's;
 * less memory than file, bytes past the file, a range that wraps are.
 */
static bool zero_tail_damaged(const Elf64_Phdr *ph, uint64_t phnum,
			      uint64_t i, uint64_t file_size)
{
	uint64_t off = le64toh(ph[i].p_offset), pa = le64toh(ph[i].p_paddr),
		 filesz = le64toh(ph[i].p_filesz),
		 memsz = le64toh(ph[i].p_memsz);

	if (memsz < filesz || off > file_size || filesz > file_size - off ||
	    pa + memsz < pa)
		return true;
	for (uint64_t j = 0; j < phnum; j++) {
		uint64_t pj = le64toh(ph[j].p_paddr),
			 mj = le64toh(ph[j].p_memsz);

		if (j != i && le32toh(ph[j].p_type) == PT_LOAD && mj &&
		    pj < pa + memsz && pa < pj + mj)
			return true;
	}
	return false;
}

/* The PT_LOAD segments and VMCOREINFO; false when not ours. */
static bool read_phdrs(struct elf *e, const Elf64_Phdr *ph, uint64_t phnum,
		       uint64_t phoff, uint64_t file_size)
{
	size_t n = 0, at_zero = 0;
	bool xen = false;
	struct reserved r;

	find_reserved(&r, ph, phnum, phoff);

	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t type = le32toh(ph[i].p_type);
		uint64_t off = le64toh(ph[i].p_offset);
		uint64_t filesz = le64toh(ph[i].p_filesz);
		uint64_t memsz = le64toh(ph[i].p_memsz);
		uint64_t pa = le64toh(ph[i].p_paddr);

		if (type == PT_NOTE && !e->vmcoreinfo)
			e->vmcoreinfo = idd_elf_find_vmcoreinfo(
				e->fd, off, filesz, e->le, &xen,
				&e->vmcoreinfo_size);
		if (type != PT_LOAD || !filesz)
			continue;
		/* Zero-filled tails and segments past the end: not ours. */
		if (filesz != memsz || off > file_size ||
		    filesz > file_size - off || pa + filesz < pa)
			return zero_tail_damaged(ph, phnum, i, file_size) &&
			       declined(e, "program header %llu: %llu bytes "
					"in the file, %llu in memory, at "
					"offset %llu, physical 0x%llx",
					(unsigned long long)i,
					(unsigned long long)filesz,
					(unsigned long long)memsz,
					(unsigned long long)off,
					(unsigned long long)pa);
		at_zero += pa == 0;
		check_reserved(e, &r, i, off, off + filesz);
		e->segs[n] = (struct seg){ pa, pa + filesz, off, i };
		n++;
	}
	/* QEMU's pseries ELF: the kernel's own note, from its memory. */
	if (n && !e->vmcoreinfo && !xen && at_zero <= 1 &&
	    e->arch->vmcoreinfo_in_memory)
		scan_vmcoreinfo(e, e->segs, n);
	/*
	 * A Xen dump's frames are not the physical addresses we walk; several
	 * segments at physical 0 mean a writer that left p_paddr unset.
	 */
	if (xen) /* a format libkdumpfile reads, not damage */
		return false;
	if (!n || !e->vmcoreinfo || at_zero > 1)
		return declined(e, "%s", !n ? "no PT_LOAD segment"
				: !e->vmcoreinfo ? "no VMCOREINFO note"
				: "several segments at physical 0 (p_paddr "
				  "left unset)");
	check_data(e, e->segs, n);
	sort_segs(e->segs, n, seg_cmp);
	e->nsegs = merge_overlaps(e, e->segs, n);
	return true;
}

/* Whether our reader takes the file; e is filled when it does. */
static bool take(struct elf *e, const struct header *hd, uint64_t file_size)
{
	const uint8_t *h = hd->h;
	uint64_t phnum = hd->phnum, phoff = hd->phoff;
	Elf64_Phdr *ph;
	bool ok;

	e->le = h[EI_DATA] == ELFDATA2LSB;
	if (h[EI_CLASS] != ELFCLASS64) /* a 32-bit machine's: libkdumpfile's */
		return false;
	if (hd->type != ET_CORE || hd->phentsize != sizeof(Elf64_Phdr))
		return declined(e, "ELF type %u, program headers of %u bytes: "
				"no 64-bit core file", (unsigned)hd->type,
				(unsigned)hd->phentsize);
	/* another machine's dump is libkdumpfile's; one VMCOREINFO says is
	 * ours is damaged (the target judges when VMCOREINFO is read) */
	if (!(e->arch = idd_arch_of_elf((unsigned)hd->machine))) {
		idd_target_declined_machine(e->base.target,
					    (unsigned)hd->machine);
		return false;
	}
	/*
	 * Big-endian headers of a little-endian kernel: QEMU 7.2's pseries
	 * ELF (it takes the order from LPCR's HILE, which a pseries guest
	 * never sets). Memory is the kernel's: taken only where the kernel's
	 * own note is found in it, little-endian (scan_vmcoreinfo).
	 */
	if (!e->le && !e->arch->big_endian && !e->arch->vmcoreinfo_in_memory)
		return false; /* a big-endian ppc64 kernel: libkdumpfile's */
	if (phnum == PN_XNUM) { /* the real count is in section 0's sh_info */
		Elf64_Shdr sh;

		if (!hd->shoff ||
		    !idd_pread_all(e->fd, &sh, sizeof(sh), hd->shoff))
			return false;
		phnum = e->le ? le32toh(sh.sh_info) : be32toh(sh.sh_info);
	}
	if (!phnum || phnum > PHDRS_MAX || phoff > file_size ||
	    phnum * sizeof(Elf64_Phdr) > file_size - phoff)
		return declined(e, "%llu program headers at %llu",
				(unsigned long long)phnum,
				(unsigned long long)phoff);
	ph = malloc(phnum * sizeof(*ph));
	e->segs = malloc(phnum * sizeof(*e->segs));
	ok = ph && e->segs &&
	     idd_pread_all(e->fd, ph, phnum * sizeof(*ph), phoff);
	for (uint64_t i = 0; ok && !e->le && i < phnum; i++) {
		Elf64_Phdr *p = &ph[i];

		p->p_type = htole32(be32toh(p->p_type));
		p->p_flags = htole32(be32toh(p->p_flags));
		p->p_offset = htole64(be64toh(p->p_offset));
		p->p_vaddr = htole64(be64toh(p->p_vaddr));
		p->p_paddr = htole64(be64toh(p->p_paddr));
		p->p_filesz = htole64(be64toh(p->p_filesz));
		p->p_memsz = htole64(be64toh(p->p_memsz));
		p->p_align = htole64(be64toh(p->p_align));
	}
	/* From a note, or (pseries' big-endian headers) from memory only. */
	ok = ok && read_phdrs(e, ph, phnum, phoff, file_size) &&
	     (e->le || e->arch->big_endian || e->vmcoreinfo_pa);
	free(ph);
	return ok;
}

static bool elf_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
			  size_t len)
{
	struct elf *e = to_elf(b);
	size_t lo = 0, hi = e->nsegs;
	const struct seg *s;

	while (lo < hi) { /* the last segment starting at or before pa */
		size_t mid = lo + (hi - lo) / 2;

		if (e->segs[mid].start <= pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	s = &e->segs[lo - 1];
	if (pa >= s->end || len > s->end - pa)
		return false;
	errno = 0;
	if (idd_pread_all(e->fd, buf, len, s->off + (pa - s->start)))
		return true;
	/* The file shrank under us: ours to say, not libkdumpfile's. */
	inodedump_error_free(b->damage);
	b->damage = idd_error(INODEDUMP_ERR_FAULT,
			      "ELF dump %s: physical 0x%llx is in the segment "
			      "at file offset %llu but the file cannot be "
			      "read there (%s)",
			      idd_target_path(b->target),
			      (unsigned long long)pa,
			      (unsigned long long)s->off,
			      errno ? strerror(errno) : "end of file");
	return false;
}

/*
 * Reads of up to a page at a time, as a page-cached reader does: a read
 * that crosses a page into a segment that does not hold it fails.
 */
static bool fill_page(void *b, uint64_t pfn, uint8_t *page)
{
	if (elf_read_phys(b, pfn * 4096, page, 4096))
		return true;
	/* Not a whole page in the file: the caller reads only its part. */
	inodedump_error_free(((struct idd_backend *)b)->damage);
	((struct idd_backend *)b)->damage = NULL;
	return false;
}

static bool elf_read_pages(struct idd_backend *b, uint64_t pa, void *buf,
			   size_t len)
{
	struct elf *e = to_elf(b);
	uint8_t *out = buf;

	while (len) {
		size_t n = 4096 - pa % 4096;
		const uint8_t *page = NULL;

		if (n > len)
			n = len;
		if (e->cache_ok)
			page = idd_page_cache_get(&e->cache, pa / 4096,
						  fill_page, b);
		if (page)
			memcpy(out, page + pa % 4096, n);
		else if (!elf_read_phys(b, pa, out, n))
			return false;
		out += n;
		pa += n;
		len -= n;
	}
	return true;
}

static const char *elf_format(struct idd_backend *b)
{
	(void)b;
	return "elf";
}

static const char *elf_arch(struct idd_backend *b)
{
	return to_elf(b)->arch->name; /* take() takes no other */
}

/* The machine's one page size; else VMCOREINFO's (0: the target asks it). */
static uint64_t elf_page_size(struct idd_backend *b)
{
	uint64_t sizes = to_elf(b)->arch->page_sizes;

	return sizes & (sizes - 1) ? 0 : sizes;
}

/* No release in an ELF header: VMCOREINFO's (as libkdumpfile does). */
static const char *elf_uts_release(struct idd_backend *b)
{
	const char *release = idd_target_vmcoreinfo(b->target, "OSRELEASE");

	return release && *release ? release : NULL;
}

static const char *elf_writer(struct idd_backend *b)
{
	return to_elf(b)->writer[0] ? to_elf(b)->writer : NULL;
}

static const char *elf_vmcoreinfo(struct idd_backend *b)
{
	return to_elf(b)->vmcoreinfo;
}

static size_t elf_vmcoreinfo_size(struct idd_backend *b)
{
	return to_elf(b)->vmcoreinfo_size;
}

static void elf_close(struct idd_backend *b)
{
	struct elf *e = to_elf(b);

	inodedump_error_free(b->damage);
	free(e->vmcoreinfo);
	free(e->segs);
	idd_page_cache_free(&e->cache);
	free(e);
}

/* The headers' order (EI_DATA); the architecture's says the kernel's. */
static bool elf_little_endian(struct idd_backend *b)
{
	return to_elf(b)->le;
}

static const struct idd_backend_ops elf_ops = {
	.reader = "inodedump",
	.translation = "libkdumpfile (libaddrxlat)",
	.read_phys = elf_read_pages,
	.format = elf_format,
	.arch = elf_arch,
	.page_size = elf_page_size,
	.uts_release = elf_uts_release,
	.writer = elf_writer,
	.little_endian = elf_little_endian,
	.vmcoreinfo = elf_vmcoreinfo,
	.vmcoreinfo_size = elf_vmcoreinfo_size,
	.close = elf_close,
};

/* The program headers' disagreements, each kind a problem of t's. */
static void say_clashes(struct idd_target *t, const struct elf *e)
{
	const struct clash *m = &e->memory, *d = &e->data, *h = &e->header;

	if (m->n)
		idd_target_problem_add(
			t,
			"ELF dump: program headers %llu and %llu both hold "
			"physical 0x%llx-0x%llx but with different bytes (the "
			"first seen at 0x%llx), so that memory cannot be "
			"trusted; program header %llu's bytes are read%s",
			(unsigned long long)m->a, (unsigned long long)m->b,
			(unsigned long long)m->start,
			(unsigned long long)m->end - 1,
			(unsigned long long)m->at, (unsigned long long)m->a,
			m->n > 1 ? " (and more segments overlap the same "
				   "way)"
				 : "");
	if (d->n)
		idd_target_problem_add(
			t,
			"ELF dump: program headers %llu and %llu both take "
			"file bytes %llu-%llu as memory at different physical "
			"addresses, so one of them is wrong%s",
			(unsigned long long)d->a, (unsigned long long)d->b,
			(unsigned long long)d->start,
			(unsigned long long)d->end - 1,
			d->n > 1 ? " (and more segments share bytes the "
				   "same way)"
				 : "");
	if (h->n)
		idd_target_problem_add(
			t,
			"ELF dump: program header %llu's memory is file bytes "
			"%llu-%llu, which hold the ELF headers or notes, not "
			"memory%s",
			(unsigned long long)h->a,
			(unsigned long long)h->start,
			(unsigned long long)h->end - 1,
			h->n > 1 ? " (and more segments like it)" : "");
}

struct inodedump_error *idd_elf_probe(struct idd_target *t, const char *path,
				      int fd, off_t size, bool ours,
				      struct idd_backend **out)
{
	struct header hd = { 0 };
	size_t got = idd_pread_upto(fd, hd.h, sizeof(hd.h), 0);
	struct inodedump_error *err;
	struct elf *e;

	*out = NULL;
	if (got < EI_DATA + 1 || memcmp(hd.h, ELFMAG, SELFMAG) != 0)
		return NULL;
	if ((hd.h[EI_CLASS] != ELFCLASS32 && hd.h[EI_CLASS] != ELFCLASS64) ||
	    (hd.h[EI_DATA] != ELFDATA2LSB && hd.h[EI_DATA] != ELFDATA2MSB))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt ELF header (class %u, data %u)",
				 path, hd.h[EI_CLASS], hd.h[EI_DATA]);
	if (got < sizeof(hd.h))
		return idd_error(INODEDUMP_ERR_DUMP, "%s: ELF header truncated",
				 path);
	hd.is64 = hd.h[EI_CLASS] == ELFCLASS64;
	parse_header(&hd);
	err = check_header(path, fd, &hd, size);
	if (err || !ours)
		return err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->base.ops = &elf_ops;
	e->base.target = t;
	e->fd = fd;
	/* without the cache (no memory for it) every read is a pread(2) */
	e->cache_ok = idd_page_cache_init(&e->cache, 4096);
	if (!take(e, &hd, (uint64_t)size)) {
		elf_close(&e->base);
		return NULL;
	}
	say_clashes(t, e);
	/* Not damage (nothing is missing): what the file is, for --info. */
	if (e->vmcoreinfo_pa)
		snprintf(e->writer, sizeof(e->writer),
			 "QEMU's ELF of a machine without fw_cfg (pseries): "
			 "no VMCOREINFO note%s; the kernel's own, in its "
			 "memory at physical 0x%llx, is read",
			 e->le ? "" : ", big-endian headers",
			 (unsigned long long)e->vmcoreinfo_pa);
	*out = &e->base;
	return NULL;
}
