// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * target: a diskdump header's fields that our reader does not need but
 * --info shows, checked against the rest of the file (issue 41): what no
 * writer leaves so is a problem of the target (a note, exit 4), never
 * echoed as a fact. Each check reads at most a block of the file. And
 * the writer line: what the header shows of who wrote it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "target/backend.h"
#include "target/diskdump_format.h"

/* Bitmap bytes compared for a level that excludes nothing (32 GiB of
 * 4 KiB pages), a block at a time. */
#define LEVEL0_BYTES (1u << 20)
#define LEVEL0_BLOCK 4096u

/* Whether the two bitmaps differ in their first LEVEL0_BYTES. */
static bool bitmaps_differ(int fd, uint64_t bitmap1, uint64_t bitmap2,
			   uint64_t len)
{
	uint8_t b1[LEVEL0_BLOCK], b2[LEVEL0_BLOCK];

	if (len > LEVEL0_BYTES)
		len = LEVEL0_BYTES;
	for (uint64_t off = 0; off + LEVEL0_BLOCK <= len; off += LEVEL0_BLOCK)
		if (idd_pread_all(fd, b1, sizeof(b1), bitmap1 + off) &&
		    idd_pread_all(fd, b2, sizeof(b2), bitmap2 + off) &&
		    memcmp(b1, b2, sizeof(b1)))
			return true;
	return false;
}

static void dump_level(struct idd_target *t, const uint8_t *h,
		       const uint8_t *sub, int fd)
{
	int32_t level = (int32_t)idd_le32(sub + DD_SUB_DUMP_LEVEL);
	uint64_t bs = idd_le32(h + DD_BLOCK_SIZE),
		 bitmap1 = bs * (1 + (uint64_t)idd_le32(h + DD_SUB_HDR_SIZE)),
		 half = idd_le32(h + DD_BITMAP_BLOCKS) / 2 * bs;

	if (level < 0 || level > 31) {
		idd_target_problem_add(t, "diskdump sub-header: dump level %d, "
				       "which makedumpfile never writes",
				       (int)level);
		return;
	}
	/* level 0 keeps every page: the second bitmap is the first */
	if (!level && bitmaps_differ(fd, bitmap1, bitmap1 + half, half))
		idd_target_problem_add(t, "diskdump sub-header: dump level 0 "
				       "(nothing excluded), but its bitmaps "
				       "leave pages out");
}

static void erase_info(struct idd_target *t, const uint8_t *h,
		       const uint8_t *sub, off_t size)
{
	uint64_t eoff = idd_le64(sub + DD_SUB_ERASEINFO),
		 esize = idd_le64(sub + DD_SUB_ERASEINFO + 8),
		 bs = idd_le32(h + DD_BLOCK_SIZE),
		 data = bs * (1 + (uint64_t)idd_le32(h + DD_SUB_HDR_SIZE) +
			      idd_le32(h + DD_BITMAP_BLOCKS));

	if (!esize)
		return;
	/* makedumpfile writes it after the pages, never over the headers */
	if (esize > (uint64_t)size || eoff > (uint64_t)size - esize)
		idd_target_problem_add(t, "diskdump sub-header: erase "
				       "information of %llu bytes at %llu, past "
				       "the end of the file",
				       (unsigned long long)esize,
				       (unsigned long long)eoff);
	else if (eoff < data)
		idd_target_problem_add(t, "diskdump sub-header: erase "
				       "information at %llu, inside the headers "
				       "and bitmaps (before %llu)",
				       (unsigned long long)eoff,
				       (unsigned long long)data);
}

static void utsname(struct idd_target *t, const uint8_t *h)
{
	const uint8_t *u = h + DD_UTSNAME;
	bool sysname = u[0], release = u[2 * DD_UTS_FIELD];

	/* makedumpfile copies all of the kernel's, QEMU only the machine */
	if (sysname != release || (!sysname && !u[4 * DD_UTS_FIELD]))
		idd_target_problem_add(t, "diskdump header: utsname %s "
				       "(makedumpfile fills it, QEMU names the "
				       "machine)",
				       sysname != release ? "half empty"
							  : "empty");
	else if (sysname && memcmp(u, "Linux", 6))
		idd_target_problem_add(t, "diskdump header: utsname's system "
				       "name is not the kernel's (\"Linux\")");
}

static void compression(struct idd_target *t, const uint8_t *h, int fd,
			bool big)
{
	uint32_t status = idd_le32(h + DD_STATUS), flags = 0;
	uint64_t bs = idd_le32(h + DD_BLOCK_SIZE);
	uint8_t desc[DD_DESC_SIZE];

	if (idd_pread_all(fd, desc, sizeof(desc),
			  bs * (1 + (uint64_t)idd_le32(h + DD_SUB_HDR_SIZE) +
				idd_le32(h + DD_BITMAP_BLOCKS)))) {
		idd_diskdump_descs_to_le(desc, 1, big);
		flags = idd_le32(desc + 12) &
			(DD_ZLIB | DD_LZO | DD_SNAPPY | DD_ZSTD);
	}
	uint32_t methods = status & (DD_ZLIB | DD_LZO | DD_SNAPPY | DD_ZSTD);

	/* makedumpfile sets one method and a few flags (diskdump_mod.h) */
	if ((status & ~DD_STATUS_KNOWN) || (methods & (methods - 1)))
		idd_target_problem_add(t, "diskdump header: status 0x%x has "
				       "bits no writer sets together",
				       (unsigned)status);
	else if (flags & ~status)
		idd_target_problem_add(t, "diskdump header: status 0x%x does "
				       "not name its first page's compression "
				       "(flags 0x%x)", (unsigned)status,
				       (unsigned)flags);
}

void idd_diskdump_header_problems(struct idd_target *t, const uint8_t *h,
				  const uint8_t *sub, int fd, off_t size,
				  bool big)
{
	dump_level(t, h, sub, fd);
	erase_info(t, h, sub, size);
	utsname(t, h);
	compression(t, h, fd, big);
}

const char *idd_diskdump_writer(char *buf, size_t len, const char *sysname,
				const char *release, int32_t version,
				bool eraseinfo, uint64_t vmcoreinfo_pa)
{
	if (!sysname[0] && !release[0])
		snprintf(buf, len,
			 "not named in the header; its utsname holds no "
			 "system name and no release, as QEMU's "
			 "dump-guest-memory writes it (header version %d)",
			 (int)version);
	else
		snprintf(buf, len,
			 "not named in the header; its utsname is the dumped "
			 "kernel's (%s %s), as makedumpfile copies it (header "
			 "version %d%s)",
			 sysname, release, (int)version,
			 eraseinfo ? ", with erase information" : "");
	if (vmcoreinfo_pa)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "; no VMCOREINFO in its sub-header (a machine without "
			 "fw_cfg): the kernel's own, in its memory at physical "
			 "0x%llx, is read", (unsigned long long)vmcoreinfo_pa);
	return buf;
}
