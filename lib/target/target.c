// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The target: bytes at kernel virtual addresses, and VMCOREINFO, from any
 * dump libkdumpfile reads. A failed read says which address and why.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bytes.h"
#include "kernel/vfs.h"
#include "target/target.h"
#include "target/kdl.h"

/* __START_KERNEL_map: where x86-64 maps the kernel image (arch constant). */
#define X86_64_KERNEL_MAP 0xffffffff80000000ULL
#define PROC_SUPER_MAGIC_ 0x9fa0

struct vmcoreinfo_entry {
	char *key;
	char *value;
};

struct idd_target {
	kdump_ctx_t *ctx;
	int fd;
	char *path;
	const char *format;
	struct vmcoreinfo_entry *info;
	size_t ninfo;
	bool little_endian;
	int dump_level; /* makedumpfile's -d, or -1 when not known */
	bool flattened; /* rearranged from makedumpfile's flattened format */
	/*
	 * Our own reader (dumpfile.c) when it takes the file; libkdumpfile
	 * (ctx) otherwise, and for whatever our reader cannot read.
	 */
	struct idd_dumpfile *native;
	bool kdump_failed;
	unsigned long fallbacks; /* reads libkdumpfile did for us */
	char default_arch[32];
	/* A memory image in buffers instead of a dump (tests, fuzzers). */
	const struct idd_memory_region *regions;
	size_t nregions;
	/* A caller's reader instead of a dump (drgn, crash, tests). */
	inodedump_read_fn reader;
	void *reader_arg;
	/*
	 * x86-64 page-table walk of our own, reading page tables and data by
	 * physical address: libaddrxlat's generic setup costs more than
	 * everything else a one-inode decode does. Anything it does not
	 * handle falls back to libkdumpfile's own translation.
	 */
	int pt_state; /* 0 not tried, 1 usable, -1 not usable */
	bool pt_l5;
	uint64_t pt_root, pt_mask;
	struct pt_tlb { uint64_t va, size, pa; } tlb[8];
	unsigned tlb_next;
};

static void parse_vmcoreinfo(struct idd_target *t, const char *raw);

struct inodedump_error *idd_target_open_memory(
	const struct idd_memory_region *regions, size_t n,
	const char *vmcoreinfo, struct idd_target **out)
{
	struct idd_target *t = calloc(1, sizeof(*t));

	if (!t)
		return idd_nomem();
	t->fd = -1;
	t->dump_level = -1;
	t->little_endian = true;
	t->regions = regions;
	t->nregions = n;
	t->format = "memory";
	t->path = strdup("(memory)");
	if (vmcoreinfo)
		parse_vmcoreinfo(t, vmcoreinfo);
	*out = t;
	return NULL;
}

bool idd_target_is_memory(const struct idd_target *t)
{
	return t->regions != NULL || t->reader != NULL;
}

struct inodedump_error *idd_target_open_reader(inodedump_read_fn read,
					       void *arg,
					       const char *vmcoreinfo,
					       struct idd_target **out)
{
	struct idd_target *t;

	if (!read)
		return idd_error(INODEDUMP_ERR_USAGE, "no read function given");
	t = calloc(1, sizeof(*t));
	if (!t)
		return idd_nomem();
	t->fd = -1;
	t->dump_level = -1;
	t->little_endian = true;
	t->reader = read;
	t->reader_arg = arg;
	t->pt_state = -1; /* the caller translates */
	t->format = "reader";
	t->path = strdup("(caller's reader)");
	if (!t->path) {
		free(t);
		return idd_nomem();
	}
	if (vmcoreinfo)
		parse_vmcoreinfo(t, vmcoreinfo);
	*out = t;
	return NULL;
}

static struct inodedump_error *read_reader(struct idd_target *t,
					   uint64_t addr, void *buf,
					   size_t len)
{
	int rc = t->reader(buf, addr, len, false, t->reader_arg);

	if (!rc)
		return NULL;
	if (rc == INODEDUMP_ERR_FILTERED)
		return idd_error_at(INODEDUMP_ERR_FILTERED, addr,
				    "address 0x%llx was filtered out of the "
				    "dump (the caller's reader says)",
				    (unsigned long long)addr);
	return idd_error_at(INODEDUMP_ERR_FAULT, addr,
			    "address 0x%llx cannot be read (the caller's "
			    "reader says)", (unsigned long long)addr);
}

static struct inodedump_error *read_memory(struct idd_target *t,
					   uint64_t addr, uint8_t *buf,
					   size_t len)
{
	while (len) {
		const struct idd_memory_region *r = NULL;
		size_t n;

		for (size_t i = 0; i < t->nregions && !r; i++)
			if (addr >= t->regions[i].start &&
			    addr - t->regions[i].start < t->regions[i].size)
				r = &t->regions[i];
		if (!r)
			return idd_error_at(INODEDUMP_ERR_FAULT, addr,
					    "address 0x%llx is not in the "
					    "memory image",
					    (unsigned long long)addr);
		n = r->size - (size_t)(addr - r->start);
		if (n > len)
			n = len;
		memcpy(buf, r->data + (addr - r->start), n);
		buf += n;
		addr += n;
		len -= n;
	}
	return NULL;
}

/*
 * makedumpfile's flattened (streaming) format, which QEMU writes for its
 * kdump-* formats: a 4096-byte header, then records of a big-endian
 * (offset, size) pair and size bytes meant for that offset of the real
 * file, ended by offset -1. libkdumpfile 0.5.1 cannot read it, so the
 * records are put in place in a sparse in-memory file.
 */
#define FLAT_SIGNATURE "makedumpfile"
#define FLAT_HEADER_SIZE 4096
#define FLAT_MAX_OFFSET (INT64_C(1) << 46)
#define FLAT_MAX_RECORD (INT64_C(1) << 30)

static bool is_flattened(int fd)
{
	char sig[16] = { 0 };
	int64_t type_be;

	return pread(fd, sig, sizeof(sig), 0) == (ssize_t)sizeof(sig) &&
	       !memcmp(sig, FLAT_SIGNATURE, sizeof(FLAT_SIGNATURE)) &&
	       pread(fd, &type_be, 8, 16) == 8 && be64toh((uint64_t)type_be) == 1;
}

static struct inodedump_error *flat_error(const char *path, off_t at,
					  const char *what)
{
	return idd_error(INODEDUMP_ERR_DUMP,
			 "flattened dump %s: %s at file offset %lld", path, what,
			 (long long)at);
}

static struct inodedump_error *unflatten(const char *path, int in, int *out)
{
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	int fd = memfd_create("inodedump-unflattened", MFD_CLOEXEC);
	off_t pos = FLAT_HEADER_SIZE;
	struct inodedump_error *err = NULL;

	if (!buf || fd < 0) {
		err = buf ? idd_error(INODEDUMP_ERR_DUMP, "memfd_create: %s",
				      strerror(errno))
			  : idd_nomem();
		goto fail;
	}
	for (;;) {
		int64_t hdr[2], offset, size;

		if (pread(in, hdr, sizeof(hdr), pos) != (ssize_t)sizeof(hdr)) {
			err = flat_error(path, pos, "truncated before its end "
						    "marker");
			goto fail;
		}
		offset = (int64_t)be64toh((uint64_t)hdr[0]);
		size = (int64_t)be64toh((uint64_t)hdr[1]);
		if (offset == -1)
			break;
		if (offset < 0 || size < 0 || size > FLAT_MAX_RECORD ||
		    offset > FLAT_MAX_OFFSET - size) {
			err = flat_error(path, pos, "corrupt record header");
			goto fail;
		}
		pos += (off_t)sizeof(hdr);
		while (size > 0) {
			size_t n = size > CHUNK ? CHUNK : (size_t)size;
			ssize_t got = pread(in, buf, n, pos);

			if (got <= 0) {
				err = flat_error(path, pos, "truncated record");
				goto fail;
			}
			if (pwrite(fd, buf, (size_t)got, offset) != got) {
				err = idd_error(INODEDUMP_ERR_DUMP,
						"rearranging flattened dump %s: "
						"%s", path, strerror(errno));
				goto fail;
			}
			pos += got;
			offset += got;
			size -= got;
		}
	}
	free(buf);
	*out = fd;
	return NULL;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * makedumpfile's dump level from the diskdump header: the sub-header
 * starts at block_size and holds phys_base (8 bytes), then dump_level.
 * These are the file format's own offsets, not a kernel's layout.
 */
static int diskdump_level(int fd)
{
	char sig[8];
	int32_t block_size, level;

	if (pread(fd, sig, 8, 0) != 8 || memcmp(sig, "KDUMP   ", 8) != 0)
		return -1;
	if (pread(fd, &block_size, 4, 428) != 4 || block_size <= 0 ||
	    pread(fd, &level, 4, (off_t)block_size + 8) != 4 || level < 0 ||
	    level > 31)
		return -1;
	return level;
}

/*
 * libkdumpfile 0.5.1 allocates what a diskdump header asks for before it
 * checks it against the file: a corrupt block size or note size becomes a
 * multi-gigabyte malloc. Refuse headers that do not fit their file. The
 * offsets are makedumpfile's file format (disk_dump_header, then the
 * kdump_sub_header at block_size), not a kernel's layout.
 */
static struct inodedump_error *check_diskdump_header(const char *path, int fd)
{
	char sig[8];
	int32_t block_size, bitmap_blocks;
	uint64_t sub[8]; /* phys_base .. size_note of kdump_sub_header */
	off_t size = lseek(fd, 0, SEEK_END);

	if (pread(fd, sig, 8, 0) != 8 || memcmp(sig, "KDUMP   ", 8) != 0)
		return NULL;
	if (pread(fd, &block_size, 4, 428) != 4 ||
	    pread(fd, &bitmap_blocks, 4, 436) != 4)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: diskdump header truncated", path);
	if (block_size < 512 || block_size > (1 << 20) ||
	    (block_size & (block_size - 1)))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt diskdump header: block size %d",
				 path, block_size);
	if (bitmap_blocks < 0 ||
	    (int64_t)bitmap_blocks * block_size > (int64_t)size)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt or truncated diskdump: %d bitmap "
				 "blocks of %d bytes but the file has %lld",
				 path, bitmap_blocks, block_size, (long long)size);
	if (pread(fd, sub, sizeof(sub), block_size) == (ssize_t)sizeof(sub)) {
		/* offset/size of VMCOREINFO and of the ELF notes */
		for (int i = 4; i < 8; i += 2)
			if (sub[i + 1] > (uint64_t)size ||
			    sub[i] > (uint64_t)size - sub[i + 1])
				return idd_error(INODEDUMP_ERR_DUMP,
						 "%s: corrupt diskdump sub-header: "
						 "%s at %llu, %llu bytes, past the "
						 "end of the file (%lld bytes)",
						 path, i == 4 ? "VMCOREINFO" : "notes",
						 (unsigned long long)sub[i],
						 (unsigned long long)sub[i + 1],
						 (long long)size);
	}
	return NULL;
}

/* An ELF header field of len bytes at off, in the file's byte order. */
static uint64_t elf_field(const unsigned char *h, size_t off, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v |= (uint64_t)h[off + (h[5] == 1 ? i : len - 1 - i)] << (8 * i);
	return v;
}

/*
 * libkdumpfile 0.5.1 follows an ELF header's program- and section-header
 * tables without checking them against the file (fuzzed ones crash it):
 * refuse ELF headers whose tables do not fit in the file. The offsets are
 * the ELF specification's.
 */
static struct inodedump_error *check_elf_header(const char *path, int fd)
{
	unsigned char h[64];
	off_t size = lseek(fd, 0, SEEK_END);
	uint64_t phoff, phentsize, phnum, shoff, shentsize, shnum;
	bool is64;

	if (pread(fd, h, 6, 0) != 6 || memcmp(h, "\177ELF", 4) != 0)
		return NULL;
	if ((h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt ELF header (class %u, data %u)",
				 path, h[4], h[5]);
	is64 = h[4] == 2;
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return idd_error(INODEDUMP_ERR_DUMP, "%s: ELF header truncated",
				 path);
	phoff = is64 ? elf_field(h, 32, 8) : elf_field(h, 28, 4);
	shoff = is64 ? elf_field(h, 40, 8) : elf_field(h, 32, 4);
	phentsize = elf_field(h, is64 ? 54 : 42, 2);
	phnum = elf_field(h, is64 ? 56 : 44, 2);
	shentsize = elf_field(h, is64 ? 58 : 46, 2);
	shnum = elf_field(h, is64 ? 60 : 48, 2);
	if (!phnum)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: ELF file without program headers: not "
				 "a dump", path);
	if (phnum == 0xffff) /* PN_XNUM: the real count is in section 0 */
		phnum = 1;
	if (phentsize != (is64 ? 56u : 32u) || phoff > (uint64_t)size ||
	    phnum * phentsize > (uint64_t)size - phoff ||
	    (shnum && (shentsize != (is64 ? 64u : 40u) ||
		       shoff > (uint64_t)size ||
		       shnum * shentsize > (uint64_t)size - shoff)))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: corrupt or truncated ELF dump: %llu "
				 "program headers of %llu bytes at %llu and "
				 "%llu section headers at %llu, in a file of "
				 "%lld bytes",
				 path, (unsigned long long)phnum,
				 (unsigned long long)phentsize,
				 (unsigned long long)phoff,
				 (unsigned long long)shnum,
				 (unsigned long long)shoff, (long long)size);
	return NULL;
}

int idd_target_dump_level(struct idd_target *t)
{
	return t->dump_level;
}

static void describe_level(int level, char *buf, size_t len)
{
	static const char *const what[5] = { "zero", "cache", "private cache",
					     "user", "free" };
	size_t used = (size_t)snprintf(buf, len, "dump level %d", level);
	const char *sep = ": ";

	for (int bit = 0; bit < 5 && used < len; bit++) {
		if (!(level & (1 << bit)))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", sep,
					 what[bit]);
		sep = ", ";
	}
	if (used < len && level)
		snprintf(buf + used, len - used, " pages excluded");
}

static void parse_vmcoreinfo(struct idd_target *t, const char *raw)
{
	size_t lines = 1;

	for (const char *p = raw; *p; p++)
		lines += *p == '\n';
	t->info = calloc(lines, sizeof(*t->info));
	if (!t->info)
		return;
	for (const char *line = raw; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *eq = memchr(line, '=', len);

		if (eq && t->ninfo < lines) {
			struct vmcoreinfo_entry *e = &t->info[t->ninfo];

			e->key = strndup(line, eq - line);
			e->value = strndup(eq + 1, len - (eq + 1 - line));
			if (e->key && e->value)
				t->ninfo++;
			else {
				free(e->key);
				free(e->value);
			}
		}
		line += len + (end ? 1 : 0);
	}
}

const char *idd_target_vmcoreinfo(struct idd_target *t, const char *key)
{
	for (size_t i = 0; i < t->ninfo; i++)
		if (!strcmp(t->info[i].key, key))
			return t->info[i].value;
	return NULL;
}

const char *idd_target_format(struct idd_target *t)
{
	if (t->flattened)
		return "flattened diskdump";
	return t->format ? t->format : "unknown";
}

bool idd_target_little_endian(struct idd_target *t)
{
	return t->little_endian;
}

/* The architecture from vmlinux, where libkdumpfile's header has none. */
static void kdump_default_arch(struct idd_target *t)
{
	const char *have = NULL;

	if (t->ctx && t->default_arch[0] &&
	    kdump_get_string_attr(t->ctx, KDUMP_ATTR_ARCH_NAME, &have) != KDUMP_OK)
		kdump_set_string_attr(t->ctx, KDUMP_ATTR_ARCH_NAME,
				      t->default_arch);
}

void idd_target_default_arch(struct idd_target *t, const char *arch)
{
	if (!arch || t->regions || t->reader) /* no header to complete */
		return;
	if (strlen(arch) < sizeof(t->default_arch))
		strcpy(t->default_arch, arch);
	kdump_default_arch(t);
}

const char *idd_target_arch(struct idd_target *t)
{
	const char *arch = NULL;

	if (t->native) {
		arch = idd_dumpfile_arch(t->native);
		return arch ? arch : t->default_arch[0] ? t->default_arch : NULL;
	}
	if (!t->ctx ||
	    kdump_get_string_attr(t->ctx, KDUMP_ATTR_ARCH_NAME, &arch) != KDUMP_OK)
		return NULL;
	return arch;
}

uint64_t idd_target_page_size(struct idd_target *t)
{
	kdump_num_t size = 0;

	if (t->native)
		return idd_dumpfile_page_size(t->native);
	if (!t->ctx ||
	    kdump_get_number_attr(t->ctx, KDUMP_ATTR_PAGE_SIZE, &size) != KDUMP_OK)
		return 0;
	return size;
}

const char *idd_target_uts_release(struct idd_target *t)
{
	const char *release = NULL;

	if (t->native) {
		/* libkdumpfile: the diskdump header's, else VMCOREINFO's */
		release = idd_dumpfile_release(t->native);
		if (!release)
			release = idd_target_vmcoreinfo(t, "OSRELEASE");
		return release && *release ? release : NULL;
	}
	if (!t->ctx ||
	    kdump_get_string_attr(t->ctx, "linux.uts.release", &release) !=
		    KDUMP_OK || !release || !*release)
		return NULL;
	return release;
}

/*
 * libkdumpfile on the open file: at open when our reader does not take
 * the file, else when a read needs it.
 */
static struct inodedump_error *open_kdump(struct idd_target *t)
{
	kdump_status ks;

	if (t->ctx)
		return NULL;
	if (t->kdump_failed)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s is not a dump libkdumpfile can read",
				 t->path);
	t->ctx = kdump_new();
	if (!t->ctx) {
		const char *why = idd_kdl_load_error();

		t->kdump_failed = true;
		return why ? idd_error(INODEDUMP_ERR_DUMP, "%s: %s", t->path,
				       why)
			   : idd_nomem();
	}
	/*
	 * mmap(2) turns a read past the end of a truncated dump into SIGBUS;
	 * read(2) turns it into an error we can report.
	 */
	kdump_set_number_attr(t->ctx, KDUMP_ATTR_FILE_MMAP_POLICY,
			      KDUMP_MMAP_NEVER);
	ks = kdump_set_number_attr(t->ctx, KDUMP_ATTR_FILE_FD, t->fd);
	if (ks == KDUMP_OK)
		kdump_default_arch(t);
	if (ks == KDUMP_OK)
		ks = kdump_set_string_attr(t->ctx, KDUMP_ATTR_OSTYPE, "linux");
	if (ks != KDUMP_OK) {
		struct inodedump_error *err =
			idd_error(INODEDUMP_ERR_DUMP,
				  "%s is not a dump libkdumpfile can read: %s",
				  t->path, kdump_get_err(t->ctx));
		/*
		 * libkdumpfile 0.5.1 can crash in kdump_free() after a failed
		 * open of a truncated file: leak the context instead.
		 */
		t->ctx = NULL;
		t->kdump_failed = true;
		return err;
	}
	return NULL;
}

struct inodedump_error *idd_target_open(const char *path,
					struct idd_target **out)
{
	struct idd_target *t = calloc(1, sizeof(*t));
	char *raw = NULL;
	kdump_num_t order;

	if (!t)
		return idd_nomem();
	t->fd = -1;
	t->path = strdup(path);
	if (!t->path) {
		idd_target_close(t);
		return idd_nomem();
	}
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		int e = errno;

		idd_target_close(t);
		if ((e == EACCES || e == EPERM) && !strcmp(path, "/proc/kcore"))
			return idd_error(INODEDUMP_ERR_DUMP,
					 "cannot open /proc/kcore: %s: reading "
					 "the live kernel needs root "
					 "(CAP_SYS_RAWIO)", strerror(e));
		return idd_error(INODEDUMP_ERR_DUMP, "cannot open dump %s: %s",
				 path, strerror(e));
	}
	if (is_flattened(t->fd)) {
		int flat = t->fd;
		struct inodedump_error *err = unflatten(path, flat, &t->fd);

		close(flat);
		if (err) {
			t->fd = -1;
			idd_target_close(t);
			return err;
		}
		t->flattened = true;
	}
	{
		struct inodedump_error *err = check_diskdump_header(path, t->fd);

		if (!err)
			err = check_elf_header(path, t->fd);
		if (err) {
			idd_target_close(t);
			return err;
		}
	}
	{
		struct statfs fs;

		/* /proc/kcore's program headers are not a dump's. */
		if (fstatfs(t->fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC_)
			t->pt_state = -1;
		else
			t->native = idd_dumpfile_open(t->fd);
	}
	t->dump_level = diskdump_level(t->fd);
	t->little_endian = true;
	if (t->native) {
		t->format = idd_dumpfile_format(t->native);
		parse_vmcoreinfo(t, idd_dumpfile_vmcoreinfo(t->native));
		*out = t;
		return NULL;
	}
	{
		struct inodedump_error *err = open_kdump(t);

		if (err) {
			idd_target_close(t);
			return err;
		}
	}
	kdump_get_string_attr(t->ctx, KDUMP_ATTR_FILE_FORMAT, &t->format);
	if (kdump_get_number_attr(t->ctx, KDUMP_ATTR_BYTE_ORDER, &order) ==
	    KDUMP_OK)
		t->little_endian = order == KDUMP_LITTLE_ENDIAN;
	if (kdump_vmcoreinfo_raw(t->ctx, &raw) == KDUMP_OK && raw) {
		parse_vmcoreinfo(t, raw);
		free(raw);
	}
	*out = t;
	return NULL;
}

void idd_target_close(struct idd_target *t)
{
	if (!t)
		return;
	if (t->ctx)
		kdump_free(t->ctx);
	idd_dumpfile_close(t->native);
	if (t->fd >= 0)
		close(t->fd);
	for (size_t i = 0; i < t->ninfo; i++) {
		free(t->info[i].key);
		free(t->info[i].value);
	}
	free(t->info);
	free(t->path);
	free(t);
}

/* Physical address of a kernel virtual one, if the page tables map it. */
static bool translate(struct idd_target *t, uint64_t addr, uint64_t *phys)
{
	addrxlat_ctx_t *axctx = NULL;
	addrxlat_sys_t *axsys = NULL;
	addrxlat_fulladdr_t fa = { .addr = addr, .as = ADDRXLAT_KVADDR };
	bool ok = false;

	if (kdump_get_addrxlat(t->ctx, &axctx, &axsys) != KDUMP_OK)
		return false;
	if (addrxlat_fulladdr_conv(&fa, ADDRXLAT_KPHYSADDR, axctx, axsys) ==
	    ADDRXLAT_OK) {
		*phys = fa.addr;
		ok = true;
	}
	addrxlat_ctx_decref(axctx);
	addrxlat_sys_decref(axsys);
	return ok;
}

static bool is_filtering_format(const char *format)
{
	/* Formats whose writer may leave pages out on purpose. */
	return format && (!strcmp(format, "diskdump") ||
			  !strcmp(format, "compressed") ||
			  !strcmp(format, "kdump") || !strcmp(format, "sadump"));
}

static struct inodedump_error *read_failure(struct idd_target *t,
					    uint64_t addr, kdump_status ks)
{
	uint64_t phys;
	const char *why = kdump_get_err(t->ctx);

	if (!translate(t, addr, &phys))
		return idd_error_at(INODEDUMP_ERR_FAULT, addr,
				    "address 0x%llx is not mapped by the "
				    "kernel's page tables in this dump (%s)",
				    (unsigned long long)addr, why);
	if (ks == KDUMP_ERR_NODATA && is_filtering_format(t->format)) {
		char level[128] = "dump level unknown";
		const char *slab = "";

		if (t->dump_level >= 0)
			describe_level(t->dump_level, level, sizeof(level));
		/*
		 * 6.10 made PG_slab a page type; makedumpfile 1.7.2 and older
		 * then take slab pages for user pages and drop them.
		 */
		if (t->dump_level >= 0 && (t->dump_level & 8) &&
		    idd_parse_release(idd_target_vmcoreinfo(t, "OSRELEASE")) >=
			    IDD_KVER(6, 10, 0))
			slab = "; on 6.10+ kernels makedumpfile 1.7.2 and older "
			       "take slab pages for user pages (dump level bit "
			       "8), so inodes, dentries and superblocks are "
			       "lost: dump with -d 17 instead";
		return idd_error_at(INODEDUMP_ERR_FILTERED, addr,
				    "address 0x%llx (physical 0x%llx) was "
				    "filtered out of the dump by its writer "
				    "(%s%s)",
				    (unsigned long long)addr,
				    (unsigned long long)phys, level, slab);
	}
	return idd_error_at(INODEDUMP_ERR_FAULT, addr,
			    "address 0x%llx (physical 0x%llx) is not in the "
			    "dump: %s",
			    (unsigned long long)addr,
			    (unsigned long long)phys, why);
}

static bool info_number(struct idd_target *t, const char *key, int base,
			uint64_t *out)
{
	const char *v = idd_target_vmcoreinfo(t, key);
	char *end;

	if (!v || !*v)
		return false;
	errno = 0;
	*out = base == 10 ? (uint64_t)strtoll(v, &end, 10)
			  : strtoull(v, &end, 16);
	return !errno && *end == '\0';
}

static bool pt_setup(struct idd_target *t)
{
	const char *arch = idd_target_arch(t);
	kdump_num_t xen = KDUMP_XEN_NONE;
	uint64_t pgd, phys_base, l5 = 0, sme = 0;

	if ((!t->ctx && !t->native) || !arch || strcmp(arch, "x86_64") ||
	    idd_target_page_size(t) != 4096 || !t->little_endian)
		return false;
	/* A Xen dump's physical addresses are not the machine's. */
	if (t->ctx &&
	    kdump_get_number_attr(t->ctx, KDUMP_ATTR_XEN_TYPE, &xen) ==
		    KDUMP_OK && xen != KDUMP_XEN_NONE)
		return false;
	if (!info_number(t, "SYMBOL(init_top_pgt)", 16, &pgd) &&
	    !info_number(t, "SYMBOL(init_level4_pgt)", 16, &pgd))
		return false;
	if (!info_number(t, "NUMBER(phys_base)", 10, &phys_base) ||
	    pgd < X86_64_KERNEL_MAP)
		return false;
	info_number(t, "NUMBER(pgtable_l5_enabled)", 10, &l5);
	info_number(t, "NUMBER(sme_mask)", 10, &sme);
	t->pt_root = pgd - X86_64_KERNEL_MAP + phys_base;
	t->pt_l5 = l5 != 0;
	t->pt_mask = 0x000ffffffffff000ULL & ~sme;
	return true;
}

/* Bytes at a physical address, by our reader or libkdumpfile's. */
static bool phys_read(struct idd_target *t, uint64_t pa, void *buf,
		      size_t len)
{
	size_t got = len;

	if (t->native)
		return idd_dumpfile_read(t->native, pa, buf, len);
	return kdump_read(t->ctx, KDUMP_MACHPHYSADDR, pa, buf, &got) ==
		       KDUMP_OK && got == len;
}

/* Physical address of ADDR by the dump's page tables; false if unsure. */
static bool pt_translate(struct idd_target *t, uint64_t addr, uint64_t *pa,
			 uint64_t *left)
{
	unsigned shift = t->pt_l5 ? 48 : 39;
	uint64_t table = t->pt_root;
	int64_t top = (int64_t)(addr << (t->pt_l5 ? 7 : 16)) >>
		      (t->pt_l5 ? 7 : 16);

	for (unsigned i = 0; i < sizeof(t->tlb) / sizeof(t->tlb[0]); i++) {
		struct pt_tlb *e = &t->tlb[i];

		if (e->size && addr - e->va < e->size) {
			*pa = e->pa + (addr - e->va);
			*left = e->size - (addr - e->va);
			return true;
		}
	}
	if ((uint64_t)top != addr) /* not canonical */
		return false;
	for (;;) {
		uint8_t raw[8];
		uint64_t pte, size = 1ULL << shift;

		if (!phys_read(t, table + ((addr >> shift) & 511) * 8, raw, 8))
			return false;
		pte = le64toh(*(uint64_t *)(void *)raw);
		if (!(pte & 1))
			return false;
		if (shift == 12 || ((shift == 21 || shift == 30) && (pte & 0x80))) {
			struct pt_tlb *e = &t->tlb[t->tlb_next++ % 8];
			uint64_t base = pte & t->pt_mask & ~(size - 1);

			e->va = addr & ~(size - 1);
			e->size = size;
			e->pa = base;
			*pa = base + (addr & (size - 1));
			*left = size - (addr & (size - 1));
			return true;
		}
		if (pte & 0x80) /* PS in a PML4/PML5 entry is reserved */
			return false;
		table = pte & t->pt_mask;
		shift -= 9;
	}
}

/* Whether our walk can be used, set up on first need. */
static bool pt_ready(struct idd_target *t)
{
	if (t->pt_state == 0 && !t->regions)
		t->pt_state = pt_setup(t) ? 1 : -1;
	return t->pt_state > 0;
}

/* Reads through our own walk; false sends the caller to libkdumpfile. */
static bool pt_read(struct idd_target *t, uint64_t addr, uint8_t *buf,
		    size_t len)
{
	if (!pt_ready(t))
		return false;
	while (len) {
		uint64_t pa, left;
		size_t n;

		if (!pt_translate(t, addr, &pa, &left))
			return false;
		n = left < len ? (size_t)left : len;
		if (!phys_read(t, pa, buf, n))
			return false;
		addr += n;
		buf += n;
		len -= n;
	}
	return true;
}

struct inodedump_error *idd_target_read(struct idd_target *t, uint64_t addr,
					void *buf, size_t len)
{
	size_t got = len;
	kdump_status ks;

	if (addr + len < addr)
		return idd_error_at(INODEDUMP_ERR_FAULT, addr,
				    "read of %zu bytes at 0x%llx wraps around",
				    len, (unsigned long long)addr);
	if (t->regions)
		return read_memory(t, addr, buf, len);
	if (t->reader)
		return read_reader(t, addr, buf, len);
	if (pt_read(t, addr, buf, len))
		return NULL;
	/* What our walk or reader cannot do, libkdumpfile does (and explains). */
	t->fallbacks++;
	{
		struct inodedump_error *err = open_kdump(t);

		if (err)
			return idd_error_wrap(err, "reading 0x%llx",
					      (unsigned long long)addr);
	}
	ks = kdump_read(t->ctx, KDUMP_KVADDR, addr, buf, &got);
	if (ks == KDUMP_OK)
		return NULL;
	/* Name the first byte that failed, not the start of the read. */
	return read_failure(t, addr + (got < len ? got : 0), ks);
}

const char *idd_target_reader(const struct idd_target *t)
{
	return t->regions  ? "memory"
	       : t->reader ? "caller"
	       : t->native ? "inodedump"
			   : "libkdumpfile";
}

const char *idd_target_translation(struct idd_target *t)
{
	if (pt_ready(t))
		return t->pt_l5 ? "inodedump (x86-64, 5-level page tables)"
				: "inodedump (x86-64, 4-level page tables)";
	return t->regions  ? "memory image"
	       : t->reader ? "caller"
			   : "libkdumpfile (libaddrxlat)";
}

unsigned long idd_target_fallbacks(const struct idd_target *t)
{
	return t->fallbacks;
}

bool idd_target_read_phys(struct idd_target *t, uint64_t pa, void *buf,
			  size_t len)
{
	if (t->reader)
		return t->reader(buf, pa, len, true, t->reader_arg) == 0;
	return !t->regions && (t->native || t->ctx) &&
	       phys_read(t, pa, buf, len);
}

bool idd_target_walk(struct idd_target *t, uint64_t va, uint64_t *pa)
{
	uint64_t left;

	return pt_ready(t) && pt_translate(t, va, pa, &left);
}

struct inodedump_error *idd_target_read_u64(struct idd_target *t,
					    uint64_t addr, uint64_t *out)
{
	uint8_t buf[8];
	struct inodedump_error *err = idd_target_read(t, addr, buf, 8);

	if (!err)
		*out = idd_load_le(buf, 8);
	return err;
}

struct inodedump_error *idd_target_read_string(struct idd_target *t,
					       uint64_t addr, size_t max,
					       char **out, bool *truncated)
{
	char *s = malloc(max + 1);
	size_t len = 0;

	if (!s)
		return idd_nomem();
	*truncated = false;
	while (len < max) {
		/* Read up to the end of the page so no read crosses it needlessly. */
		size_t chunk = 4096 - ((addr + len) & 4095);
		struct inodedump_error *err;
		char *nul;

		if (chunk > max - len)
			chunk = max - len;
		err = idd_target_read(t, addr + len, s + len, chunk);
		if (err) {
			free(s);
			return err;
		}
		nul = memchr(s + len, '\0', chunk);
		if (nul) {
			*out = s;
			return NULL;
		}
		len += chunk;
	}
	s[max] = '\0';
	*truncated = true;
	*out = s;
	return NULL;
}
