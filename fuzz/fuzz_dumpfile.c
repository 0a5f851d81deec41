// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target g: our own dump readers, lib/target/diskdump.c and elf.c, alone
 * (no libkdumpfile in the loop, so thousands of inputs a second instead of
 * the flattened target's dozens). The input is written to a memfd and
 * opened with idd_target_open_ours() by its /proc/self/fd path; an
 * accepted file is read at every physical address
 * that the input's last 64 bytes name (8 little-endian u64s), 64 bytes and
 * a page each, and its facts are asked for. A refusal is fine; a crash, a
 * leak, a hang or a read past a buffer is a finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("inodedump-fuzz-dumpfile", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct idd_target *t = NULL;
	struct inodedump_error *err;
	static uint8_t page[1 << 20];

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	err = idd_target_open_ours(path, &t);
	if (err) {
		if (!inodedump_error_message(err))
			abort();
		inodedump_error_free(err);
		return 0;
	}
	if (strcmp(idd_target_reader(t), "inodedump"))
		abort(); /* ours alone, never libkdumpfile */
	(void)idd_target_format(t);
	(void)idd_target_arch(t);
	(void)idd_target_uts_release(t);
	(void)idd_target_dump_level(t);
	(void)idd_target_vmcoreinfo(t, "OSRELEASE");
	if (idd_target_page_size(t) > sizeof(page))
		abort();
	for (size_t i = 0; i < 8 && size >= 64; i++) {
		uint64_t pa;

		memcpy(&pa, data + size - 64 + 8 * i, 8);
		(void)idd_target_read_phys(t, pa, page, 64);
		(void)idd_target_read_phys(t, pa & ~4095ull, page,
					   idd_target_page_size(t));
	}
	/* The seeds' own pages too. */
	for (uint64_t pa = 0; pa < 4 * 4096; pa += 4096)
		(void)idd_target_read_phys(t, pa, page, 4096);
	idd_target_close(t);
	return 0;
}
