// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A caller's reader (inodedump_read_fn) instead of a dump: a drgn or
 * crash session, or a test, supplies memory the way a dump file does.
 * Kernel addresses go to it as they are; it translates.
 */
#include <stdlib.h>

#include "target/backend.h"

struct reader {
	struct idd_backend base;
	inodedump_read_fn read;
	void *arg;
};

static struct reader *to_reader(struct idd_backend *b)
{
	return (struct reader *)b;
}

static struct inodedump_error *reader_read_virt(struct idd_backend *b,
						uint64_t addr, void *buf,
						size_t len)
{
	struct reader *r = to_reader(b);
	int rc = r->read(buf, addr, len, false, r->arg);

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

static bool reader_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
			     size_t len)
{
	struct reader *r = to_reader(b);

	return r->read(buf, pa, len, true, r->arg) == 0;
}

static const char *reader_format(struct idd_backend *b)
{
	(void)b;
	return "reader";
}

static void reader_close(struct idd_backend *b)
{
	free(b);
}

static const struct idd_backend_ops reader_ops = {
	.reader = "caller",
	.translation = "caller",
	.translates = true,
	.read_phys = reader_read_phys,
	.read_virt = reader_read_virt,
	.format = reader_format,
	.close = reader_close,
};

struct inodedump_error *idd_target_open_reader(inodedump_read_fn read,
					       void *arg,
					       const char *vmcoreinfo,
					       struct idd_target **out)
{
	struct idd_target *t;
	struct reader *r;

	if (!read)
		return idd_error(INODEDUMP_ERR_USAGE, "no read function given");
	t = idd_target_new();
	r = calloc(1, sizeof(*r));
	if (!t || !r) {
		free(r);
		idd_target_close(t);
		return idd_nomem();
	}
	r->base.ops = &reader_ops;
	r->read = read;
	r->arg = arg;
	idd_target_attach(t, &r->base);
	if (vmcoreinfo)
		idd_target_parse_vmcoreinfo(t, vmcoreinfo);
	*out = t;
	return NULL;
}
