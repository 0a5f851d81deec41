// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * makedumpfile's flattened (streaming) format, which QEMU writes for its
 * kdump-* formats: a 4096-byte header, then records of a big-endian
 * (offset, size) pair and size bytes meant for that offset of the real
 * file, ended by offset -1. libkdumpfile 0.5.1 cannot read it, so the
 * records are put in place in a sparse in-memory file, which the other
 * backends then read as the dump.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "target/backend.h"

#define FLAT_SIGNATURE "makedumpfile"
#define FLAT_TYPE 1
#define FLAT_HEADER_SIZE 4096
#define FLAT_MAX_OFFSET (INT64_C(1) << 46)
#define FLAT_MAX_RECORD (INT64_C(1) << 30)

bool idd_flattened_is(int fd)
{
	char sig[16] = { 0 };
	int64_t type_be;

	return pread(fd, sig, sizeof(sig), 0) == (ssize_t)sizeof(sig) &&
	       !memcmp(sig, FLAT_SIGNATURE, sizeof(FLAT_SIGNATURE)) &&
	       pread(fd, &type_be, 8, 16) == 8 &&
	       be64toh((uint64_t)type_be) == FLAT_TYPE;
}

static struct inodedump_error *flat_error(const char *path, off_t at,
					  const char *what)
{
	return idd_error(INODEDUMP_ERR_DUMP,
			 "flattened dump %s: %s at file offset %lld", path, what,
			 (long long)at);
}

/* One record's bytes from in at *pos to out at offset. */
static struct inodedump_error *copy_record(const char *path, int in, int out,
					   off_t *pos, int64_t offset,
					   int64_t size, char *buf,
					   size_t bufsize)
{
	while (size > 0) {
		size_t n = size > (int64_t)bufsize ? bufsize : (size_t)size;
		ssize_t got = pread(in, buf, n, *pos);

		if (got <= 0)
			return flat_error(path, *pos, "truncated record");
		if (pwrite(out, buf, (size_t)got, offset) != got)
			return idd_error(INODEDUMP_ERR_DUMP,
					 "rearranging flattened dump %s: %s",
					 path, strerror(errno));
		*pos += got;
		offset += got;
		size -= got;
	}
	return NULL;
}

static struct inodedump_error *unflatten_into(const char *path, int in,
					      int out, char *buf,
					      size_t bufsize)
{
	off_t pos = FLAT_HEADER_SIZE;

	for (;;) {
		int64_t hdr[2], offset, size;
		struct inodedump_error *err;

		if (pread(in, hdr, sizeof(hdr), pos) != (ssize_t)sizeof(hdr))
			return flat_error(path, pos, "truncated before its end "
						     "marker");
		offset = (int64_t)be64toh((uint64_t)hdr[0]);
		size = (int64_t)be64toh((uint64_t)hdr[1]);
		if (offset == -1)
			return NULL;
		if (offset < 0 || size < 0 || size > FLAT_MAX_RECORD ||
		    offset > FLAT_MAX_OFFSET - size)
			return flat_error(path, pos, "corrupt record header");
		pos += (off_t)sizeof(hdr);
		err = copy_record(path, in, out, &pos, offset, size, buf,
				  bufsize);
		if (err)
			return err;
	}
}

struct inodedump_error *idd_flattened_unflatten(const char *path, int in,
						int *out)
{
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	int fd = memfd_create("inodedump-unflattened", MFD_CLOEXEC);
	struct inodedump_error *err;

	if (!buf || fd < 0)
		err = buf ? idd_error(INODEDUMP_ERR_DUMP, "memfd_create: %s",
				      strerror(errno))
			  : idd_nomem();
	else
		err = unflatten_into(path, in, fd, buf, CHUNK);
	free(buf);
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	*out = fd;
	return NULL;
}
