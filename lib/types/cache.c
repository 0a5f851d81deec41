// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-kernel cache: what a run without vmlinux reads from the dump
 * (its BTF, its kallsyms decoded) kept under
 * $XDG_CACHE_HOME/inodedump/kernel/BUILD-ID/ (default ~/.cache), so the
 * next run on any dump of that kernel maps a file instead of inflating
 * thousands of dump pages. Keyed by the dump's VMCOREINFO BUILD-ID only:
 * a dump without one is never cached. A vmlinux's own (its DWARF index,
 * its inflated DWARF: dwarf_index.c, dwarf_inflate.c) are keyed by its
 * build-id. Files are written whole to a temporary name and renamed,
 * private to their user (directories 0700, files 0600); a reader checks
 * each one as untrusted input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "types/types.h"

#define CACHE_MAX_SIZE (256u << 20)

static bool hex_id(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return n >= 8 && n <= 128;
}

char *idd_cache_dir(const char *build_id)
{
	const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (getenv("INODEDUMP_NO_CACHE") || !build_id || !hex_id(build_id))
		return NULL;
	if (base && *base == '/')
		return idd_strdup_printf("%s/inodedump/kernel/%s", base, build_id);
	if (home && *home == '/')
		return idd_strdup_printf("%s/.cache/inodedump/kernel/%s", home,
					 build_id);
	return NULL;
}

void idd_cache_unmap(struct idd_cache_file *f)
{
	if (f->data)
		munmap(f->data, f->size);
	f->data = NULL;
	f->size = 0;
}

bool idd_cache_map(const char *dir, const char *name,
		   struct idd_cache_file *out)
{
	char path[4096];
	struct stat st;
	int fd;

	out->data = NULL;
	out->size = 0;
	if (!dir || snprintf(path, sizeof(path), "%s/%s", dir, name) >=
			    (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= CACHE_MAX_SIZE) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fd, 0);

		if (p != MAP_FAILED) {
			out->data = p;
			out->size = (size_t)st.st_size;
		}
	}
	close(fd);
	return out->data != NULL;
}

static bool mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return false;
		}
		*p = '/';
	}
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

int idd_cache_create(const char *dir, const char *name, char *tmp,
		     size_t tmp_size)
{
	/* Two sessions of one process may write at once: a name each. */
	static unsigned serial;
	unsigned n = __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
	char dirbuf[4096];

	if (!dir || snprintf(dirbuf, sizeof(dirbuf), "%s", dir) >=
			    (int)sizeof(dirbuf) ||
	    snprintf(tmp, tmp_size, "%s/%s.%ld.%u.tmp", dir, name,
		     (long)getpid(), n) >= (int)tmp_size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdirs(dirbuf))
		return -1;
	return open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		    0600);
}

bool idd_cache_commit(const char *dir, const char *name, const char *tmp)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		    (int)sizeof(path) ||
	    rename(tmp, path) != 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return false;
	}
	return true;
}

bool idd_cache_store(const char *dir, const char *name,
		     const struct idd_cache_part *parts, size_t nparts)
{
	char tmp[4096 + 64];
	int fd = idd_cache_create(dir, name, tmp, sizeof(tmp));
	bool ok = true;

	if (fd < 0)
		return false;
	for (size_t i = 0; ok && i < nparts; i++) {
		const char *p = parts[i].data;
		size_t left = parts[i].size;

		while (ok && left) {
			ssize_t w = write(fd, p, left);

			if (w < 0 && errno == EINTR)
				continue;
			ok = w > 0;
			if (ok) {
				p += w;
				left -= (size_t)w;
			}
		}
	}
	if (close(fd) != 0)
		ok = false;
	if (!ok) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return false;
	}
	return idd_cache_commit(dir, name, tmp);
}
