// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target c: opening a dump file, idd_target_open(). The input is written to
 * a memfd and opened by its /proc/self/fd path, so a flattened input
 * ("makedumpfile" signature, type 1) goes through idd_flattened_is() and
 * idd_flattened_unflatten() (lib/target/flattened.c), and the rearranged
 * file (or the input itself) through the header probes and our readers
 * or libkdumpfile. An open target is then queried
 * the way inodedump_open() and a decode do: format, VMCOREINFO, dump level,
 * arch, page size, release, and reads at the fixture's kernel addresses
 * (which exercise read_failure() and the page-table translation).
 */
#include <fcntl.h>
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
	memfd = memfd_create("inodedump-fuzz-input", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

static void query(struct idd_target *t)
{
	/*
	 * prb, printk_rb_static and the victim inode of the committed 7.3
	 * fixture, then of the 6.12 fixture set whose QEMU flattened dump
	 * the qemu-*.flat seeds are cut from.
	 */
	static const uint64_t addrs[] = { 0xffffffff982261a8ull,
					  0xffffffff982261c0ull,
					  0xff32e18500945b40ull,
					  0xffffffffad223a48ull,
					  0xffffffffad223a60ull,
					  0xff1d10f6c0308070ull, 0 };
	static const char *const keys[] = { "OSRELEASE", "BUILD-ID",
					    "KERNELOFFSET", "SYMBOL(prb)",
					    "PAGESIZE" };
	uint8_t buf[64];

	(void)idd_target_format(t);
	(void)idd_target_dump_level(t);
	(void)idd_target_little_endian(t);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		(void)idd_target_vmcoreinfo(t, keys[i]);
	/* As inodedump_open() does when the header names no machine. */
	idd_target_default_arch(t, "x86_64");
	(void)idd_target_arch(t);
	(void)idd_target_page_size(t);
	(void)idd_target_uts_release(t);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct inodedump_error *err;
		char *s = NULL;
		bool truncated;

		err = idd_target_read(t, addrs[i], buf, sizeof(buf));
		inodedump_error_free(err);
		err = idd_target_read_string(t, addrs[i], 32, &s, &truncated);
		if (!err)
			free(s);
		inodedump_error_free(err);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct idd_target *t = NULL;
	struct inodedump_error *err;

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	err = idd_target_open(path, &t);
	if (err) {
		if (!inodedump_error_message(err))
			abort();
		inodedump_error_free(err);
		return 0;
	}
	query(t);
	idd_target_close(t);
	return 0;
}
