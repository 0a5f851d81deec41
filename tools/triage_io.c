// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files as vmcore-inode --triage reads and writes them (triage_io.h):
 * never a half-written result, never a result rewritten with its own bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "triage_io.h"

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		fputs("vmcore-inode: out of memory\n", stderr);
		exit(RUN_UNREADABLE);
	}
	return s;
}

/* A JSON string, quotes and all. */
void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
	     p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

char *path_join(const char *dir, const char *name)
{
	size_t l = strlen(dir);

	return xasprintf("%s%s%s", dir, l && dir[l - 1] == '/' ? "" : "/", name);
}

/* A whole (small) file into a malloc'd buffer; NULL when unreadable. */
char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *g = realloc(buf, cap = 2 * cap + 65536 + 1);

			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = g;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int write_atomic(const char *path, const char *data, size_t len,
			mode_t mode)
{
	char *dir = xasprintf("%s", path), *slash = strrchr(dir, '/'), *tmp;
	size_t old_len;
	char *old = slurp(path, &old_len);
	int fd, e = 0;

	if (old && old_len == len && !memcmp(old, data, len)) {
		free(old);
		free(dir);
		return 0;
	}
	free(old);
	if (slash)
		slash[1] = '\0';
	else
		strcpy(dir, "./");
	tmp = xasprintf("%s.inodedump-tmp.XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		off += (size_t)w;
	}
	if (!e && (fchmod(fd, mode) || fsync(fd)))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e) {
		unlink(tmp);
	} else {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
out:
	free(tmp);
	free(dir);
	return e;
}
