// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mktree ROOT FIRST END: the big set's inode tree (tests/vmcores/big.sh).
 * Creates entries FIRST..END-1 under ROOT as a tree, not one flat directory:
 * ROOT/bBB/dDDDDD/<entry>, 100 entries per leaf directory, 100 leaf
 * directories per bucket. Of every 20 entries: 14 regular files (every
 * fourth one with a few bytes), 3 symlinks (short targets, relative), 2
 * directories, 1 regular file with a second hard link in the same leaf.
 * Built static for the initramfs: the guest runs under TCG, where a shell
 * loop would take minutes. Prints "mktree: ROOT first=N end=N inodes=N" with the
 * number of inodes it created (directories included, hard links not).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long made;

static void mk_dir(const char *p)
{
	if (mkdir(p, 0755) == 0)
		made++;
	else if (errno != EEXIST) {
		fprintf(stderr, "mktree: mkdir %s: %s\n", p, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char path[4096], other[4096], target[64];
	long first, end;

	if (argc != 4) {
		fprintf(stderr, "usage: mktree ROOT FIRST END\n");
		return 2;
	}
	first = atol(argv[2]);
	end = atol(argv[3]);
	mk_dir(argv[1]);
	for (long i = first; i < end; i++) {
		long leaf = i / 100, bucket = leaf / 100;
		int kind = (int)(i % 20);
		int n = snprintf(path, sizeof(path), "%s/b%03ld", argv[1], bucket);

		if (i == first || i % 10000 == 0)
			mk_dir(path);
		n += snprintf(path + n, sizeof(path) - n, "/d%06ld", leaf);
		if (i == first || i % 100 == 0)
			mk_dir(path);
		if (kind < 14 || kind == 19) {
			int fd;

			snprintf(path + n, sizeof(path) - n, "/f%07ld", i);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0) {
				fprintf(stderr, "mktree: %s: %s\n", path, strerror(errno));
				return 1;
			}
			if (i % 4 == 0 && write(fd, "inodedump\n", 10) != 10) {
				fprintf(stderr, "mktree: write %s\n", path);
				return 1;
			}
			close(fd);
			made++;
			if (kind == 19) {
				memcpy(other, path, (size_t)n);
				snprintf(other + n, sizeof(other) - n, "/h%07ld", i);
				if (link(path, other)) {
					fprintf(stderr, "mktree: link %s: %s\n", other, strerror(errno));
					return 1;
				}
			}
		} else if (kind < 17) {
			snprintf(path + n, sizeof(path) - n, "/s%07ld", i);
			snprintf(target, sizeof(target), "f%07ld", i - kind);
			if (symlink(target, path)) {
				fprintf(stderr, "mktree: symlink %s: %s\n", path, strerror(errno));
				return 1;
			}
			made++;
		} else {
			snprintf(path + n, sizeof(path) - n, "/sub%07ld", i);
			mk_dir(path);
		}
	}
	printf("mktree: %s first=%ld end=%ld inodes=%ld\n", argv[1], first, end, made);
	return 0;
}
