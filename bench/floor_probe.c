// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bare-read floor of a sweep (bench/sweep_bench.py): walking what
 * --sweep walks and reading two fields per inode, as drgn_bench.py's sweep
 * does, through one reader and nothing else:
 *
 *   floor_probe VMCORE SUPER_BLOCKS S_LIST S_INODES I_SB_LIST I_MODE I_INO
 *
 * Built two ways: as it is, libkdumpfile alone (kdump_read(), none of
 * inodedump's code; sweep_bench.py compiles it); with -DFLOOR_OURS (meson:
 * build/floor_ours), inodedump's own reader (lib/target: our diskdump and
 * ELF readers, our page walk, the decompressed-page cache) and nothing of
 * the decode.
 *
 * SUPER_BLOCKS: the symbol's address (hex, KASLR-adjusted by the caller);
 * the rest: member offsets (decimal), which the caller takes from the
 * vmlinux's DWARF with drgn. Per superblock: the s_list next pointer, the
 * s_inodes head; per inode: i_sb_list.next (the walk), i_mode (2 bytes),
 * i_ino (8 bytes): three reads of what is on the list, as a minimal C
 * walker would do. Prints "sb=HEX inodes=N" lines and "total=N".
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink; /* the fields read, so that they are read */

#ifdef FLOOR_OURS
#include "target/target.h"

static struct idd_target *t;

static uint64_t rd(uint64_t addr, size_t size)
{
	uint64_t v = 0;
	struct inodedump_error *err = idd_target_read(t, addr, &v, size);

	if (err) {
		fprintf(stderr, "floor_probe: read 0x%" PRIx64 ": %s\n", addr,
			inodedump_error_message(err));
		exit(1);
	}
	return v;
}

static int open_dump(const char *path)
{
	struct inodedump_error *err = idd_target_open(path, &t);

	if (err) {
		fprintf(stderr, "floor_probe: cannot open %s: %s\n", path,
			inodedump_error_message(err));
		return -1;
	}
	/* QEMU's ELF headers name no machine; a session takes vmlinux's. */
	idd_target_default_arch(t, "x86_64");
	return 0;
}

static void close_dump(void)
{
	printf("reader=%s\n", idd_target_reader(t));
	idd_target_close(t);
}
#else
#include <libkdumpfile/kdumpfile.h>

static kdump_ctx_t *ctx;

static uint64_t rd(uint64_t addr, size_t size)
{
	uint64_t v = 0;
	size_t got = size;

	if (kdump_read(ctx, KDUMP_KVADDR, addr, &v, &got) != KDUMP_OK ||
	    got != size) {
		fprintf(stderr, "floor_probe: read 0x%" PRIx64 ": %s\n", addr,
			kdump_get_err(ctx));
		exit(1);
	}
	return v;
}

static int open_dump(const char *path)
{
	int fd = open(path, O_RDONLY);

	ctx = kdump_new();
	if (fd < 0 || !ctx ||
	    kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_FD, fd) != KDUMP_OK ||
	    kdump_set_string_attr(ctx, KDUMP_ATTR_OSTYPE, "linux") != KDUMP_OK) {
		fprintf(stderr, "floor_probe: cannot open %s: %s\n", path,
			ctx ? kdump_get_err(ctx) : "no context");
		return -1;
	}
	return 0;
}

static void close_dump(void)
{
	kdump_free(ctx);
}
#endif

int main(int argc, char **argv)
{
	uint64_t head, s_list, s_inodes, i_sb_list, i_mode, i_ino, total = 0;

	if (argc != 8) {
		fprintf(stderr, "usage: floor_probe VMCORE SUPER_BLOCKS S_LIST "
				"S_INODES I_SB_LIST I_MODE I_INO\n");
		return 2;
	}
	head = strtoull(argv[2], NULL, 16);
	s_list = strtoull(argv[3], NULL, 10);
	s_inodes = strtoull(argv[4], NULL, 10);
	i_sb_list = strtoull(argv[5], NULL, 10);
	i_mode = strtoull(argv[6], NULL, 10);
	i_ino = strtoull(argv[7], NULL, 10);
	if (open_dump(argv[1]))
		return 1;
	for (uint64_t node = rd(head, 8); node != head; node = rd(node, 8)) {
		uint64_t sb = node - s_list, ihead = sb + s_inodes, n = 0;

		for (uint64_t in = rd(ihead, 8); in != ihead; in = rd(in, 8)) {
			uint64_t inode = in - i_sb_list;

			sink += rd(inode + i_mode, 2) + rd(inode + i_ino, 8);
			n++;
		}
		printf("sb=%" PRIx64 " inodes=%" PRIu64 "\n", sb, n);
		total += n;
	}
	printf("total=%" PRIu64 "\n", total);
	close_dump();
	return 0;
}
