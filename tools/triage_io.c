// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files as vmcore-inode --triage reads and writes them (triage_io.h):
 * nothing below DIR followed, waited on or read without bound; never a
 * half-written result, never a result rewritten with its own bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inodedump.h"
#include "run.h"
#include "triage_io.h"

/* Opened below DIR: no symlink followed, no FIFO waited on, no new tty. */
#define BENEATH (O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

void out_of_memory(void)
{
	fputs("vmcore-inode: out of memory\n", stderr);
	exit(RUN_UNREADABLE);
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size);

	if (!q)
		out_of_memory();
	return q;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		out_of_memory();
	return s;
}

void json_str(FILE *f, const char *s)
{
	inodedump_print_json_string(s ? s : "", f);
}

void text_str(FILE *f, const char *s)
{
	inodedump_print_escaped(s ? s : "", s ? strlen(s) : 0, f);
}

/* What print writes of s, as a malloc'd string. */
static char *printed(void (*print)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		out_of_memory();
	print(f, s);
	if (fclose(f))
		out_of_memory();
	return buf;
}

char *escaped(const char *s)
{
	return printed(text_str, s);
}

char *json_inside(const char *s)
{
	char *q = printed(json_str, s);
	size_t len = strlen(q);

	memmove(q, q + 1, len - 2); /* the quotes off */
	q[len - 2] = '\0';
	return q;
}

char *path_join(const char *dir, const char *name)
{
	size_t l = strlen(dir);

	return xasprintf("%s%s%s", dir, l && dir[l - 1] == '/' ? "" : "/", name);
}

const char *not_regular(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return NULL;
	case S_IFLNK: return "a symbolic link: not followed below the directory";
	case S_IFIFO: return "a FIFO, not a regular file";
	case S_IFCHR: return "a character device, not a regular file";
	case S_IFBLK: return "a block device, not a regular file";
	case S_IFSOCK: return "a socket, not a regular file";
	case S_IFDIR: return "a directory, not a regular file";
	default: return "not a regular file";
	}
}

/* name in dfd opened for reading: a regular file, or -1 and *why. */
/* FNV-1a over len bytes of fd from off: false when they cannot be read. */
static bool hash_range(int fd, off_t off, size_t len, uint64_t *hash)
{
	unsigned char buf[4096];

	while (len) {
		ssize_t n = pread(fd, buf, len < sizeof(buf) ? len : sizeof(buf),
				  off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO; /* shorter than fstat said */
			return false;
		}
		for (ssize_t i = 0; i < n; i++)
			*hash = (*hash ^ buf[i]) * 0x100000001b3ULL;
		off += n;
		len -= (size_t)n;
	}
	return true;
}

bool dump_fingerprint(int fd, off_t size, uint64_t *hash)
{
	size_t head = (uint64_t)size < TRIAGE_HEAD_BYTES ? (size_t)size
							  : TRIAGE_HEAD_BYTES;
	size_t tail = (uint64_t)size - head < TRIAGE_TAIL_BYTES
			      ? (size_t)size - head
			      : TRIAGE_TAIL_BYTES;

	*hash = 0xcbf29ce484222325ULL;
	return hash_range(fd, 0, head, hash) &&
	       hash_range(fd, size - (off_t)tail, tail, hash);
}

static int open_regular(int dfd, const char *name, const char **why)
{
	struct stat st;
	int fd;

	/* Looked at first: a device is never opened (a tape rewinds). */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		*why = strerror(errno);
		return -1;
	}
	if ((*why = not_regular(st.st_mode))) {
		errno = EINVAL;
		return -1;
	}
	fd = openat(dfd, name, O_RDONLY | BENEATH);
	if (fd < 0) {
		*why = errno == ELOOP ? not_regular(S_IFLNK) : strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) || (*why = not_regular(st.st_mode))) {
		if (!*why)
			*why = strerror(errno);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

char *read_beneath(int dfd, const char *name, size_t max, size_t *len,
		   bool *cut, const char **why)
{
	int fd = open_regular(dfd, name, why);
	size_t n = 0, cap = 0;
	char *buf = NULL, extra;

	*cut = false;
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t got;

		if (n == cap) {
			size_t want = cap ? 2 * cap : 65536;

			cap = want > max ? max : want;
			buf = xrealloc(buf, cap + 1);
		}
		if (n == max) {
			/* One byte more says whether the file was cut. */
			while ((got = read(fd, &extra, 1)) < 0 && errno == EINTR)
				;
			*cut = got > 0;
			break;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*why = strerror(errno);
			free(buf);
			close(fd);
			return NULL;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* A temporary name no one can have prepared: created with O_EXCL. */
static int create_temp(int dfd, char *name, size_t size)
{
	for (int tries = 0; tries < 100; tries++) {
		unsigned long long r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r ^= (unsigned long long)getpid() << 32 ^ (unsigned)tries;
		snprintf(name, size, ".inodedump-tmp.%016llx", r);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | BENEATH, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* name in dfd holds exactly data: nothing to write. */
static bool holds(int dfd, const char *name, const char *data, size_t len)
{
	const char *why;
	size_t old_len;
	bool cut, same;
	char *old = read_beneath(dfd, name, len, &old_len, &cut, &why);

	same = old && !cut && old_len == len && !memcmp(old, data, len);
	free(old);
	return same;
}

static int write_all(int fd, const char *data, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno != EINTR)
			return errno;
		if (w > 0)
			off += (size_t)w;
	}
	return 0;
}

int write_beneath(int dfd, const char *name, const char *data, size_t len,
		  mode_t mode, const char **why)
{
	char tmp[64];
	struct stat st;
	int fd, e = 0;

	*why = NULL;
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		/* Replaced by rename it would be harmless; but it is not ours. */
		if ((*why = not_regular(st.st_mode)))
			return EEXIST;
		if (holds(dfd, name, data, len))
			return 0;
	}
	fd = create_temp(dfd, tmp, sizeof(tmp));
	if (fd < 0)
		return errno;
	e = write_all(fd, data, len);
	if (!e && (fchmod(fd, mode) || fsync(fd)))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && renameat(dfd, tmp, dfd, name))
		e = errno;
	if (e)
		unlinkat(dfd, tmp, 0);
	else
		fsync(dfd);
	return e;
}
