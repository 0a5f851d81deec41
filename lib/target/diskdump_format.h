/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: makedumpfile's compressed kdump (diskdump) format as a file
 * (makedumpfile's diskdump_mod.h: struct disk_dump_header, then struct
 * kdump_sub_header at block_size), not a kernel's layout; shared by our
 * reader (diskdump.c) and the header's checks (diskdump_check.c).
 */
#ifndef IDD_TARGET_DISKDUMP_FORMAT_H
#define IDD_TARGET_DISKDUMP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DD_SIGNATURE "KDUMP   "
#define DD_ZLIB 0x1
#define DD_LZO 0x2
#define DD_SNAPPY 0x4
#define DD_INCOMPLETE 0x8
#define DD_ZSTD 0x20
/* DUMP_DH_EXCLUDED_VMEMMAP 0x10 and the above: every status bit defined */
#define DD_STATUS_KNOWN 0x3fu
#define DD_MAX_PAGE (1u << 20)
/* disk_dump_header */
#define DD_HEADER_SIZE 464
#define DD_VERSION 8
#define DD_UTSNAME 12 /* six fields of 65 bytes */
#define DD_UTS_FIELD 65
#define DD_STATUS 424
#define DD_BLOCK_SIZE 428
#define DD_SUB_HDR_SIZE 432
#define DD_BITMAP_BLOCKS 436
/* kdump_sub_header */
#define DD_SUB_SIZE 104
#define DD_SUB_DUMP_LEVEL 8
#define DD_SUB_SPLIT 12
#define DD_SUB_VMCOREINFO 32 /* offset, size; then the notes' */
#define DD_SUB_ERASEINFO 64 /* offset, size */
#define DD_SUB_MAX_PFN 96
#define DD_DESC_SIZE 24	       /* page_desc: offset, size, flags, page_flags */

struct idd_target;

/*
 * The byte order (diskdump_order.c): whether a header (len bytes) is
 * big-endian; its fields, a sub-header's (either may be NULL) and n page
 * descriptors put in little-endian in place, as the readers read them.
 */
bool idd_diskdump_big_endian(const uint8_t *h, size_t len);
void idd_diskdump_header_to_le(uint8_t *h, size_t h_len, uint8_t *sub,
			       size_t sub_len);
void idd_diskdump_descs_to_le(uint8_t *descs, size_t n, bool big);

/*
 * The header's fields --info shows, against the rest of the file: what
 * no writer leaves so is a problem of the target (a note, exit 4), never
 * echoed as a fact. h: DD_HEADER_SIZE bytes, sub: DD_SUB_SIZE.
 */
void idd_diskdump_header_problems(struct idd_target *t, const uint8_t *h,
				  const uint8_t *sub, int fd, off_t size,
				  bool big);

/*
 * The format has no field that names its writer; what the header shows
 * of it into buf: makedumpfile copies the dumped kernel's utsname, QEMU's
 * dump-guest-memory fills only the machine (or "Unknown") and no release;
 * vmcoreinfo_pa: none in the sub-header, the kernel's own read from there.
 */
const char *idd_diskdump_writer(char *buf, size_t len, const char *sysname,
				const char *release, int32_t version,
				bool eraseinfo, uint64_t vmcoreinfo_pa);

#endif
