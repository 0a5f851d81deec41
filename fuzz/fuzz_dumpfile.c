// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target g: our own dump reader, lib/dumpfile.c, alone (no libkdumpfile in
 * the loop, so thousands of inputs a second instead of the flattened
 * target's dozens). The input is written to a memfd and opened with
 * idd_dumpfile_open(); an accepted file is read at every physical address
 * that the input's last 64 bytes name (8 little-endian u64s), 64 bytes and
 * a page each, and its facts are asked for. A refusal is fine; a crash, a
 * leak, a hang or a read past a buffer is a finding.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("inodedump-fuzz-dumpfile", 0);
	if (memfd < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct idd_dumpfile *d;
	static uint8_t page[1 << 20];

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	d = idd_dumpfile_open(memfd);
	if (!d)
		return 0;
	(void)idd_dumpfile_format(d);
	(void)idd_dumpfile_arch(d);
	(void)idd_dumpfile_release(d);
	if (!idd_dumpfile_vmcoreinfo(d))
		abort(); /* it takes no file without one */
	if (idd_dumpfile_page_size(d) > sizeof(page))
		abort();
	for (size_t i = 0; i < 8 && size >= 64; i++) {
		uint64_t pa;

		memcpy(&pa, data + size - 64 + 8 * i, 8);
		(void)idd_dumpfile_read(d, pa, page, 64);
		(void)idd_dumpfile_read(d, pa & ~4095ull, page,
					idd_dumpfile_page_size(d));
	}
	/* The seeds' own pages too. */
	for (uint64_t pa = 0; pa < 4 * 4096; pa += 4096)
		(void)idd_dumpfile_read(d, pa, page, 4096);
	idd_dumpfile_close(d);
	return 0;
}
