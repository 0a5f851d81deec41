// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libbpf for BTF parsed whole, loaded with dlopen(3) on first use so that
 * nothing that never reads BTF needs libbpf installed (the bridges'
 * chroots, a caller of the library with a vmlinux).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "types/btf_internal.h"

#define BPF_SONAME "libbpf.so.1"

struct idd_bpf idd_bpf;
static char bpf_error[512];
static pthread_mutex_t bpf_lock = PTHREAD_MUTEX_INITIALIZER;
static bool bpf_loaded;

static void *bpf_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p && !bpf_error[0])
		snprintf(bpf_error, sizeof(bpf_error), "%s has no %s", BPF_SONAME,
			 name);
	return p;
}

const char *idd_bpf_load(void)
{
	pthread_mutex_lock(&bpf_lock);
	if (!bpf_loaded) {
		void *h = dlopen(BPF_SONAME, RTLD_NOW | RTLD_LOCAL);

		bpf_loaded = true;
		if (!h) {
			snprintf(bpf_error, sizeof(bpf_error),
				 "cannot load %s (Debian: apt install libbpf1): %s",
				 BPF_SONAME, dlerror());
		} else {
			/* POSIX guarantees the conversion from void *. */
#define LOAD(field, name) *(void **)(void *)&idd_bpf.field = bpf_sym(h, name)
			LOAD(new_, "btf__new");
			LOAD(free_, "btf__free");
			LOAD(type_cnt, "btf__type_cnt");
			LOAD(type_by_id, "btf__type_by_id");
			LOAD(name_by_offset, "btf__name_by_offset");
			LOAD(resolve_size, "btf__resolve_size");
			/*
			 * Split BTF from bytes: Debian 12's libbpf 1.1 does
			 * not export btf__new_split(), so module BTF goes
			 * through a memfd and btf__parse_raw_split().
			 */
			LOAD(parse_raw_split, "btf__parse_raw_split");
#undef LOAD
		}
	}
	pthread_mutex_unlock(&bpf_lock);
	return bpf_error[0] ? bpf_error : NULL;
}
