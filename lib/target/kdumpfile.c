// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libkdumpfile (loaded by kdl.c with dlopen): the backend for /proc/kcore
 * and the formats our readers do not take (sadump, split, incomplete or
 * truncated dumps, snappy pages, Xen, other architectures), and the
 * fallback for reads ours cannot do, so a page that is missing or damaged
 * gets libkdumpfile's diagnosis. It runs in a child process (sandbox.c),
 * which calls idd_kdumpfile_open_here() and serves what these functions
 * answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/backend.h"
#include "target/kdl.h"

struct kdumpfile {
	struct idd_backend base;
	kdump_ctx_t *ctx;
	int fd, dump_level;
	char *vmcoreinfo;
	char default_arch[32];
};

static struct kdumpfile *to_kdumpfile(struct idd_backend *b)
{
	return (struct kdumpfile *)b;
}

/* The architecture from vmlinux, where libkdumpfile's header has none. */
static void kdumpfile_set_default_arch(struct idd_backend *b,
				       const char *arch)
{
	struct kdumpfile *k = to_kdumpfile(b);
	const char *have = NULL;

	snprintf(k->default_arch, sizeof(k->default_arch), "%s", arch);
	if (arch[0] &&
	    kdump_get_string_attr(k->ctx, KDUMP_ATTR_ARCH_NAME, &have) !=
		    KDUMP_OK)
		kdump_set_string_attr(k->ctx, KDUMP_ATTR_ARCH_NAME, arch);
}

static bool kdumpfile_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
				size_t len)
{
	size_t got = len;

	return kdump_read(to_kdumpfile(b)->ctx, KDUMP_MACHPHYSADDR, pa, buf,
			  &got) == KDUMP_OK &&
	       got == len;
}

/* Physical address of a kernel virtual one, if the page tables map it. */
static bool translate(kdump_ctx_t *ctx, uint64_t addr, uint64_t *phys)
{
	addrxlat_ctx_t *axctx = NULL;
	addrxlat_sys_t *axsys = NULL;
	addrxlat_fulladdr_t fa = { .addr = addr, .as = ADDRXLAT_KVADDR };
	bool ok = false;

	if (kdump_get_addrxlat(ctx, &axctx, &axsys) != KDUMP_OK)
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

static struct inodedump_error *read_failure(struct kdumpfile *k,
					    uint64_t addr, kdump_status ks)
{
	uint64_t phys;
	const char *why = kdump_get_err(k->ctx);
	struct inodedump_error *err;

	if (!translate(k->ctx, addr, &phys))
		return idd_error_at(INODEDUMP_ERR_FAULT, addr,
				    "address 0x%llx is not mapped by the "
				    "kernel's page tables in this dump (%s)",
				    (unsigned long long)addr, why);
	if (ks == KDUMP_ERR_NODATA &&
	    (err = idd_target_filtered(k->base.target, addr, phys)))
		return err;
	return idd_error_at(INODEDUMP_ERR_FAULT, addr,
			    "address 0x%llx (physical 0x%llx) is not in the "
			    "dump: %s",
			    (unsigned long long)addr,
			    (unsigned long long)phys, why);
}

static struct inodedump_error *kdumpfile_read_virt(struct idd_backend *b,
						   uint64_t addr, void *buf,
						   size_t len)
{
	struct kdumpfile *k = to_kdumpfile(b);
	size_t got = len;
	kdump_status ks = kdump_read(k->ctx, KDUMP_KVADDR, addr, buf, &got);

	if (ks == KDUMP_OK)
		return NULL;
	/* Name the first byte that failed, not the start of the read. */
	return read_failure(k, addr + (got < len ? got : 0), ks);
}

static const char *kdumpfile_format(struct idd_backend *b)
{
	const char *format = NULL;

	kdump_get_string_attr(to_kdumpfile(b)->ctx, KDUMP_ATTR_FILE_FORMAT,
			      &format);
	return format;
}

static const char *kdumpfile_arch(struct idd_backend *b)
{
	const char *arch = NULL;

	if (kdump_get_string_attr(to_kdumpfile(b)->ctx, KDUMP_ATTR_ARCH_NAME,
				  &arch) != KDUMP_OK)
		return NULL;
	return arch;
}

static uint64_t kdumpfile_page_size(struct idd_backend *b)
{
	kdump_num_t size = 0;

	if (kdump_get_number_attr(to_kdumpfile(b)->ctx, KDUMP_ATTR_PAGE_SIZE,
				  &size) != KDUMP_OK)
		return 0;
	return size;
}

static const char *kdumpfile_uts_release(struct idd_backend *b)
{
	const char *release = NULL;

	if (kdump_get_string_attr(to_kdumpfile(b)->ctx, "linux.uts.release",
				  &release) != KDUMP_OK ||
	    !release || !*release)
		return NULL;
	return release;
}

static int kdumpfile_dump_level(struct idd_backend *b)
{
	return to_kdumpfile(b)->dump_level;
}

static bool kdumpfile_little_endian(struct idd_backend *b)
{
	kdump_num_t order;

	if (kdump_get_number_attr(to_kdumpfile(b)->ctx, KDUMP_ATTR_BYTE_ORDER,
				  &order) != KDUMP_OK)
		return true;
	return order == KDUMP_LITTLE_ENDIAN;
}

static const char *kdumpfile_vmcoreinfo(struct idd_backend *b)
{
	struct kdumpfile *k = to_kdumpfile(b);
	char *raw = NULL;

	if (!k->vmcoreinfo && kdump_vmcoreinfo_raw(k->ctx, &raw) == KDUMP_OK)
		k->vmcoreinfo = raw;
	return k->vmcoreinfo;
}

static bool kdumpfile_machine_physical(struct idd_backend *b)
{
	kdump_num_t xen = KDUMP_XEN_NONE;

	return kdump_get_number_attr(to_kdumpfile(b)->ctx,
				     KDUMP_ATTR_XEN_TYPE, &xen) != KDUMP_OK ||
	       xen == KDUMP_XEN_NONE;
}

static void kdumpfile_close(struct idd_backend *b)
{
	struct kdumpfile *k = to_kdumpfile(b);

	kdump_free(k->ctx);
	free(k->vmcoreinfo);
	free(k);
}

static bool kdumpfile_forget(struct idd_backend *b);

static const struct idd_backend_ops kdumpfile_ops = {
	.reader = "libkdumpfile",
	.translation = "libkdumpfile (libaddrxlat)",
	.read_phys = kdumpfile_read_phys,
	.read_virt = kdumpfile_read_virt,
	.format = kdumpfile_format,
	.arch = kdumpfile_arch,
	.page_size = kdumpfile_page_size,
	.uts_release = kdumpfile_uts_release,
	.dump_level = kdumpfile_dump_level,
	.little_endian = kdumpfile_little_endian,
	.vmcoreinfo = kdumpfile_vmcoreinfo,
	.set_default_arch = kdumpfile_set_default_arch,
	.machine_physical = kdumpfile_machine_physical,
	.forget = kdumpfile_forget,
	.close = kdumpfile_close,
};

/*
 * A libkdumpfile context over fd: the file probed, the architecture and
 * OS type set. NULL and *ks set (or the context NULL: not loaded).
 */
static kdump_ctx_t *new_ctx(int fd, const char *default_arch,
			    kdump_status *ks)
{
	kdump_ctx_t *ctx = kdump_new();
	const char *have = NULL;

	*ks = KDUMP_ERR_SYSTEM;
	if (!ctx)
		return NULL;
	/*
	 * mmap(2) turns a read past the end of a truncated dump into SIGBUS;
	 * read(2) turns it into an error we can report.
	 */
	kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_MMAP_POLICY,
			      KDUMP_MMAP_NEVER);
	*ks = kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_FD, fd);
	if (*ks == KDUMP_OK && default_arch && default_arch[0] &&
	    kdump_get_string_attr(ctx, KDUMP_ATTR_ARCH_NAME, &have) !=
		    KDUMP_OK)
		kdump_set_string_attr(ctx, KDUMP_ATTR_ARCH_NAME, default_arch);
	if (*ks == KDUMP_OK)
		*ks = kdump_set_string_attr(ctx, KDUMP_ATTR_OSTYPE, "linux");
	return ctx;
}

/*
 * libkdumpfile keeps the pages it read (its cache) and the file's blocks
 * (its file cache), neither of which it lets a caller empty: a new context
 * over the same file, the old one freed. /proc/kcore is read again.
 */
static bool kdumpfile_forget(struct idd_backend *b)
{
	struct kdumpfile *k = to_kdumpfile(b);
	kdump_status ks;
	kdump_ctx_t *ctx = new_ctx(k->fd, k->default_arch, &ks);

	if (!ctx || ks != KDUMP_OK) {
		/* as at open: 0.5.1 may crash freeing a context that failed */
		return false;
	}
	kdump_free(k->ctx);
	k->ctx = ctx;
	return true;
}

struct inodedump_error *idd_kdumpfile_open_here(struct idd_target *t, int fd,
						const char *path, int dump_level,
						const char *default_arch,
						struct idd_backend **out)
{
	struct kdumpfile *k = calloc(1, sizeof(*k));
	kdump_status ks;
	const char *why;

	if (!k)
		return idd_nomem();
	k->base.ops = &kdumpfile_ops;
	k->base.target = t;
	k->dump_level = dump_level;
	k->fd = fd;
	snprintf(k->default_arch, sizeof(k->default_arch), "%s",
		 default_arch ? default_arch : "");
	k->ctx = new_ctx(fd, default_arch, &ks);
	if (!k->ctx) {
		free(k);
		why = idd_kdl_load_error();
		return why ? idd_error(INODEDUMP_ERR_DUMP, "%s: %s", path, why)
			   : idd_nomem();
	}
	if (ks != KDUMP_OK) {
		struct inodedump_error *err =
			idd_error(INODEDUMP_ERR_DUMP,
				  "%s is not a dump libkdumpfile can read: %s",
				  path, kdump_get_err(k->ctx));
		/*
		 * libkdumpfile 0.5.1 can crash in kdump_free() after a failed
		 * open of a truncated file: leak the context instead.
		 */
		free(k);
		return err;
	}
	*out = &k->base;
	return NULL;
}
