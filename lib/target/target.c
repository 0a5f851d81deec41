// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The target: bytes at kernel virtual addresses, and VMCOREINFO, from a
 * backend (backend.h): a dump file read by our readers or libkdumpfile, a
 * memory image, a caller's reader. Here is what they share (opening a
 * file is open.c's): VMCOREINFO, the facts, and reads by kernel address
 * through our page walk (arch.h) or the backend. A failed read says which
 * address and why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "target/backend.h"
#include "target/target.h"
#include "target/target_internal.h"

struct idd_target *idd_target_new(void)
{
	struct idd_target *t = calloc(1, sizeof(*t));

	if (t) {
		t->fd = -1;
		t->dump_level = -1;
		t->little_endian = true;
	}
	return t;
}

void idd_target_parse_vmcoreinfo(struct idd_target *t, const char *raw)
{
	idd_vmcoreinfo_parse(&t->vmcoreinfo, raw, strlen(raw));
	idd_target_settle_order(t);
}

bool idd_target_has_vmcoreinfo(const struct idd_target *t)
{
	return t->vmcoreinfo.present;
}

size_t idd_target_problems(const struct idd_target *t)
{
	return t->vmcoreinfo.nproblems + t->nproblems;
}

const char *idd_target_problem(const struct idd_target *t, size_t i)
{
	if (i < t->vmcoreinfo.nproblems)
		return idd_vmcoreinfo_problem(&t->vmcoreinfo, i);
	i -= t->vmcoreinfo.nproblems;
	return i < t->nproblems ? t->problems[i] : NULL;
}

void idd_target_problem_add(struct idd_target *t, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (t->nproblems == IDD_TARGET_PROBLEMS_MAX)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg)
		t->problems[t->nproblems++] = msg;
}

void idd_target_declined(struct idd_target *t, const char *fmt, ...)
{
	va_list ap;

	if (t->declined)
		return;
	va_start(ap, fmt);
	if (vasprintf(&t->declined, fmt, ap) < 0)
		t->declined = NULL;
	va_end(ap);
}

void idd_target_declined_machine(struct idd_target *t, unsigned machine)
{
	t->declined_machine = machine;
	t->machine_declined = true;
}

void idd_target_declined_say(struct idd_target *t)
{
	const struct idd_arch_ops *arch;

	if (t->declined) {
		idd_target_problem_add(t, "read by libkdumpfile, not by "
				       "inodedump's reader: %s", t->declined);
		return;
	}
	if (!t->machine_declined)
		return;
	arch = idd_arch_of_vmcoreinfo(&t->vmcoreinfo);
	if (arch || !t->declined_machine)
		idd_target_problem_add(t, "read by libkdumpfile, not by "
				       "inodedump's reader: ELF dump: ELF "
				       "machine %u, but %s",
				       t->declined_machine,
				       arch ? "VMCOREINFO is that of "
					      "a machine it walks"
					    : "that names no machine");
}

void idd_target_attach(struct idd_target *t, struct idd_backend *b)
{
	const struct idd_backend_ops *ops = b->ops;
	const char *raw;

	b->target = t;
	t->backend = b;
	t->format = ops->format ? ops->format(b) : NULL;
	if (ops->translates)
		t->walk_state = -1; /* the backend translates */
	raw = ops->vmcoreinfo ? ops->vmcoreinfo(b) : NULL;
	/* Our readers know the text's size: a NUL inside it is said. */
	if (raw)
		idd_vmcoreinfo_parse(&t->vmcoreinfo, raw,
				 ops->vmcoreinfo_size ? ops->vmcoreinfo_size(b)
						      : strlen(raw));
	idd_target_settle_order(t);
}

/*
 * The dump's byte order: the architecture's, chosen as the page walk is
 * (the machine named, else VMCOREINFO's keys, else vmlinux's), where its
 * walk is ours (each reads its kernels of one order); else what the
 * backend says (libkdumpfile's, or our reader's headers: the diskdump
 * header's order, ELF's EI_DATA); else little-endian. Headers may be of
 * another order than their kernel: QEMU's pseries ELF and kdump are
 * big-endian for a little-endian kernel.
 */
void idd_target_settle_order(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;
	const struct idd_arch_ops *arch;

	arch = idd_arch_find(idd_target_arch(t));
	if (!arch)
		arch = idd_arch_of_vmcoreinfo(&t->vmcoreinfo);
	if (!arch) /* vmlinux's, kept by a backend that completes its header */
		arch = idd_arch_find(t->default_arch);
	if (arch)
		t->little_endian = !arch->big_endian;
	else
		t->little_endian = !ops->little_endian ||
				   ops->little_endian(t->backend);
}

void idd_target_close(struct idd_target *t)
{
	if (!t)
		return;
	if (t->fallback)
		t->fallback->ops->close(t->fallback);
	if (t->backend) {
		inodedump_error_free(t->backend->damage);
		t->backend->damage = NULL;
		t->backend->ops->close(t->backend);
	}
	if (t->fd >= 0)
		close(t->fd);
	idd_vmcoreinfo_free(&t->vmcoreinfo);
	for (size_t i = 0; i < t->nproblems; i++)
		free(t->problems[i]);
	free(t->declined);
	free(t->path);
	free(t->fallback_why);
	inodedump_error_free(t->walk_damage);
	free(t);
}

bool idd_target_forget(struct idd_target *t)
{
	bool ok = true;

	if (t->backend && t->backend->ops->forget)
		ok = t->backend->ops->forget(t->backend);
	if (t->fallback && t->fallback->ops->forget)
		ok = t->fallback->ops->forget(t->fallback) && ok;
	return ok;
}

/* ---- the facts ---- */

const char *idd_target_vmcoreinfo(struct idd_target *t, const char *key)
{
	return idd_vmcoreinfo_get(&t->vmcoreinfo, key);
}

const char *idd_target_format(struct idd_target *t)
{
	if (t->flattened)
		return "flattened diskdump";
	return t->format ? t->format : "unknown";
}

bool idd_target_has_backend(const struct idd_target *t)
{
	return t->backend != NULL;
}

const char *idd_target_path(const struct idd_target *t)
{
	return t->path ? t->path : "memory";
}

bool idd_target_little_endian(struct idd_target *t)
{
	return t->little_endian;
}

bool idd_target_big_endian(const struct idd_target *t)
{
	return !t->little_endian;
}

uint64_t idd_target_uint(const struct idd_target *t, const void *p, size_t n)
{
	return idd_load(p, n, !t->little_endian);
}

int idd_target_dump_level(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	return ops->dump_level ? ops->dump_level(t->backend) : -1;
}

const char *idd_target_compression(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	if (ops->compression)
		return ops->compression(t->backend);
	/* ELF holds every page as it is. */
	return t->format && !strcmp(t->format, "elf") ? "none" : NULL;
}

const char *idd_target_writer(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	return ops->writer ? ops->writer(t->backend) : NULL;
}

int idd_target_pfn_state(struct idd_target *t, uint64_t pfn)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	return ops->pfn_state ? ops->pfn_state(t->backend, pfn)
			      : IDD_PFN_UNKNOWN;
}

uint64_t idd_target_max_pfn(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	return ops->max_pfn ? ops->max_pfn(t->backend) : 0;
}

bool idd_target_is_memory(const struct idd_target *t)
{
	return t->fd < 0;
}

void idd_target_default_arch(struct idd_target *t, const char *arch)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	if (arch && strlen(arch) < sizeof(t->default_arch))
		strcpy(t->default_arch, arch);
	idd_target_settle_order(t);
	/* no header to complete: kept for idd_target_kernel_map() alone */
	if (!arch || !ops->arch || !t->default_arch[0])
		return;
	if (ops->set_default_arch)
		ops->set_default_arch(t->backend, t->default_arch);
	/*
	 * A walk tried before the backend knew its machine (libkdumpfile
	 * reads no physical memory until then): tried again on next need.
	 */
	if (t->walk_state < 0 && t->walk_why && !t->walk_damage) {
		t->walk_state = 0;
		t->walk_why = NULL;
	}
	if (t->fallback)
		t->fallback->ops->set_default_arch(t->fallback,
						   t->default_arch);
}

const char *idd_target_arch(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;
	const char *arch;

	if (!ops->arch)
		return NULL;
	arch = ops->arch(t->backend);
	if (!arch && !ops->set_default_arch && t->default_arch[0])
		arch = t->default_arch;
	return arch;
}

const char *idd_target_vmcoreinfo_arch(struct idd_target *t)
{
	const struct idd_arch_ops *a = idd_arch_of_vmcoreinfo(&t->vmcoreinfo);

	return a ? a->name : NULL;
}

void idd_target_kernel_map(struct idd_target *t,
			   struct idd_target_kernel_map *out)
{
	const struct idd_arch_ops *a = t->arch;

	memset(out, 0, sizeof(*out));
	if (!a)
		a = idd_arch_find(idd_target_arch(t));
	if (!a) /* a caller's reader: vmlinux's machine, else VMCOREINFO's */
		a = idd_arch_find(t->default_arch);
	if (!a)
		a = idd_arch_of_vmcoreinfo(&t->vmcoreinfo);
	if (a)
		a->kernel_map(&t->vmcoreinfo, out);
}

uint64_t idd_target_page_size(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;
	uint64_t size = ops->page_size ? ops->page_size(t->backend) : 0;
	const char *v;
	char *end;

	/* a caller's reader has no pages of its own: VMCOREINFO's */
	if (!size && (v = idd_target_vmcoreinfo(t, "PAGESIZE"))) {
		size = strtoull(v, &end, 10);
		if (*end || !size || (size & (size - 1)))
			size = 0;
	}
	return size;
}

const char *idd_target_page_size_whence(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;
	const char *w;

	if (!ops->page_size || !ops->page_size(t->backend))
		return "VMCOREINFO PAGESIZE";
	w = ops->page_size_whence ? ops->page_size_whence(t->backend) : NULL;
	return w ? w : "dump header";
}

const char *idd_target_uts_release(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	return ops->uts_release ? ops->uts_release(t->backend) : NULL;
}

const char *idd_target_reader(const struct idd_target *t)
{
	return t->backend->ops->reader;
}

unsigned long idd_target_fallbacks(const struct idd_target *t)
{
	return t->fallbacks;
}

/* ---- reads ---- */

bool idd_target_read_phys(struct idd_target *t, uint64_t pa, void *buf,
			  size_t len)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	return ops->read_phys && ops->read_phys(t->backend, pa, buf, len);
}

static bool walk_read_phys(void *arg, uint64_t pa, void *buf, size_t len)
{
	return idd_target_read_phys(arg, pa, buf, len);
}

/*
 * The kernel's page tables map their own root: VMCOREINFO's root symbol
 * must translate to the physical address the walk took from VMCOREINFO
 * (phys_base 0, a VA size the MMU does not run: said, not walked).
 */
static bool root_maps_itself(struct idd_target *t,
			     const struct idd_arch_ops *arch)
{
	uint64_t va, pa, got = 0, left, word;
	bool ours;

	/* a dump file's (memory images: tests' tables, callers' memory) */
	if (t->fd < 0 || !arch->root ||
	    !arch->root(&t->walk, &t->walk_env, &va, &pa))
		return true;
	t->backend->absent = false;
	/*
	 * A root libkdumpfile cannot read says nothing of VMCOREINFO (it
	 * fails physical reads of makedumpfile's ELF), nor one our reader
	 * finds damaged (a cut file); one out of the dump's memory or left
	 * out by its writer (none drops the page tables) does.
	 */
	ours = !strcmp(t->backend->ops->reader, "inodedump");
	/* a page our reader finds damaged is that damage, said by reads */
	if ((!idd_target_read_phys(t, pa, &word, sizeof(word)) &&
	     (!ours || t->backend->damage)) ||
	    (arch->translate(&t->walk, &t->walk_env, va, &got, &left) &&
	     got == pa)) {
		inodedump_error_free(t->backend->damage);
		t->backend->damage = NULL;
		t->backend->absent = false;
		return true;
	}
	t->backend->absent = false;
	inodedump_error_free(t->backend->damage);
	t->backend->damage = NULL;
	snprintf(t->walk_buf, sizeof(t->walk_buf), "VMCOREINFO and the dump "
		 "disagree: the root table 0x%llx is not at physical 0x%llx, "
		 "where %s put it (the tables there do not map it, or the "
		 "dump has no memory there)",
		 (unsigned long long)va, (unsigned long long)pa,
		 arch->walk_keys);
	t->walk_why = t->walk_buf;
	return false;
}

/* Whether our walk can be used, set up on first need. */
static bool walk_ready(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;
	const struct idd_arch_ops *arch;
	uint64_t size;

	if (t->walk_state)
		return t->walk_state > 0;
	arch = idd_arch_find(idd_target_arch(t));
	/* A header without the machine (QEMU's kdump): VMCOREINFO's keys. */
	if (!arch && !idd_target_arch(t))
		arch = idd_arch_of_vmcoreinfo(&t->vmcoreinfo);
	t->walk_state = -1;
	size = idd_target_page_size(t);
	/* One page size, one of those the walk knows. */
	if (!ops->read_phys)
		return false;
	if (!arch) {
		snprintf(t->walk_buf, sizeof(t->walk_buf), "no architecture "
			 "it walks (\"%.32s\")", idd_target_arch(t) ?
			 idd_target_arch(t) : "none named, VMCOREINFO's keys "
			 "name none");
		t->walk_why = t->walk_buf;
		return false;
	}
	if ((size & (size - 1)) || !(size & arch->page_sizes)) {
		snprintf(t->walk_buf, sizeof(t->walk_buf), "a page size of "
			 "%llu, none %s has", (unsigned long long)size,
			 arch->name);
		t->walk_why = t->walk_buf;
		return false;
	}
	/* Its tables are in the order of its kernels, which this is not. */
	if (t->little_endian == arch->big_endian) {
		t->walk_why = t->little_endian ? "a little-endian kernel"
					       : "a big-endian kernel";
		return false;
	}
	/* A Xen dump's physical addresses are not the machine's. */
	if (ops->machine_physical && !ops->machine_physical(t->backend)) {
		t->walk_why = "a Xen dump (machine frames, not physical "
			      "addresses)";
		return false;
	}
	t->arch = arch;
	t->walk_env = (struct idd_walk_env){
		.info = &t->vmcoreinfo,
		.read_phys = walk_read_phys,
		.arg = t,
	};
	if (arch->walk_init(&t->walk, &t->walk_env))
		t->walk_state = root_maps_itself(t, arch) ? 1 : -1;
	else if (t->backend->damage) {
		t->walk_damage = t->backend->damage;
		t->backend->damage = NULL;
	} else {
		snprintf(t->walk_buf, sizeof(t->walk_buf), "VMCOREINFO "
			 "lacks or breaks one of %s", arch->walk_keys);
		t->walk_why = t->walk_buf;
	}
	return t->walk_state > 0;
}

const char *idd_target_walk_why(struct idd_target *t)
{
	const struct idd_backend_ops *ops = t->backend->ops;

	/* Only a file our reader reads, whose reads libkdumpfile would do. */
	if (t->fd < 0 || ops->translates || !ops->read_phys ||
	    !t->open_fallback || walk_ready(t))
		return NULL;
	return t->walk_why;
}

static bool translate(struct idd_target *t, uint64_t va, uint64_t *pa,
		      uint64_t *left)
{
	return t->arch->translate(&t->walk, &t->walk_env, va, pa, left);
}

bool idd_target_walk(struct idd_target *t, uint64_t va, uint64_t *pa)
{
	uint64_t left;

	return walk_ready(t) && translate(t, va, pa, &left);
}

const char *idd_target_translation(struct idd_target *t)
{
	if (walk_ready(t))
		return t->arch->describe(&t->walk);
	return t->backend->ops->translation;
}

/*
 * The offset in [pa, pa + n) of the first page the dump lacks, read a page
 * at a time: a read that crosses into a page the writer left out names
 * that page, not the first one (which may well be there). 0 when no page
 * alone fails.
 */
static uint64_t first_absent(struct idd_target *t, uint64_t pa, uint8_t *buf,
			     size_t n)
{
	struct idd_backend *b = t->backend;
	uint64_t page = idd_target_page_size(t), off = 0;

	if (!page)
		page = 4096;
	while (off < n) {
		uint64_t chunk = page - ((pa + off) & (page - 1));
		bool got;

		if (chunk > n - off)
			chunk = n - off;
		b->absent = false;
		got = idd_target_read_phys(t, pa + off, buf + off,
					   (size_t)chunk);
		inodedump_error_free(b->damage);
		b->damage = NULL;
		if (!got)
			return b->absent ? off : 0;
		off += chunk;
	}
	return 0;
}

/*
 * Reads through our own walk: true when it answered (*err NULL: read;
 * else what our reader found: damage, or a page its writer left out);
 * false sends the caller elsewhere.
 */
static bool walk_read(struct idd_target *t, uint64_t addr, uint8_t *buf,
		      size_t len, struct inodedump_error **err)
{
	struct idd_backend *b = t->backend;
	bool merge = true;

	*err = NULL;
	if (!walk_ready(t))
		return false;
	while (len) {
		uint64_t pa = 0, left;
		size_t n = 0;
		bool ok, translated;
		const char *why;

		b->absent = false;
		ok = translated = translate(t, addr, &pa, &left);
		if (ok) {
			size_t one;

			n = one = left < len ? (size_t)left : len;
			/*
			 * The mappings after it that go on in physical memory
			 * (the kernel image's 2 MiB pages): one read, which
			 * a reader can spread over threads. Should it fail,
			 * the range is read again a mapping at a time, so
			 * that what is said names the mapping that failed.
			 */
			while (merge && n < len) {
				uint64_t pa2, left2;

				if (!translate(t, addr + n, &pa2, &left2) ||
				    pa2 != pa + n)
					break;
				n += left2 < len - n ? (size_t)left2 : len - n;
			}
			b->absent = false;
			ok = idd_target_read_phys(t, pa, buf, n);
			if (!ok && n > one) {
				inodedump_error_free(b->damage);
				b->damage = NULL;
				merge = false;
				continue;
			}
		}
		if (b->damage) {
			*err = idd_error_damage(idd_error_at(
				INODEDUMP_ERR_FAULT, addr, "address 0x%llx: %s",
				(unsigned long long)addr, b->damage->message));
			inodedump_error_free(b->damage);
			b->damage = NULL;
			return true;
		}
		if (!ok) {
			/* A page the writer left out: ours says so too. */
			if (b->absent && translated) {
				uint64_t off = first_absent(t, pa, buf, n);

				*err = idd_target_filtered(t, addr + off,
							   pa + off);
			}
			/*
			 * The lower half is user space: the kernel's own page
			 * tables never map it, so nothing else may translate
			 * it (libkdumpfile takes an ELF dump's p_vaddr 0
			 * segments for a map of it and reads physical memory).
			 */
			else if (!translated && !(addr >> 63) &&
				 !t->arch->own_user_space)
				*err = idd_error_at(INODEDUMP_ERR_FAULT, addr,
					"address 0x%llx is not mapped by the "
					"kernel's page tables in this dump "
					"(a user-space address)",
					(unsigned long long)addr);
			/*
			 * Tables no one can walk (a loop, a table outside
			 * memory): said, not handed to libkdumpfile.
			 */
			else if (!translated && t->arch->broken &&
				 (why = t->arch->broken(&t->walk)))
				*err = idd_error_at(INODEDUMP_ERR_FAULT, addr,
					"address 0x%llx cannot be translated: "
					"%s", (unsigned long long)addr, why);
			b->absent = false;
			return *err != NULL;
		}
		addr += n;
		buf += n;
		len -= n;
	}
	return true;
}

/* libkdumpfile over our reader's file, opened on first need. */
static struct inodedump_error *open_fallback(struct idd_target *t)
{
	struct inodedump_error *err;

	if (t->fallback)
		return NULL;
	if (t->fallback_failed)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s is not a dump libkdumpfile can read%s%s",
				 t->path, t->fallback_why ? ": " : "",
				 t->fallback_why ? t->fallback_why : "");
	err = t->open_fallback
		      ? t->open_fallback(t, t->fd, t->path, t->dump_level,
					 t->default_arch, &t->fallback)
		      : idd_error(INODEDUMP_ERR_DUMP,
				  "%s: nothing else can read it", t->path);
	if (err) {
		/* Each later read says it again: the first may go unsaid. */
		t->fallback_failed = true;
		t->fallback_why = strdup(inodedump_error_message(err));
	}
	return err;
}

struct inodedump_error *idd_target_read(struct idd_target *t, uint64_t addr,
					void *buf, size_t len)
{
	struct idd_backend *b = t->backend;
	struct inodedump_error *err;

	if (addr + len < addr)
		return idd_error_at(INODEDUMP_ERR_FAULT, addr,
				    "read of %zu bytes at 0x%llx wraps around",
				    len, (unsigned long long)addr);
	if (b->ops->translates)
		return b->ops->read_virt(b, addr, buf, len);
	if (walk_read(t, addr, buf, len, &err))
		return err;
	if (t->walk_damage) /* never handed to libkdumpfile, which trusts it */
		return idd_error_at(INODEDUMP_ERR_FAULT, addr,
				    "address 0x%llx cannot be translated: %s",
				    (unsigned long long)addr,
				    t->walk_damage->message);
	if (t->fd < 0) /* a physical image: nothing else translates */
		return idd_error_at(INODEDUMP_ERR_FAULT, addr,
				    "address 0x%llx is not mapped by the "
				    "kernel's page tables in this image",
				    (unsigned long long)addr);
	/* What our walk or reader cannot do, libkdumpfile does (and explains). */
	t->fallbacks++;
	if (!b->ops->read_virt) {
		err = open_fallback(t);
		if (err)
			return idd_error_wrap(err, "reading 0x%llx",
					      (unsigned long long)addr);
		b = t->fallback;
	}
	err = b->ops->read_virt(b, addr, buf, len);
	/* what libkdumpfile says of a translation that was ours to do */
	if (err && t->walk_why)
		err = idd_error_wrap(err, "inodedump's page walk cannot start "
				     "(%s), and libkdumpfile", t->walk_why);
	return err;
}

struct inodedump_error *idd_target_read_u64(struct idd_target *t,
					    uint64_t addr, uint64_t *out)
{
	uint8_t buf[8];
	struct inodedump_error *err = idd_target_read(t, addr, buf, 8);

	if (!err)
		*out = idd_load(buf, 8, !t->little_endian);
	return err;
}

struct inodedump_error *idd_target_read_uint(struct idd_target *t,
					     uint64_t addr, size_t n,
					     uint64_t *out)
{
	uint8_t buf[8];
	struct inodedump_error *err;

	if (n > sizeof(buf))
		n = sizeof(buf);
	err = idd_target_read(t, addr, buf, n);
	if (!err)
		*out = idd_load(buf, n, !t->little_endian);
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

/* ---- what a filtered page says ---- */

static bool is_filtering_format(const char *format)
{
	/* Formats whose writer may leave pages out on purpose. */
	return format && (!strcmp(format, "diskdump") ||
			  !strcmp(format, "compressed") ||
			  !strcmp(format, "kdump") || !strcmp(format, "sadump"));
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

struct inodedump_error *idd_target_read_unexplained(struct idd_target *t,
						    uint64_t addr, void *buf,
						    size_t len)
{
	bool was = t->explaining;
	struct inodedump_error *err;

	t->explaining = true;
	err = idd_target_read(t, addr, buf, len);
	t->explaining = was;
	return err;
}

void idd_target_set_explain(struct idd_target *t, idd_filtered_explain_fn fn,
			    void *arg)
{
	t->explain = fn;
	t->explain_arg = arg;
}

struct inodedump_error *idd_target_filtered(struct idd_target *t,
					    uint64_t addr, uint64_t phys)
{
	char level[128] = "dump level unknown";
	char *why = NULL;
	struct inodedump_error *err;
	int dump_level;

	if (!is_filtering_format(t->format))
		return NULL;
	dump_level = idd_target_dump_level(t);

	if (dump_level >= 0)
		describe_level(dump_level, level, sizeof(level));
	if (t->explain && !t->explaining) {
		t->explaining = true;
		why = t->explain(t->explain_arg, phys);
		t->explaining = false;
	}
	err = idd_error_at(INODEDUMP_ERR_FILTERED, addr,
			   "address 0x%llx (physical 0x%llx) was filtered "
			   "out of the dump by its writer (%s)%s%s",
			   (unsigned long long)addr, (unsigned long long)phys,
			   level, why ? ": " : "", why ? why : "");
	free(why);
	return err;
}
