// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bare-read floor of a sweep (bench/sweep_bench.py): libkdumpfile
 * alone, none of inodedump's code, walking what --sweep walks and reading
 * two fields per inode, as drgn_bench.py's sweep does:
 *
 *   floor_probe VMCORE SUPER_BLOCKS S_LIST S_INODES I_SB_LIST I_MODE I_INO
 *
 * SUPER_BLOCKS: the symbol's address (hex, KASLR-adjusted by the caller);
 * the rest: member offsets (decimal), which the caller takes from the
 * vmlinux's DWARF with drgn. Per superblock: the s_list next pointer, the
 * s_inodes head; per inode: i_sb_list.next (the walk), i_mode (2 bytes),
 * i_ino (8 bytes): three kdump_read() calls of what is on the list, as a
 * minimal C walker would do. Prints "sb=HEX inodes=N" lines and "total=N".
 */
#include <fcntl.h>
#include <inttypes.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>

static kdump_ctx_t *ctx;
static volatile uint64_t sink; /* the fields read, so that they are read */

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

int main(int argc, char **argv)
{
	uint64_t head, s_list, s_inodes, i_sb_list, i_mode, i_ino, total = 0;
	int fd;

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
	fd = open(argv[1], O_RDONLY);
	ctx = kdump_new();
	if (fd < 0 || !ctx ||
	    kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_FD, fd) != KDUMP_OK ||
	    kdump_set_string_attr(ctx, KDUMP_ATTR_OSTYPE, "linux") != KDUMP_OK) {
		fprintf(stderr, "floor_probe: cannot open %s: %s\n", argv[1],
			ctx ? kdump_get_err(ctx) : "no context");
		return 1;
	}
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
	kdump_free(ctx);
	return 0;
}
