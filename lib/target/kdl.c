// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libkdumpfile through dlopen(3): the functions target.c calls (kdl.h
 * renames them to these), each forwarding to the library's own, loaded on
 * the first call. If the library cannot be loaded, kdump_new() returns NULL
 * and idd_kdl_load_error() says why.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <libkdumpfile/kdumpfile.h>

#include "target/target.h"
#include "target/kdl.h"

/* The real names: kdl.h's macros would turn them into ours. */
#undef kdump_new
#undef kdump_free
#undef kdump_set_attr
#undef kdump_get_typed_attr
#undef kdump_get_err
#undef kdump_read
#undef kdump_vmcoreinfo_raw
#undef kdump_get_addrxlat
#undef addrxlat_fulladdr_conv
#undef addrxlat_ctx_decref
#undef addrxlat_sys_decref

/* The soname the headers we build with belong to. */
#define KDL_SONAME "libkdumpfile.so.10"

static struct {
	__typeof__(kdump_new) *new_;
	__typeof__(kdump_free) *free_;
	__typeof__(kdump_set_attr) *set_attr;
	__typeof__(kdump_get_typed_attr) *get_typed_attr;
	__typeof__(kdump_get_err) *get_err;
	__typeof__(kdump_read) *read;
	__typeof__(kdump_vmcoreinfo_raw) *vmcoreinfo_raw;
	__typeof__(kdump_get_addrxlat) *get_addrxlat;
	__typeof__(addrxlat_fulladdr_conv) *fulladdr_conv;
	__typeof__(addrxlat_ctx_decref) *ctx_decref;
	__typeof__(addrxlat_sys_decref) *sys_decref;
} K;
static char load_error[512];
/*
 * A mutex, not pthread_once(): glibc's pthread_once() always wakes waiters
 * with a futex call, which aborts the process on a kernel built without
 * futexes (our live-test guest); an uncontended mutex makes no system call.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p && !load_error[0])
		snprintf(load_error, sizeof(load_error),
			 "%s has no %s: %s", KDL_SONAME, name, dlerror());
	return p;
}

static void load_once(void)
{
	void *h = dlopen(KDL_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(load_error, sizeof(load_error),
			 "cannot load libkdumpfile: %s", dlerror());
		return;
	}
	/* Function pointers from void *: POSIX guarantees the conversion. */
#define LOAD(field, name) \
	*(void **)(void *)&K.field = sym(h, name)
	LOAD(new_, "kdump_new");
	LOAD(free_, "kdump_free");
	LOAD(set_attr, "kdump_set_attr");
	LOAD(get_typed_attr, "kdump_get_typed_attr");
	LOAD(get_err, "kdump_get_err");
	LOAD(read, "kdump_read");
	LOAD(vmcoreinfo_raw, "kdump_vmcoreinfo_raw");
	LOAD(get_addrxlat, "kdump_get_addrxlat");
	LOAD(fulladdr_conv, "addrxlat_fulladdr_conv");
	LOAD(ctx_decref, "addrxlat_ctx_decref");
	LOAD(sys_decref, "addrxlat_sys_decref");
#undef LOAD
	if (load_error[0])
		K.new_ = NULL; /* nothing is used without a context */
}

static void load(void)
{
	pthread_mutex_lock(&lock);
	if (!loaded) {
		load_once();
		loaded = true;
	}
	pthread_mutex_unlock(&lock);
}

const char *idd_kdl_load_error(void)
{
	load();
	return load_error[0] ? load_error : NULL;
}

kdump_ctx_t *idd_kdl_new(void)
{
	load();
	return K.new_ ? K.new_() : NULL;
}

/* The rest are only reached with a context kdump_new() made. */
void idd_kdl_free(kdump_ctx_t *ctx)
{
	K.free_(ctx);
}

kdump_status idd_kdl_set_attr(kdump_ctx_t *ctx, const char *key,
			      const kdump_attr_t *valp)
{
	return K.set_attr(ctx, key, valp);
}

kdump_status idd_kdl_get_typed_attr(kdump_ctx_t *ctx, const char *key,
				    kdump_attr_t *valp)
{
	return K.get_typed_attr(ctx, key, valp);
}

const char *idd_kdl_get_err(kdump_ctx_t *ctx)
{
	return K.get_err(ctx);
}

kdump_status idd_kdl_read(kdump_ctx_t *ctx, kdump_addrspace_t as,
			  kdump_addr_t addr, void *buffer, size_t *plength)
{
	return K.read(ctx, as, addr, buffer, plength);
}

kdump_status idd_kdl_vmcoreinfo_raw(kdump_ctx_t *ctx, char **raw)
{
	return K.vmcoreinfo_raw(ctx, raw);
}

kdump_status idd_kdl_get_addrxlat(kdump_ctx_t *ctx, addrxlat_ctx_t **axctx,
				  addrxlat_sys_t **axsys)
{
	return K.get_addrxlat(ctx, axctx, axsys);
}

addrxlat_status idd_kdl_fulladdr_conv(addrxlat_fulladdr_t *faddr,
				      addrxlat_addrspace_t as,
				      addrxlat_ctx_t *ctx, addrxlat_sys_t *sys)
{
	return K.fulladdr_conv(faddr, as, ctx, sys);
}

unsigned long idd_kdl_ctx_decref(addrxlat_ctx_t *ctx)
{
	return K.ctx_decref(ctx);
}

unsigned long idd_kdl_sys_decref(addrxlat_sys_t *sys)
{
	return K.sys_decref(sys);
}
