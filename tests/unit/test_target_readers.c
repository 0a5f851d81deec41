// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Our dump readers (lib/target/diskdump.c, elf.c) on small files written
 * here from the formats' specifications (makedumpfile's diskdump_mod.h,
 * header version 6; the ELF specification): pages compressed with zlib,
 * lzo and zstd and stored raw read back byte for byte, a page the bitmap
 * leaves out is not read by ours but handed to libkdumpfile, ELF segments with an overlap and a gap,
 * program headers that disagree said as problems of the target (issue
 * 29), and the refusals of headers that do not fit their file.
 */
#include <elf.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "check.h"
#include "target/target.h"



#define PAGE 4096u
#define NPFN 16
#define KERNEL_MAP UINT64_C(0xffffffff80000000)
#define DIRECT_MAP UINT64_C(0xffff888000000000)
#define ROOT_PFN 8 /* PML4, then PDPT, PD, PT at 9, 10, 11 */
#define FILTERED_PFN 4

enum how { ABSENT, RAW, ZLIB, LZO, ZSTD, EXCLUDED };

/* The machine's memory: pfns 0..NPFN-1, and how the dump stores each. */
static uint8_t mem[NPFN][PAGE];
static const enum how layout[NPFN] = {
	ZLIB, LZO, ZSTD, RAW, EXCLUDED, ZLIB, ABSENT, ABSENT,
	RAW, ZLIB, LZO, ZSTD, RAW, RAW, ABSENT, ABSENT,
};

static char vmcoreinfo[512];

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A diskdump's field of n bytes, in its writer's order (big: s390x's). */
static void put_in(uint8_t *p, size_t n, uint64_t v, bool big)
{
	for (size_t i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/*
 * Data pages with their own bytes (compressible, but not trivially), and
 * 4-level page tables mapping pfns 0..7 at DIRECT_MAP + pfn * PAGE.
 */
static void make_memory(void)
{
	uint64_t va = DIRECT_MAP;

	memset(mem, 0, sizeof(mem));
	for (int pfn = 0; pfn < 8; pfn++)
		for (unsigned i = 0; i < PAGE; i++)
			mem[pfn][i] = (uint8_t)((i / 16) * (pfn + 3) + (i % 7));
	put64(mem[ROOT_PFN] + ((va >> 39) & 511) * 8, 9 * PAGE | 0x63);
	put64(mem[9] + ((va >> 30) & 511) * 8, 10 * PAGE | 0x63);
	put64(mem[10] + ((va >> 21) & 511) * 8, 11 * PAGE | 0x63);
	for (int pfn = 0; pfn < 8; pfn++)
		put64(mem[11] + (((va >> 12) & 511) + pfn) * 8,
		      (uint64_t)pfn * PAGE | 0x63);
	/* The kernel image at __START_KERNEL_map, phys_base 0: a 2 MiB leaf. */
	put64(mem[ROOT_PFN] + 511 * 8, 12 * PAGE | 0x63);
	put64(mem[12] + 510 * 8, 13 * PAGE | 0x63);
	put64(mem[13], 0 | 0xe3);
	snprintf(vmcoreinfo, sizeof(vmcoreinfo),
		 "OSRELEASE=6.12.0\nPAGESIZE=4096\n"
		 "SYMBOL(init_top_pgt)=%" PRIx64 "\n"
		 "NUMBER(phys_base)=0\nNUMBER(pgtable_l5_enabled)=0\n"
		 "SYMBOL(_stext)=%" PRIx64 "\nKERNELOFFSET=0\n",
		 KERNEL_MAP + ROOT_PFN * PAGE, KERNEL_MAP + 0x1000000);
}

static char *write_file(const uint8_t *data, size_t len)
{
	char *path = strdup("/tmp/inodedump-unit-XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* One page as the dump stores it; flags as page_desc.flags. */
static size_t compress_page(enum how how, const uint8_t *page, uint8_t *out,
			    uint32_t *flags)
{
	static uint8_t wrk[LZO1X_1_MEM_COMPRESS];
	uLongf zlen = 2 * PAGE;
	lzo_uint llen = 2 * PAGE;
	size_t len;

	switch (how) {
	case ZLIB:
		*flags = 0x1;
		return compress2(out, &zlen, page, PAGE, 6) == Z_OK ? zlen : 0;
	case LZO:
		*flags = 0x2;
		return lzo1x_1_compress(page, PAGE, out, &llen, wrk) == LZO_E_OK
			       ? llen : 0;
	case ZSTD:
		*flags = 0x20;
		len = ZSTD_compress(out, 2 * PAGE, page, PAGE, 3);
		return ZSTD_isError(len) ? 0 : len;
	default:
		*flags = 0;
		memcpy(out, page, PAGE);
		return PAGE;
	}
}

struct diskdump_opts {
	int32_t block_size, bitmap_blocks;
	bool big; /* written big-endian, as on s390x */
	uint64_t vmcoreinfo_off; /* 0: where it is */
	size_t truncate_to;	 /* 0: whole */
	bool no_vmcoreinfo;	 /* QEMU's of a machine without fw_cfg */
	const char *machine;	 /* NULL: s390x or x86_64, as big says */
};

/*
 * A kdump-compressed file: header, sub-header (VMCOREINFO inside it),
 * bitmap 1 (every pfn with memory) and 2 (the pfns dumped), descriptors,
 * pages.
 */
static char *write_diskdump(const struct diskdump_opts *o)
{
	size_t hdr_blocks = 2, bm = PAGE, ndesc = 0, data = 0;
	size_t desc_off = (hdr_blocks + 2) * PAGE;
	size_t size = desc_off + NPFN * 24 + NPFN * 2 * PAGE;
	uint8_t *f = calloc(1, size), *sub = f + PAGE;
	uint8_t *bitmap1 = f + hdr_blocks * PAGE, *bitmap2 = bitmap1 + bm;
	size_t vi_len = strlen(vmcoreinfo), data_off;
	char *path;

	memcpy(f, "KDUMP   ", 8);
	put_in(f + 8, 4, 6, o->big);
	const char *machine = o->machine ? o->machine
			      : o->big ? "s390x" : "x86_64";

	if (o->no_vmcoreinfo) /* QEMU: no system name, no release */
		vi_len = 0;
	else {
		memcpy(f + 12, "Linux", 5);
		memcpy(f + 12 + 2 * 65, "6.12.0", 6);
	}
	memcpy(f + 12 + 4 * 65, machine, strlen(machine));
	put_in(f + 424, 4, 0x1 | 0x2 | 0x20, o->big);
	put_in(f + 428, 4, (uint32_t)o->block_size, o->big);
	put_in(f + 432, 4, 1, o->big);
	put_in(f + 436, 4, (uint32_t)o->bitmap_blocks, o->big);
	put_in(f + 440, 4, NPFN, o->big);
	put_in(sub + 8, 4, 17, o->big); /* dump level */
	put_in(sub + 32, 8, !vi_len ? 0 : o->vmcoreinfo_off ? o->vmcoreinfo_off
							 : PAGE + 256, o->big);
	put_in(sub + 40, 8, vi_len, o->big);
	put_in(sub + 96, 8, NPFN, o->big);
	memcpy(sub + 256, vmcoreinfo, vi_len);
	for (int pfn = 0; pfn < NPFN; pfn++) {
		if (layout[pfn] != ABSENT)
			bitmap1[pfn / 8] |= (uint8_t)(1 << (pfn % 8));
		if (layout[pfn] != ABSENT && layout[pfn] != EXCLUDED) {
			bitmap2[pfn / 8] |= (uint8_t)(1 << (pfn % 8));
			ndesc++;
		}
	}
	data_off = desc_off + ndesc * 24;
	ndesc = 0;
	for (int pfn = 0; pfn < NPFN; pfn++) {
		uint8_t *desc = f + desc_off + ndesc * 24;
		uint32_t flags;
		size_t len;

		if (layout[pfn] == ABSENT || layout[pfn] == EXCLUDED)
			continue;
		len = compress_page(layout[pfn], mem[pfn], f + data_off + data,
				    &flags);
		if (!len || len > PAGE)
			abort();
		put_in(desc, 8, data_off + data, o->big);
		put_in(desc + 8, 4, (uint32_t)len, o->big);
		put_in(desc + 12, 4, flags, o->big);
		data += len;
		ndesc++;
	}
	path = write_file(f, o->truncate_to ? o->truncate_to : data_off + data);
	free(f);
	return path;
}

static const struct diskdump_opts good_diskdump = { .block_size = PAGE,
						    .bitmap_blocks = 2 };

struct segment {
	uint64_t pa, len;
	const uint8_t *bytes;
};

struct elf_opts {
	uint16_t phnum_override; /* as written in the header; 0: the real */
	bool zero_phnum;
	uint64_t phoff; /* 0: after the header */
	size_t truncate_to;
	/*
	 * Segment i's p_offset, when set: off[i], or segment share[i] - 1's
	 * (its bytes are written all the same, where they would be).
	 */
	uint64_t off[4];
	size_t share[4];
};

/* An x86-64 ELF core: a VMCOREINFO note and the given PT_LOADs. */
static char *write_elf(const struct segment *segs, size_t nsegs,
		       const struct elf_opts *o)
{
	size_t vi_len = strlen(vmcoreinfo), note_len = 12 + 12 + ((vi_len + 3) & ~3u);
	size_t phnum = 1 + nsegs, off = 64 + 56 * phnum, size = off + note_len;
	uint8_t *f, *ph, *note;
	size_t offs[8];
	char *path;

	if (nsegs > 8)
		abort();
	for (size_t i = 0; i < nsegs; i++)
		size += segs[i].len;
	f = calloc(1, size);
	memcpy(f, ELFMAG, SELFMAG);
	f[EI_CLASS] = ELFCLASS64;
	f[EI_DATA] = ELFDATA2LSB;
	f[EI_VERSION] = EV_CURRENT;
	put16(f + 16, ET_CORE);
	put16(f + 18, EM_X86_64);
	put32(f + 20, EV_CURRENT);
	put64(f + 32, o->phoff ? o->phoff : 64);
	put16(f + 52, 64);
	put16(f + 54, 56);
	put16(f + 56, o->zero_phnum ? 0 : (uint16_t)phnum);
	put16(f + 58, 64);
	note = f + off;
	put32(note, 11);
	put32(note + 4, (uint32_t)vi_len);
	memcpy(note + 12, "VMCOREINFO", 11);
	memcpy(note + 24, vmcoreinfo, vi_len);
	ph = f + 64;
	put32(ph, PT_NOTE);
	put64(ph + 8, off);
	put64(ph + 32, note_len);
	put64(ph + 40, note_len);
	off += note_len;
	for (size_t i = 0; i < nsegs; i++) {
		size_t at = off;

		offs[i] = off;
		if (i < 4 && o->share[i])
			at = offs[o->share[i] - 1];
		if (i < 4 && o->off[i])
			at = o->off[i];
		ph = f + 64 + 56 * (i + 1);
		put32(ph, PT_LOAD);
		put32(ph + 4, PF_R | PF_W | PF_X);
		put64(ph + 8, at);
		put64(ph + 16, DIRECT_MAP + segs[i].pa);
		put64(ph + 24, segs[i].pa);
		put64(ph + 32, segs[i].len);
		put64(ph + 40, segs[i].len);
		put64(ph + 48, PAGE);
		memcpy(f + off, segs[i].bytes, segs[i].len);
		off += segs[i].len;
	}
	path = write_file(f, o->truncate_to ? o->truncate_to : size);
	free(f);
	return path;
}

static struct idd_target *open_ok(const char *path)
{
	struct idd_target *t = NULL;
	struct inodedump_error *err = idd_target_open(path, &t);

	CHECKF(!err, "open %s: %s", path, err ? inodedump_error_message(err) : "");
	inodedump_error_free(err);
	return t;
}

static bool phys_is(struct idd_target *t, uint64_t pa, const uint8_t *want,
		    size_t len)
{
	static uint8_t got[2 * PAGE];

	return idd_target_read_phys(t, pa, got, len) && !memcmp(got, want, len);
}

static void test_diskdump(void)
{
	char *path = write_diskdump(&good_diskdump);
	struct idd_target *t = open_ok(path);
	static uint8_t got[PAGE];
	struct inodedump_error *err;

	if (!t)
		goto out;
	CHECKF(!strcmp(idd_target_reader(t), "inodedump"), "reader %s",
	      idd_target_reader(t));
	CHECKF(!strcmp(idd_target_format(t), "diskdump"), "format %s",
	      idd_target_format(t));
	CHECKF(idd_target_dump_level(t) == 17, "dump level %d",
	      idd_target_dump_level(t));
	CHECKF(idd_target_page_size(t) == PAGE, "page size");
	CHECKF(idd_target_arch(t) && !strcmp(idd_target_arch(t), "x86_64"),
	      "arch");
	CHECKF(idd_target_uts_release(t) &&
		      !strcmp(idd_target_uts_release(t), "6.12.0"), "release");
	CHECKF(idd_target_vmcoreinfo(t, "PAGESIZE") &&
		      !strcmp(idd_target_vmcoreinfo(t, "PAGESIZE"), "4096"),
	      "VMCOREINFO");
	for (int pfn = 0; pfn < NPFN; pfn++) {
		bool in = layout[pfn] != ABSENT && layout[pfn] != EXCLUDED;

		CHECKF(in ? phys_is(t, (uint64_t)pfn * PAGE, mem[pfn], PAGE)
			 : !idd_target_read_phys(t, (uint64_t)pfn * PAGE, got,
						 PAGE),
		      "pfn %d (how %d): %s", pfn, layout[pfn],
		      in ? "not read back" : "read, though not in the dump");
	}
	/* Across pages of different compressions, and within one. */
	{
		uint8_t want[64];

		memcpy(want, mem[1] + PAGE - 32, 32);
		memcpy(want + 32, mem[2], 32);
		CHECKF(phys_is(t, 2 * PAGE - 32, want, 64), "lzo -> zstd");
		CHECKF(phys_is(t, 3 * PAGE + 100, mem[3] + 100, 50), "raw");
	}
	/* Through our page walk, from the dump's own tables. */
	CHECKF(!strcmp(idd_target_translation(t),
		      "inodedump (x86-64, 4-level page tables)"),
	      "translation %s", idd_target_translation(t));
	for (int pfn = 0; pfn < 4; pfn++) {
		err = idd_target_read(t, DIRECT_MAP + pfn * PAGE, got, PAGE);
		CHECKF(!err && !memcmp(got, mem[pfn], PAGE), "va of pfn %d: %s",
		      pfn, err ? inodedump_error_message(err) : "differs");
		inodedump_error_free(err);
	}
	CHECKF(idd_target_fallbacks(t) == 0, "fell back to libkdumpfile");
	/*
	 * The page the bitmap leaves out: our walk maps it, our reader knows
	 * its writer left it out and says so itself (filtered, with the dump
	 * level), naming the byte asked for; libkdumpfile is not asked.
	 */
	{
		uint64_t pa = 0;

		CHECKF(idd_target_walk(t, KERNEL_MAP + FILTERED_PFN * PAGE, &pa) &&
			      pa == FILTERED_PFN * PAGE,
		      "walk to the excluded page");
	}
	err = idd_target_read(t, KERNEL_MAP + FILTERED_PFN * PAGE + 8, got, 8);
	CHECKF(err && inodedump_error_address(err, &(uint64_t){ 0 }) &&
		      strstr(inodedump_error_message(err), "0xffffffff80004008") &&
		      strstr(inodedump_error_message(err), "filtered out") &&
		      inodedump_error_code(err) == INODEDUMP_ERR_FILTERED,
	      "excluded page: %s",
	      err ? inodedump_error_message(err) : "read");
	CHECKF(idd_target_fallbacks(t) == 0, "fallbacks %lu",
	      idd_target_fallbacks(t));
	inodedump_error_free(err);
	idd_target_close(t);
out:
	unlink(path);
	free(path);
}

/*
 * The same file as s390x's makedumpfile writes it: header, sub-header and
 * page descriptors big-endian (the bitmaps are bytes). Read by our
 * reader in that order; the kernel's order the architecture's.
 */
static void test_diskdump_big_endian(void)
{
	struct diskdump_opts o = good_diskdump;
	char *path;
	struct idd_target *t;

	o.big = true;
	path = write_diskdump(&o);
	t = open_ok(path);
	if (t) {
		CHECKF(!strcmp(idd_target_reader(t), "inodedump"), "reader %s",
		       idd_target_reader(t));
		CHECK(idd_target_dump_level(t) == 17);
		CHECK(idd_target_page_size(t) == PAGE);
		CHECK(idd_target_arch(t) && !strcmp(idd_target_arch(t), "s390x"));
		CHECK(idd_target_big_endian(t));
		CHECK(idd_target_vmcoreinfo(t, "PAGESIZE") &&
		      !strcmp(idd_target_vmcoreinfo(t, "PAGESIZE"), "4096"));
		CHECK(idd_target_max_pfn(t) == NPFN);
		for (int pfn = 0; pfn < NPFN; pfn++)
			if (layout[pfn] != ABSENT && layout[pfn] != EXCLUDED)
				CHECKF(phys_is(t, (uint64_t)pfn * PAGE, mem[pfn],
					       PAGE),
				       "big-endian pfn %d (how %d)", pfn,
				       layout[pfn]);
		idd_target_close(t);
	}
	unlink(path);
	free(path);
}

/* The kernel's VMCOREINFO note at the start of pfn's page, big-endian. */
static void put_note_be(int pfn, const char *text)
{
	uint8_t *p = mem[pfn];

	put_in(p, 4, 11, true);
	put_in(p + 4, 4, strlen(text), true);
	put_in(p + 8, 4, 0, true);
	memcpy(p + 12, "VMCOREINFO\0", 12);
	memcpy(p + 24, text, strlen(text));
}

/* Whether a problem of t holds want. */
static bool problem_said(struct idd_target *t, const char *want)
{
	for (size_t i = 0; i < idd_target_problems(t); i++)
		if (strstr(idd_target_problem(t, i), want))
			return true;
	return false;
}

/*
 * QEMU's kdump of an s390x guest (no fw_cfg): big-endian, the machine
 * "S390X", no release and no VMCOREINFO in the sub-header. The kernel's
 * own note, found at a page's start in its (compressed) memory, is read
 * and said on the writer line; two different notes, or none, are not
 * trusted: libkdumpfile's then, why said. An x86-64 dump without one is
 * not looked through (its kernels have fw_cfg), as before.
 */
static void check_no_vmcoreinfo(const char *what, bool big,
				const char *machine, const char *want_writer,
				const char *want_problem)
{
	struct diskdump_opts o = good_diskdump;
	struct idd_target *t = NULL;
	struct inodedump_error *err;
	char *path;

	o.big = big;
	o.machine = machine;
	o.no_vmcoreinfo = true;
	path = write_diskdump(&o);
	err = idd_target_open(path, &t);
	if (want_writer) {
		const char *w = t ? idd_target_writer(t) : NULL;
		const char *rel = t ? idd_target_vmcoreinfo(t, "OSRELEASE") : NULL;

		CHECKF(!err && !strcmp(idd_target_reader(t), "inodedump"),
		       "%s: read by %s", what,
		       err ? inodedump_error_message(err) : idd_target_reader(t));
		CHECKF(w && strstr(w, want_writer), "%s: writer %s", what,
		       w ? w : "(none)");
		CHECKF(rel && !strcmp(rel, "6.1.0-50-s390x"), "%s: OSRELEASE %s",
		       what, rel ? rel : "(none)");
		CHECKF(t && phys_is(t, 9 * PAGE, mem[9], PAGE),
		       "%s: memory read", what);
		CHECKF(t && !problem_said(t, "VMCOREINFO"), "%s: %s", what,
		       t && idd_target_problems(t) ? idd_target_problem(t, 0)
						   : "(none)");
	} else {
		/* libkdumpfile's, or nobody's: never our reader's */
		CHECKF(err || strcmp(idd_target_reader(t), "inodedump"),
		       "%s: not ours", what);
		CHECKF(!want_problem || err || problem_said(t, want_problem),
		       "%s: why not said (%s)", what,
		       err ? inodedump_error_message(err)
			   : idd_target_problems(t) ? idd_target_problem(t, 0)
						    : "no problem");
		CHECKF(want_problem || err || !problem_said(t, "VMCOREINFO note"),
		       "%s: a reason said where none was before", what);
	}
	inodedump_error_free(err);
	idd_target_close(t);
	unlink(path);
	free(path);
}

static void test_diskdump_vmcoreinfo_in_memory(void)
{
	static const char note_a[] = "OSRELEASE=6.1.0-50-s390x\nPAGESIZE=4096\n";
	static const char note_b[] = "OSRELEASE=6.1.0-49-s390x\nPAGESIZE=4096\n";

	make_memory();
	put_note_be(5, note_a); /* a zlib page */
	check_no_vmcoreinfo("QEMU's s390x kdump, the note in memory", true,
			    "S390X", "in its memory at physical 0x5000", NULL);
	put_note_be(12, note_a); /* the same note again (a raw page): one */
	check_no_vmcoreinfo("the same note twice", true, "S390X",
			    "in its memory at physical 0x5000", NULL);
	put_note_be(12, note_b);
	check_no_vmcoreinfo("two different notes", true, "S390X", NULL,
			    "two different VMCOREINFO notes in the kernel's "
			    "memory");
	make_memory();
	check_no_vmcoreinfo("no note in memory", true, "S390X", NULL,
			    "no VMCOREINFO in its sub-header, and no "
			    "VMCOREINFO note in the kernel's memory");
	put_note_be(4, note_a); /* the page the dump leaves out */
	check_no_vmcoreinfo("the note only in a page not dumped", true, "S390X",
			    NULL, "no VMCOREINFO note in the kernel's memory");
	make_memory();
	put_note_be(5, note_a);
	mem[5][0] = 11; /* namesz little-endian: another order's kernel */
	mem[5][3] = 0;
	check_no_vmcoreinfo("a note in the wrong byte order", true, "S390X",
			    NULL, "no VMCOREINFO note in the kernel's memory");
	make_memory();
	put_note_be(5, note_a);
	check_no_vmcoreinfo("an x86-64 dump is not looked through", false,
			    "x86_64", NULL, NULL);
	make_memory();
}

static void test_elf(void)
{
	/*
	 * pfns 0-1, then 1-2 again (overlap: the first segment's bytes are
	 * kept), a gap at pfn 3, pfn 4, and a page above 4 GiB.
	 */
	static uint8_t pair[2 * PAGE], other[2 * PAGE];
	const uint64_t high = UINT64_C(0x100000000);
	struct segment segs[4];
	struct elf_opts o = { 0 };
	char *path;
	struct idd_target *t;
	static uint8_t got[PAGE];

	memcpy(pair, mem[0], PAGE);
	memcpy(pair + PAGE, mem[1], PAGE);
	memset(other, 0xee, PAGE); /* loses to pfn 1 */
	memcpy(other + PAGE, mem[2], PAGE);
	segs[0] = (struct segment){ 0, 2 * PAGE, pair };
	segs[1] = (struct segment){ PAGE, 2 * PAGE, other };
	segs[2] = (struct segment){ 4 * PAGE, PAGE, mem[4] };
	segs[3] = (struct segment){ high, PAGE, mem[5] };
	path = write_elf(segs, 4, &o);
	t = open_ok(path);
	if (!t)
		goto out;
	CHECKF(!strcmp(idd_target_reader(t), "inodedump"), "reader %s",
	      idd_target_reader(t));
	CHECKF(!strcmp(idd_target_format(t), "elf"), "format");
	CHECKF(idd_target_dump_level(t) == -1, "dump level");
	CHECKF(idd_target_uts_release(t) &&
		      !strcmp(idd_target_uts_release(t), "6.12.0"),
	      "release from VMCOREINFO");
	CHECKF(phys_is(t, 0, mem[0], PAGE), "pfn 0");
	CHECKF(phys_is(t, PAGE, mem[1], PAGE), "pfn 1: the first segment's");
	CHECKF(phys_is(t, 2 * PAGE, mem[2], PAGE), "pfn 2: the second's tail");
	CHECKF(phys_is(t, PAGE - 8, pair + PAGE - 8, 16), "across pfn 0-1");
	CHECKF(!idd_target_read_phys(t, 3 * PAGE, got, 8), "gap read");
	CHECKF(!idd_target_read_phys(t, 3 * PAGE - 8, got, 16),
	      "read into the gap");
	CHECKF(phys_is(t, 4 * PAGE, mem[4], PAGE), "pfn 4 after the gap");
	CHECKF(phys_is(t, high + 123, mem[5] + 123, 200), "above 4 GiB");
	CHECKF(!idd_target_read_phys(t, high + PAGE, got, 8), "past the end");
	/* pfn 1's two copies differ: which is right cannot be known, said */
	CHECKF(idd_target_problems(t) == 1 &&
		      strstr(idd_target_problem(t, 0),
			     "program headers 1 and 2 both hold physical "
			     "0x1000-0x1fff but with different bytes (the "
			     "first seen at 0x1000)"),
	      "overlap with other bytes: %s", idd_target_problem(t, 0));
	idd_target_close(t);
out:
	unlink(path);
	free(path);
}

/*
 * A dump with the given segments opened by our reader: one of its
 * problems says want (NULL: it has none), and pfn 1 reads back as mem[1]
 * (all put it there).
 */
static void expect_problem(const struct segment *segs, size_t n,
			   const struct elf_opts *o, const char *want,
			   const char *what)
{
	char *path = write_elf(segs, n, o);
	struct idd_target *t = open_ok(path);

	if (t) {
		const char *p = idd_target_problem(t, 0);
		bool said = false;

		for (size_t i = 0; want && i < idd_target_problems(t); i++)
			said |= strstr(idd_target_problem(t, i), want) != NULL;
		CHECKF(!strcmp(idd_target_reader(t), "inodedump"), "%s: reader",
		      what);
		CHECKF(want ? said : !idd_target_problems(t),
		      "%s: %zu problems, %s", what, idd_target_problems(t),
		      p ? p : "none");
		CHECKF(phys_is(t, PAGE, mem[1], PAGE), "%s: pfn 1", what);
		idd_target_close(t);
	}
	unlink(path);
	free(path);
}

/*
 * Program headers that disagree are said (issue 29: a changed answer is
 * never silent); those that agree, as a kdump /proc/vmcore's kernel text
 * over its RAM and QEMU's pages mapped twice, are not.
 */
static void test_elf_clashes(void)
{
	static uint8_t pair[2 * PAGE];
	struct segment segs[2];
	struct elf_opts o = { 0 };

	memcpy(pair, mem[0], PAGE);
	memcpy(pair + PAGE, mem[1], PAGE);
	/* The same memory from two places in the file: an alias. */
	segs[0] = (struct segment){ 0, 2 * PAGE, pair };
	segs[1] = (struct segment){ PAGE, PAGE, mem[1] };
	expect_problem(segs, 2, &o, NULL, "alias");
	/* The same file bytes twice at the same address (QEMU): fine. */
	o.share[1] = 1;
	segs[0] = (struct segment){ PAGE, PAGE, mem[1] };
	expect_problem(segs, 2, &o, NULL, "one copy mapped twice");
	/* A p_paddr off by one byte (mutant 15/2/311's damage). */
	o = (struct elf_opts){ 0 };
	segs[0] = (struct segment){ 0, 2 * PAGE, pair };
	segs[1] = (struct segment){ PAGE + 1, PAGE, mem[0] };
	expect_problem(segs, 2, &o,
		       "program headers 1 and 2 both hold physical "
		       "0x1001-0x1fff but with different bytes (the first "
		       "seen at 0x1001)",
		       "p_paddr off by one");
	/* Two addresses for the same file bytes: one is wrong. */
	segs[1] = (struct segment){ 4 * PAGE, PAGE, mem[4] };
	o.share[1] = 1;
	expect_problem(segs, 2, &o,
		       "program headers 1 and 2 both take file bytes",
		       "shared bytes, two addresses");
	/* Memory that is the file's headers. */
	o = (struct elf_opts){ .off = { 0, 1 } };
	expect_problem(segs, 2, &o,
		       "program header 2's memory is file bytes 1-4096, "
		       "which hold the ELF headers or notes",
		       "memory over the headers");
}

/* Each refusal: the open fails with a message saying why. */
static void expect_refusal(char *path, const char *why, const char *what)
{
	struct idd_target *t = NULL;
	struct inodedump_error *err = idd_target_open(path, &t);

	CHECKF(err && inodedump_error_code(err) == INODEDUMP_ERR_DUMP &&
		      strstr(inodedump_error_message(err), why),
	      "%s: %s", what, err ? inodedump_error_message(err) : "opened");
	inodedump_error_free(err);
	idd_target_close(t);
	unlink(path);
	free(path);
}

static void test_refusals(void)
{
	struct diskdump_opts d = good_diskdump;
	struct segment seg = { 0, PAGE, mem[0] };
	struct elf_opts e = { 0 };

	d.truncate_to = 300;
	expect_refusal(write_diskdump(&d), "diskdump header truncated",
		       "truncated diskdump header");
	d = good_diskdump;
	d.bitmap_blocks = 4096;
	expect_refusal(write_diskdump(&d), "bitmap blocks",
		       "bitmap past the end");
	d = good_diskdump;
	d.block_size = 3000;
	expect_refusal(write_diskdump(&d), "block size 3000", "block size");
	d = good_diskdump;
	d.vmcoreinfo_off = UINT64_C(1) << 40;
	expect_refusal(write_diskdump(&d), "VMCOREINFO at",
		       "VMCOREINFO past the end");
	e.zero_phnum = true;
	expect_refusal(write_elf(&seg, 1, &e), "without program headers",
		       "e_phnum 0");
	e = (struct elf_opts){ .phoff = 1 << 20 };
	expect_refusal(write_elf(&seg, 1, &e), "corrupt or truncated ELF",
		       "program headers past the end");
	e = (struct elf_opts){ .truncate_to = 100 };
	expect_refusal(write_elf(&seg, 1, &e), "corrupt or truncated ELF",
		       "file cut inside the program headers");
	e = (struct elf_opts){ .truncate_to = 40 };
	expect_refusal(write_elf(&seg, 1, &e), "ELF header truncated",
		       "truncated ELF header");
}

int main(void)
{
	make_memory();
	test_diskdump();
	test_diskdump_big_endian();
	test_diskdump_vmcoreinfo_in_memory();
	test_elf();
	test_elf_clashes();
	test_refusals();
	return check_summary("test_target_readers");
}
