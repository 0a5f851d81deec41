/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* target: the dump's memory by kernel address, and VMCOREINFO. */
#ifndef IDD_TARGET_TARGET_H
#define IDD_TARGET_TARGET_H

#include "core/error.h"

struct inodedump;

/*
 * ---- target: the dump's memory and VMCOREINFO ----
 * One interface over backends (backend.h), one file each: diskdump.c and
 * elf.c (our readers), flattened.c, kdumpfile.c (libkdumpfile by dlopen),
 * memory.c, reader.c; the page walk in x86_64.c; what they share in
 * target.c.
 */
struct idd_target;

/* A dump file or /proc/kcore: our reader if it takes it, else libkdumpfile. */
struct inodedump_error *idd_target_open(const char *path,
					struct idd_target **out);
/*
 * Our readers alone, never libkdumpfile (the fuzzer of our readers): an
 * error when they do not take the file. No flattened files.
 */
struct inodedump_error *idd_target_open_ours(const char *path,
					     struct idd_target **out);
/*
 * A file as our /proc/kcore reader reads /proc/kcore (kcore.c), whatever
 * its filesystem: tests of that reader on ELF cores written by them.
 */
struct inodedump_error *idd_target_open_kcore(const char *path,
					      struct idd_target **out);
/*
 * Open path read-only without blocking on a FIFO: a regular file (or a
 * block device when devices), else -1 and *why says what it is.
 */
int idd_open_input(const char *path, bool devices, const char **why);
/* Kernel memory held in a buffer: [start, start + size). */
struct idd_memory_region {
	uint64_t start;
	const uint8_t *data;
	size_t size;
};
/* A target over buffers (tests, fuzzers); regions must outlive it. */
struct inodedump_error *idd_target_open_memory(
	const struct idd_memory_region *regions, size_t n,
	const char *vmcoreinfo, struct idd_target **out);
/*
 * A target over a caller's reader: every read goes to read(..., false,
 * arg); vmcoreinfo (may be NULL) is the kernel's VMCOREINFO text.
 */
struct inodedump_error *idd_target_open_reader(inodedump_read_fn read,
					       void *arg,
					       const char *vmcoreinfo,
					       struct idd_target **out);
/*
 * Physical memory in buffers, our page walk translating from VMCOREINFO
 * (tests of the walk); arch names the machine ("x86_64"), pages of 4 KiB.
 */
struct inodedump_error *idd_target_open_physical(
	const struct idd_memory_region *regions, size_t n, const char *arch,
	const char *vmcoreinfo, struct idd_target **out);
/* Not a file: a memory image or a caller's reader. */
bool idd_target_is_memory(const struct idd_target *t);
/* Who reads the file ("inodedump", "libkdumpfile", "memory") and who
 * translates addresses; reads libkdumpfile did because ours could not. */
const char *idd_target_reader(const struct idd_target *t);
const char *idd_target_translation(struct idd_target *t);
unsigned long idd_target_fallbacks(const struct idd_target *t);
/* For tests: a physical read, and our page-table walk alone. */
bool idd_target_read_phys(struct idd_target *t, uint64_t pa, void *buf,
			  size_t len);
bool idd_target_walk(struct idd_target *t, uint64_t va, uint64_t *pa);
/* Name the architecture when the dump's header does not. */
void idd_target_default_arch(struct idd_target *t, const char *arch);
const char *idd_target_arch(struct idd_target *t);
/* The architecture VMCOREINFO's own keys imply, or NULL. */
const char *idd_target_vmcoreinfo_arch(struct idd_target *t);
/* libkdumpfile's name of ELF machine EM_* (is64: ELFCLASS64), or NULL. */
const char *idd_target_arch_of_elf(unsigned machine, bool is64);
/* The ELF machine (EM_*) of an architecture whose walk we have, or 0. */
unsigned idd_target_arch_elf_machine(const char *name);
/* Whether two names are one architecture ("arm64" is "aarch64"). */
bool idd_target_same_arch(const char *a, const char *b);
/*
 * Where the kernel maps all of memory (the direct, or linear, map) and
 * its memory map (a struct page per frame), as the dump's architecture
 * places them: a value from VMCOREINFO, else the kernel variable that
 * holds it (0 and NULL: not known).
 */
struct idd_target_kernel_map {
	uint64_t direct_pa0;	/* the direct map's address of physical 0 */
	bool direct_at_zero;	/* it is 0 (s390x's identity map before 6.10) */
	const char *direct_var; /* else: holds the direct map's start */
	uint64_t vmemmap_start; /* the struct page of frame first_pfn */
	uint64_t first_pfn;
	const char *vmemmap_var; /* else: holds frame 0's struct page's address */
	/* FLATMEM's ARCH_PFN_OFFSET (mem_map's first frame), when known */
	uint64_t flat_pfn_offset;
	bool flat_pfn_offset_known;
	/*
	 * vmemmap_start worked out from the kernel's own definitions where
	 * VMCOREINFO does not give it (what it was derived from), NULL when
	 * VMCOREINFO gives it: the layers above check such a one against a
	 * struct page they know before they trust it.
	 */
	const char *vmemmap_derived;
};
void idd_target_kernel_map(struct idd_target *t,
			   struct idd_target_kernel_map *out);
uint64_t idd_target_page_size(struct idd_target *t);
/* Whence it came: "dump header" or "VMCOREINFO PAGESIZE ...". */
const char *idd_target_page_size_whence(struct idd_target *t);
/* The release from the dump's header (utsname), or NULL. */
const char *idd_target_uts_release(struct idd_target *t);
void idd_target_close(struct idd_target *t);
/*
 * Drop what the backends keep of what they read (pages, file blocks), so
 * a live kernel's memory (/proc/kcore) is read again; false when a backend
 * could not (it then keeps what it had).
 */
bool idd_target_forget(struct idd_target *t);
/* Read len bytes of kernel virtual memory; all or an error naming why. */
struct inodedump_error *idd_target_read(struct idd_target *t, uint64_t addr,
					void *buf, size_t len);
/* A 64-bit value (a pointer, a list link) at addr, in the dump's order. */
struct inodedump_error *idd_target_read_u64(struct idd_target *t,
					    uint64_t addr, uint64_t *out);
/* An unsigned value of n <= 8 bytes at addr, in the dump's byte order. */
struct inodedump_error *idd_target_read_uint(struct idd_target *t,
					     uint64_t addr, size_t n,
					     uint64_t *out);
/* The n <= 8 bytes at p (read from the dump) as its byte order has them. */
uint64_t idd_target_uint(const struct idd_target *t, const void *p, size_t n);
/*
 * Read a NUL-terminated string of at most max bytes. *truncated says the
 * bound was hit before a NUL. The result is malloc'd.
 */
struct inodedump_error *idd_target_read_string(struct idd_target *t,
					       uint64_t addr, size_t max,
					       char **out, bool *truncated);
/*
 * A VMCOREINFO value ("OSRELEASE", "KERNELOFFSET", "SYMBOL(prb)"), or NULL:
 * absent, on a malformed line, or written twice.
 */
const char *idd_target_vmcoreinfo(struct idd_target *t, const char *key);
/*
 * What the VMCOREINFO text breaks ("VMCOREINFO: ... at byte N"), then what
 * our reader found the dump's headers break ("ELF dump: ..."): how many,
 * and each (NULL past the last). The session makes each a note.
 */
size_t idd_target_problems(const struct idd_target *t);
/*
 * Why our page walk cannot start on a dump our reader reads (so that
 * libkdumpfile translates every address), or NULL: it can, or the dump
 * is not one whose addresses we translate (/proc/kcore, a memory image).
 */
const char *idd_target_walk_why(struct idd_target *t);
/* Whether there was a VMCOREINFO text at all (a caller may give none). */
bool idd_target_has_vmcoreinfo(const struct idd_target *t);
const char *idd_target_problem(const struct idd_target *t, size_t i);
const char *idd_target_format(struct idd_target *t);
/* The dump file's name, or "memory". */
const char *idd_target_path(const struct idd_target *t);
/* makedumpfile's dump level (-d), or -1 when the format has none. */
int idd_target_dump_level(struct idd_target *t);
/*
 * The dump's byte order (its header's, else its architecture's): every
 * kernel value read from it is loaded in it (core/bytes.h).
 */
bool idd_target_little_endian(struct idd_target *t);
bool idd_target_big_endian(const struct idd_target *t);
/* The pages' compression ("zlib", "none"), or NULL when not known. */
const char *idd_target_compression(struct idd_target *t);
/* What the dump's header shows of the writer that wrote it, or NULL. */
const char *idd_target_writer(struct idd_target *t);
/* A page frame as the dump's bitmaps have it (formats that filter). */
enum {
	IDD_PFN_UNKNOWN = -1, /* the format has no bitmap, or it cannot be read */
	IDD_PFN_NO_RAM,	      /* not memory the writer saw */
	IDD_PFN_EXCLUDED,     /* memory the writer left out */
	IDD_PFN_DUMPED,
};
int idd_target_pfn_state(struct idd_target *t, uint64_t pfn);
/* One past the highest page frame the dump describes; 0: not known. */
uint64_t idd_target_max_pfn(struct idd_target *t);
/*
 * What a page left out of the dump was, for the error that says it was
 * left out: fn(arg, phys) returns malloc'd text or NULL. The target has
 * no types; the session that has them sets this (decode/pages.c).
 */
typedef char *(*idd_filtered_explain_fn)(void *arg, uint64_t phys);
void idd_target_set_explain(struct idd_target *t, idd_filtered_explain_fn fn,
			    void *arg);
/*
 * idd_target_read() whose error, for a page left out, does not call the
 * explanation: for a reader the explanation itself would use (types read
 * on demand).
 */
struct inodedump_error *idd_target_read_unexplained(struct idd_target *t,
						    uint64_t addr, void *buf,
						    size_t len);

#endif
