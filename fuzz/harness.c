// SPDX-License-Identifier: LGPL-2.1-or-later
/* The memory-image fuzzers' shared session (see harness.h). */
#include "harness.h"
#include "decode/inode.h"

#include <stdlib.h>
#include <string.h>

#ifndef IDD_FUZZ_VMLINUX
#define IDD_FUZZ_VMLINUX "tests/vmcores/committed/vmlinux"
#endif
#ifndef IDD_FUZZ_VMCOREINFO
#define IDD_FUZZ_VMCOREINFO "fuzz/data/vmcoreinfo.txt"
#endif

static struct idd_memory_region regions[FUZZ_MAX_REGIONS];
static void *zero_bufs[FUZZ_MAX_REGIONS];
static size_t nzero;
static struct inodedump *session;

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *grown = realloc(buf, cap = len + 65536);

			if (!grown) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = grown;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

struct inodedump *fuzz_session(void)
{
	const char *vmlinux = env_or("IDD_FUZZ_VMLINUX", IDD_FUZZ_VMLINUX);
	const char *info_path = env_or("IDD_FUZZ_VMCOREINFO", IDD_FUZZ_VMCOREINFO);
	struct idd_target *t;
	struct inodedump_error *err;
	char *info;

	if (session)
		return session;
	info = slurp(info_path);
	if (!info) {
		fprintf(stderr, "fuzz: cannot read VMCOREINFO %s (run "
				"fuzz/tools/extract_seeds.py)\n", info_path);
		abort();
	}
	/*
	 * Every region empty until an input fills them. idd_open_target()
	 * goes through the session constructor inodedump_open() uses, so
	 * KASLR, build-id and the vmlinux check are the same as for a dump.
	 */
	err = idd_target_open_memory(regions, FUZZ_MAX_REGIONS, info, &t);
	free(info); /* parsed into the target */
	if (!err)
		err = idd_open_target(t, vmlinux, &session);
	if (err) {
		fprintf(stderr, "fuzz: cannot open a session with %s: %s\n",
			vmlinux, inodedump_error_message(err));
		abort();
	}
	return session;
}

void fuzz_image_release(void)
{
	for (size_t i = 0; i < nzero; i++)
		free(zero_bufs[i]);
	nzero = 0;
	memset(regions, 0, sizeof(regions));
}

size_t fuzz_image_load(const uint8_t *data, size_t size, uint64_t *first)
{
	size_t pos = 8, n = 0, zero_total = 0; /* after "IDDIMG1\n" */

	fuzz_image_release();
	*first = 0;
	while (pos + 16 <= size && n < FUZZ_MAX_REGIONS) {
		uint64_t start;
		uint32_t len, flags;

		memcpy(&start, data + pos, 8);
		memcpy(&len, data + pos + 8, 4);
		memcpy(&flags, data + pos + 12, 4);
		pos += 16;
		if (flags & 1) {
			void *buf;

			if (len > FUZZ_MAX_ZERO_BYTES - zero_total)
				continue; /* over budget: left out */
			zero_total += len;
			buf = calloc(len ? len : 1, 1);
			if (!buf)
				continue;
			zero_bufs[nzero++] = buf;
			regions[n++] = (struct idd_memory_region){ start, buf, len };
		} else {
			if (len > size - pos)
				len = (uint32_t)(size - pos);
			regions[n++] = (struct idd_memory_region){ start, data + pos,
								   len };
			pos += len;
		}
		if (n == 1)
			*first = start;
	}
	return n;
}

void fuzz_session_reset(void)
{
	struct inodedump *id = fuzz_session();

	idd_holders_free(id->holders);
	id->holders = NULL;
	idd_modules_free(id->modules);
	id->modules = NULL;
}

FILE *fuzz_sink(void)
{
	static FILE *sink;

	if (!sink)
		sink = getenv("IDD_FUZZ_VERBOSE") ? stdout : fopen("/dev/null", "w");
	if (!sink)
		abort();
	return sink;
}

void fuzz_session_warm(void)
{
	struct inodedump *id = fuzz_session();
	struct inodedump_inode *ino = calloc(1, sizeof(*ino));
	struct inodedump_error *err;

	/*
	 * Build the layouts the decode caches for the session (struct inode,
	 * the path walk's dentry/mount layout) over an empty image, so they
	 * do not depend on whichever input comes first: BTF cannot be read
	 * from an empty image, and struct mount comes from DWARF.
	 */
	fuzz_image_release();
	err = idd_layout_ready(id);
	if (err || !ino) {
		fprintf(stderr, "fuzz: no inode layout: %s\n",
			err ? inodedump_error_message(err) : "out of memory");
		abort();
	}
	err = idd_decode_paths(id, ino);
	if (err) {
		fprintf(stderr, "fuzz: path layout: %s\n",
			inodedump_error_message(err));
		abort();
	}
	inodedump_inode_free(ino);
	fuzz_session_reset();
}

struct inodedump_inode *fuzz_decode_image(const uint8_t *data, size_t size)
{
	struct inodedump_inode *ino = NULL;
	struct inodedump_error *err;
	uint64_t addr;

	if (!fuzz_image_load(data, size, &addr))
		return NULL;
	fuzz_session_reset();
	err = inodedump_decode(fuzz_session(), addr,
			       INODEDUMP_DECODE_FORCE | INODEDUMP_DECODE_HOLDERS,
			       &ino);
	if (err) {
		inodedump_error_free(err);
		fuzz_decode_done(NULL);
		return NULL;
	}
	return ino;
}

void fuzz_decode_done(struct inodedump_inode *ino)
{
	inodedump_inode_free(ino);
	fuzz_session_reset();
	fuzz_image_release();
}
