/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: what a backend gives the generic target (target.c). One file
 * per backend, each behind a struct idd_backend_ops, as libkdumpfile's
 * format_ops: diskdump.c and elf.c (our readers), kdumpfile.c
 * (libkdumpfile by dlopen: /proc/kcore, other formats, and the reads ours
 * cannot do), memory.c (buffers), reader.c (a caller's reader). The page
 * walk (x86_64.c) reads page tables through read_phys. Not installed.
 */
#ifndef IDD_TARGET_BACKEND_H
#define IDD_TARGET_BACKEND_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "target/target.h"

struct idd_backend;

struct idd_backend_ops {
	/* Who reads the file: idd_target_reader(). */
	const char *reader;
	/* Who translates addresses when our page walk does not. */
	const char *translation;
	/*
	 * The backend's read_virt is the only translation (a memory image,
	 * a caller's reader): our walk is not tried and no read is a
	 * fallback.
	 */
	bool translates;
	/* Bytes at a physical address, all or false; NULL: none. */
	bool (*read_phys)(struct idd_backend *b, uint64_t pa, void *buf,
			  size_t len);
	/*
	 * Bytes at a kernel virtual address by the backend's translation,
	 * with the error that says why not. NULL (our readers): what our
	 * walk cannot read goes to libkdumpfile over the same file.
	 */
	struct inodedump_error *(*read_virt)(struct idd_backend *b,
					     uint64_t addr, void *buf,
					     size_t len);
	/* The facts; each may be NULL (no answer). */
	const char *(*format)(struct idd_backend *b);
	const char *(*arch)(struct idd_backend *b);
	uint64_t (*page_size)(struct idd_backend *b);
	/* Whence page_size() took it when not its header; NULL: the header. */
	const char *(*page_size_whence)(struct idd_backend *b);
	const char *(*uts_release)(struct idd_backend *b);
	int (*dump_level)(struct idd_backend *b);
	/* The pages' compression, and what the header shows of its writer. */
	const char *(*compression)(struct idd_backend *b);
	const char *(*writer)(struct idd_backend *b);
	/* A page frame in the dump's bitmaps (IDD_PFN_*), below max_pfn. */
	int (*pfn_state)(struct idd_backend *b, uint64_t pfn);
	uint64_t (*max_pfn)(struct idd_backend *b);
	/*
	 * The order the headers (or libkdumpfile) say, which the kernel's
	 * may not be (QEMU's pseries ELF and kdump: big-endian headers, a
	 * little-endian kernel): an architecture whose walk is ours says it.
	 */
	bool (*little_endian)(struct idd_backend *b);
	/* The VMCOREINFO text, read once by the target at open. */
	const char *(*vmcoreinfo)(struct idd_backend *b);
	/*
	 * Its size as the file gives it, NULs included (so that a NUL inside
	 * the text is seen); NULL: strlen() of it.
	 */
	size_t (*vmcoreinfo_size)(struct idd_backend *b);
	/*
	 * The backend keeps a default architecture itself (libkdumpfile
	 * needs it for its own translation); else the target answers with
	 * the default when arch() has none.
	 */
	void (*set_default_arch)(struct idd_backend *b, const char *arch);
	/* False when physical addresses are not the machine's (Xen). */
	bool (*machine_physical)(struct idd_backend *b);
	/*
	 * Drop every page and file block read so far, so that the next read
	 * reads the file again (/proc/kcore: the live kernel's memory as it
	 * is now); false when it could not. NULL: the backend keeps nothing.
	 */
	bool (*forget)(struct idd_backend *b);
	void (*close)(struct idd_backend *b);
};

struct idd_backend {
	const struct idd_backend_ops *ops;
	struct idd_target *target; /* the facts a backend's messages need */
	/*
	 * Set by a read_phys that returned false: damage it found (owned;
	 * the target reports it and never asks libkdumpfile, which would
	 * trust it), or the page is left out of the dump by its writer.
	 */
	struct inodedump_error *damage;
	bool absent;
};

/* ---- the generic target, for backends (target.c) ---- */
/* A target with no backend yet. */
struct idd_target *idd_target_new(void);
/* Give t its backend (owned from now): format, byte order, VMCOREINFO. */
void idd_target_attach(struct idd_target *t, struct idd_backend *b);
void idd_target_parse_vmcoreinfo(struct idd_target *t, const char *raw);
/*
 * What a backend's header breaks that it still reads through (program
 * headers that disagree): one line, made a note of the session as
 * VMCOREINFO's problems are (idd_target_problem()). At most
 * IDD_TARGET_PROBLEMS_MAX; a backend says one line per kind.
 */
#define IDD_TARGET_PROBLEMS_MAX 4
void idd_target_problem_add(struct idd_target *t, const char *fmt, ...)
	IDD_ATTR_PRINTF(2, 3);
/*
 * Why our reader does not take a file in a format it reads (its header
 * says what it cannot read, or what is damaged): the first reason is
 * kept, and said as a problem when libkdumpfile reads the file instead.
 */
void idd_target_declined(struct idd_target *t, const char *fmt, ...)
	IDD_ATTR_PRINTF(2, 3);
/*
 * A dump our reader does not take for its machine (an ELF machine, none
 * whose walk we have): damage when VMCOREINFO names one we walk (or the
 * machine is none at all), said then as a problem; else another
 * machine's dump, libkdumpfile's to read.
 */
void idd_target_declined_machine(struct idd_target *t, unsigned machine);
/*
 * A read libkdumpfile could not do of a page that is not in the dump,
 * in a format whose writer leaves pages out on purpose: the error that
 * says so, with the dump level; NULL when the format leaves none out.
 */
struct inodedump_error *idd_target_filtered(struct idd_target *t,
					    uint64_t addr, uint64_t phys);

/* ---- backends ---- */
/*
 * Each file format's header is read here once, by its probe: a header
 * that does not fit its file is refused with an error (libkdumpfile
 * 0.5.1 would trust it); otherwise *out is our reader's backend when it
 * takes the file (ours is false: not even tried), else NULL.
 */
struct inodedump_error *idd_diskdump_probe(struct idd_target *t,
					   const char *path, int fd,
					   off_t size, bool ours,
					   int *dump_level,
					   struct idd_backend **out);
struct inodedump_error *idd_elf_probe(struct idd_target *t, const char *path,
				      int fd, off_t size, bool ours,
				      struct idd_backend **out);
/*
 * The VMCOREINFO note among the ELF notes at [off, off + size) of fd
 * (malloc'd text, NUL-ended; *found_size its descsz), or NULL; *xen set
 * when a Xen note is among them (elf.c, for kcore.c too).
 */
char *idd_elf_find_vmcoreinfo(int fd, uint64_t off, uint64_t size, bool le,
			      bool *xen, size_t *found_size);
/*
 * /proc/kcore by our reader (kcore.c): kernel virtual addresses straight
 * through its PT_LOADs, no page walk. NULL and *out NULL when it does
 * not take the file (the reason given to idd_target_declined()).
 */
struct inodedump_error *idd_kcore_probe(struct idd_target *t,
					const char *path, int fd,
					struct idd_backend **out);
/* makedumpfile's flattened format, rearranged into a memfd (flattened.c). */
bool idd_flattened_is(int fd);
struct inodedump_error *idd_flattened_unflatten(const char *path, int in,
						int *out);
/*
 * libkdumpfile on fd (borrowed): dump_level is what our header parse
 * found (-1 when none), default_arch names the machine when the header
 * does not ("" for none). It runs in a child process (sandbox.c), so a
 * crash in it is an error; idd_kdumpfile_open_here() (kdumpfile.c) is
 * the same in this process, for that child.
 */
struct inodedump_error *idd_kdumpfile_open(struct idd_target *t, int fd,
					   const char *path, int dump_level,
					   const char *default_arch,
					   struct idd_backend **out);
struct inodedump_error *idd_kdumpfile_open_here(struct idd_target *t, int fd,
						const char *path,
						int dump_level,
						const char *default_arch,
						struct idd_backend **out);
/* Whether t has its backend yet (the child attaches its own). */
bool idd_target_has_backend(const struct idd_target *t);

/* ---- the pages a reader last read (pagecache.c) ---- */
#define IDD_PAGE_CACHE_WAYS 4u
struct idd_page_cache {
	size_t page_size, nsets; /* nsets: a power of two */
	uint64_t *pfn;		 /* each slot's frame; UINT64_MAX: empty */
	uint8_t *next_way;	 /* each set's next slot to fill */
	uint8_t *pages;		 /* nsets * IDD_PAGE_CACHE_WAYS pages */
};
/* false: out of memory (idd_page_cache_free() all the same). */
bool idd_page_cache_init(struct idd_page_cache *c, size_t page_size);
void idd_page_cache_free(struct idd_page_cache *c);
/*
 * The page of frame pfn: cached, or read into a slot by fill(arg, pfn,
 * page); NULL when fill fails (nothing is cached then).
 */
const uint8_t *idd_page_cache_get(struct idd_page_cache *c, uint64_t pfn,
				  bool (*fill)(void *arg, uint64_t pfn,
					       uint8_t *page),
				  void *arg);

/* ---- file helpers for the backends ---- */
static inline bool idd_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	if (off > INT64_MAX)
		return false;
	while (len) {
		ssize_t got = pread(fd, p, len, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p += got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return true;
}

/* Up to len bytes at off: how many the file has there. */
static inline size_t idd_pread_upto(int fd, void *buf, size_t len,
				    uint64_t off)
{
	uint8_t *p = buf;
	size_t done = 0;

	while (done < len && off + done <= INT64_MAX) {
		ssize_t got = pread(fd, p + done, len - done,
				    (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	return done;
}

static inline uint16_t idd_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t idd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t idd_le64(const uint8_t *p)
{
	return idd_le32(p) | (uint64_t)idd_le32(p + 4) << 32;
}

#endif
