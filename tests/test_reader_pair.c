// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * QEMU's kdump-zlib of an arm64 guest (64 KiB blocks for a 4 KiB-page
 * kernel, which libkdumpfile 0.5.1 refuses: "Out-of-bounds PFN") read by
 * our diskdump reader, against an independent reading of it
 * (test_reader_pair.py: each kernel page's CRC-32), and its translations
 * against QEMU's ELF dump of the same guest (read by libkdumpfile in
 * test_reader.c; the guest ran on between the dumps, so bytes may differ).
 *
 *   test_reader_pair KDUMP ELF CRCS [VADDR...]
 *
 * - both are taken by our reader; the kdump's page size is the kernel's
 *   (VMCOREINFO), its frame count and states in kernel pages;
 * - every page in CRCS (a line "pagesize N", the kernel's, then "pfn
 *   crc" in hex, kernel pages): read, dumped,
 *   the same CRC-32; the frames after the last: not in the dump;
 * - every VADDR and the pages around it: the same translation in both,
 *   read with no fallback to libkdumpfile.
 * Prints "ok N" / "FAIL ..." lines; exits 1 on any failure.
 */
#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit/check.h"
#include "decode/session.h"

static struct idd_target *open_one(const char *path)
{
	struct idd_target *t;
	struct inodedump_error *err = idd_target_open(path, &t);

	if (err) {
		printf("FAIL open %s: %s\n", path, inodedump_error_message(err));
		exit(1);
	}
	CHECKF(!strcmp(idd_target_reader(t), "inodedump"),
	       "%s: read by %s, not by our reader", path, idd_target_reader(t));
	return t;
}

int main(int argc, char **argv)
{
	struct idd_target *kd, *elf;
	uint64_t psize, max, pages = 0, last = 0;
	static uint8_t a[65536], b[65536];
	unsigned long long pfn;
	unsigned crc;
	FILE *crcs;

	if (argc < 4) {
		fprintf(stderr,
			"usage: test_reader_pair KDUMP ELF CRCS [VADDR...]\n");
		return 2;
	}
	unsigned long kpage = 0;

	kd = open_one(argv[1]);
	elf = open_one(argv[2]);
	psize = idd_target_page_size(kd);
	crcs = fopen(argv[3], "r");
	if (!crcs || fscanf(crcs, "pagesize %lu", &kpage) != 1) {
		printf("FAIL %s: no page size\n", argv[3]);
		return 1;
	}
	CHECKF(psize == kpage && psize == idd_target_page_size(elf),
	       "page sizes: kdump %" PRIu64 ", ELF %" PRIu64 ", VMCOREINFO %lu",
	       psize, idd_target_page_size(elf), kpage);
	if (psize != kpage || psize > sizeof(a)) {
		printf("FAIL page size\n");
		return 1;
	}
	max = idd_target_max_pfn(kd);
	while (fscanf(crcs, "%llx %x", &pfn, &crc) == 2) {
		bool in_kd = idd_target_read_phys(kd, pfn * psize, a, psize);
		int state = idd_target_pfn_state(kd, pfn);
		unsigned ours = in_kd ? (unsigned)libdeflate_crc32(0, a, psize)
				      : 0;

		pages++;
		last = pfn;
		CHECKF(in_kd && ours == crc && state == IDD_PFN_DUMPED &&
			       pfn < max,
		       "pfn 0x%llx: %s, crc %08x want %08x, state %d, max_pfn "
		       "0x%" PRIx64, pfn, in_kd ? "read" : "not read", ours,
		       crc, state, max);
	}
	fclose(crcs);
	CHECKF(pages > 1000, "only %" PRIu64 " pages compared", pages);
	CHECKF(max == last + 1 || max > last,
	       "max_pfn 0x%" PRIx64 " below the last page 0x%" PRIx64, max,
	       last);
	CHECKF(!idd_target_read_phys(kd, max * psize, a, psize) &&
		       idd_target_pfn_state(kd, max) == IDD_PFN_NO_RAM,
	       "frame max_pfn 0x%" PRIx64 " read or said in RAM", max);
	for (int i = 4; i < argc; i++) {
		uint64_t base = strtoull(argv[i], NULL, 16) & ~(psize - 1);

		for (int64_t d = -2; d <= 2; d++) {
			uint64_t va = base + (uint64_t)d * psize, pa1 = 0, pa2 = 0;
			bool w1 = idd_target_walk(kd, va, &pa1),
			     w2 = idd_target_walk(elf, va, &pa2);
			struct inodedump_error *e1;

			CHECKF(w1 && w2 && pa1 == pa2,
			       "va 0x%" PRIx64 ": kdump %s 0x%" PRIx64
			       ", ELF %s 0x%" PRIx64, va, w1 ? "maps" : "fails",
			       pa1, w2 ? "maps" : "fails", pa2);
			e1 = idd_target_read(kd, va, b, psize);
			CHECKF(!e1 && !idd_target_fallbacks(kd),
			       "va 0x%" PRIx64 ": kdump %s", va,
			       e1 ? inodedump_error_message(e1) : "fell back");
			inodedump_error_free(e1);
		}
	}
	printf("%s %d checks, %d failed (%" PRIu64 " kernel pages; %s)\n",
	       failed ? "FAIL" : "ok", passed + failed, failed, pages, argv[1]);
	idd_target_close(kd);
	idd_target_close(elf);
	return failed ? 1 : 0;
}
