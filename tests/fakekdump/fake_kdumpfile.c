// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A libkdumpfile.so.10 that misbehaves on purpose, for the tests of the
 * child process libkdumpfile runs in (lib/target/sandbox.c): loaded in
 * place of the real one with LD_LIBRARY_PATH. It takes any file, answers
 * VMCOREINFO from $FAKE_KDUMPFILE_VMCOREINFO and no other attribute, and
 * on kdump_read() does what $FAKE_KDUMPFILE says:
 *   segv   dies of SIGSEGV, as 0.5.1 does on a damaged descriptor
 *   alloc  asks for 64 GiB, as 0.5.1 does for a huge e_phnum
 *   loop   never returns: spins, as a library caught in a loop by a
 *          dump's damage would (for the parent's timeout)
 *   open   opens /etc/hostname (a library taken over would)
 * The functions are the ones lib/target/kdl.c loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libkdumpfile/kdumpfile.h>

static char err[256] = "fake libkdumpfile";

kdump_ctx_t *kdump_new(void)
{
	return malloc(1);
}

void kdump_free(kdump_ctx_t *ctx)
{
	free(ctx);
}

kdump_status kdump_set_attr(kdump_ctx_t *ctx, const char *key,
			    const kdump_attr_t *valp)
{
	(void)ctx, (void)key, (void)valp;
	return KDUMP_OK;
}

kdump_status kdump_get_typed_attr(kdump_ctx_t *ctx, const char *key,
				  kdump_attr_t *valp)
{
	(void)ctx, (void)valp;
	snprintf(err, sizeof(err), "fake libkdumpfile has no %s", key);
	return KDUMP_ERR_NOKEY;
}

const char *kdump_get_err(kdump_ctx_t *ctx)
{
	(void)ctx;
	return err;
}

kdump_status kdump_read(kdump_ctx_t *ctx, kdump_addrspace_t as,
			kdump_addr_t addr, void *buffer, size_t *plength)
{
	const char *what = getenv("FAKE_KDUMPFILE");

	(void)ctx, (void)as, (void)addr, (void)buffer;
	*plength = 0;
	if (what && !strcmp(what, "segv"))
		raise(SIGSEGV);
	if (what && !strcmp(what, "loop")) {
		volatile unsigned long spins = 0;

		for (;;)
			spins++;
	}
	if (what && !strcmp(what, "alloc")) {
		void *p = malloc((size_t)64 << 30);

		snprintf(err, sizeof(err), "allocation of 64 GiB %s",
			 p ? "succeeded" : "refused");
		free(p);
	}
	if (what && !strcmp(what, "open")) {
		int fd = open("/etc/hostname", O_RDONLY);

		snprintf(err, sizeof(err), "open /etc/hostname: %s",
			 fd >= 0 ? "succeeded" : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return KDUMP_ERR_SYSTEM;
}

kdump_status kdump_vmcoreinfo_raw(kdump_ctx_t *ctx, char **raw)
{
	const char *path = getenv("FAKE_KDUMPFILE_VMCOREINFO");
	FILE *f = path ? fopen(path, "re") : NULL;
	size_t len;

	(void)ctx;
	if (!f)
		return KDUMP_ERR_NODATA;
	*raw = calloc(1, 1 << 16);
	len = *raw ? fread(*raw, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	return len ? KDUMP_OK : KDUMP_ERR_NODATA;
}

kdump_status kdump_get_addrxlat(kdump_ctx_t *ctx, addrxlat_ctx_t **axctx,
				addrxlat_sys_t **axsys)
{
	(void)ctx, (void)axctx, (void)axsys;
	return KDUMP_ERR_NOTIMPL;
}

addrxlat_status addrxlat_fulladdr_conv(addrxlat_fulladdr_t *faddr,
				       addrxlat_addrspace_t as,
				       addrxlat_ctx_t *ctx, addrxlat_sys_t *sys)
{
	(void)faddr, (void)as, (void)ctx, (void)sys;
	return ADDRXLAT_ERR_NOTIMPL;
}

unsigned long addrxlat_ctx_decref(addrxlat_ctx_t *ctx)
{
	(void)ctx;
	return 0;
}

unsigned long addrxlat_sys_decref(addrxlat_sys_t *sys)
{
	(void)sys;
	return 0;
}
