// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmlinux (and a loaded module's debug file) by build-id from debuginfod
 * (DEBUGINFOD_URLS), through elfutils' libdebuginfod, loaded with dlopen(3) only when the variable is set. It
 * caches what it fetches where it always does (~/.cache/debuginfod_client,
 * or DEBUGINFOD_CACHE_PATH). A server that never answers must not hang a
 * run: a query that receives nothing for INODEDUMP_DEBUGINFOD_STALL seconds
 * (default 30; libdebuginfod's own DEBUGINFOD_TIMEOUT, 90, also applies)
 * is abandoned. On a terminal, the download's progress goes to stderr.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decode/inode.h"

#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

struct progress {
	long last_done;
	double last_change;
	double stall;
	bool tty, printed, gave_up;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __typeof__(debuginfod_get_user_data) *get_user_data;

static int on_progress(debuginfod_client *c, long done, long total)
{
	struct progress *p = get_user_data(c);
	double t = now();

	/*
	 * Until a server answers, libdebuginfod passes its loop count as
	 * done (one more per call, about one a second): that is no progress.
	 * Bytes are, once a download has begun (a size known, or done
	 * growing by more than one).
	 */
	if ((total > 0 && done != p->last_done) || done > p->last_done + 1)
		p->last_change = t;
	else if (t - p->last_change > p->stall)
		return p->gave_up = true; /* nothing for too long: give up */
	p->last_done = done;
	if (p->tty && done > (1 << 20)) {
		fprintf(stderr, "\rvmcore-inode: debuginfod: %ld of %ld MiB",
			done >> 20, total > 0 ? total >> 20 : 0);
		p->printed = true;
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *idd_debuginfod_vmlinux(const char *build_id, char **why)
{
	return idd_debuginfod_fetch(build_id, "vmlinux", why);
}

char *idd_debuginfod_fetch(const char *build_id, const char *what, char **why)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *stall = getenv("INODEDUMP_DEBUGINFOD_STALL");
	struct progress p = { .last_change = now(), .stall = 30,
			      .tty = isatty(2) };
	unsigned char id[64];
	size_t n = 0;
	char *path = NULL;
	void *h;
	int fd;

	*why = NULL;
	if (!urls || !*urls || !build_id)
		return NULL;
	for (; build_id[2 * n] && build_id[2 * n + 1] && n < sizeof(id); n++) {
		int hi = hexval(build_id[2 * n]), lo = hexval(build_id[2 * n + 1]);

		if (hi < 0 || lo < 0)
			return NULL;
		id[n] = (unsigned char)(hi << 4 | lo);
	}
	if (stall && atof(stall) > 0)
		p.stall = atof(stall);
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*why = idd_strdup_printf("cannot load %s (Debian: apt install "
					 "libdebuginfod1)", DEBUGINFOD_SONAME);
		return NULL;
	}
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find;
	__typeof__(debuginfod_set_progressfn) *set_progress;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	/* POSIX guarantees the conversion from void *. */
#define LOAD(var, name) *(void **)(void *)&var = dlsym(h, name)
	LOAD(begin, "debuginfod_begin");
	LOAD(end, "debuginfod_end");
	LOAD(find, "debuginfod_find_debuginfo");
	LOAD(set_progress, "debuginfod_set_progressfn");
	LOAD(set_user_data, "debuginfod_set_user_data");
	LOAD(get_user_data, "debuginfod_get_user_data");
#undef LOAD
	debuginfod_client *c;

	if (!begin || !end || !find || !set_progress || !set_user_data ||
	    !get_user_data || !(c = begin())) {
		*why = idd_strdup_printf("%s is unusable", DEBUGINFOD_SONAME);
		dlclose(h);
		return NULL;
	}
	set_user_data(c, &p);
	set_progress(c, on_progress);
	fd = find(c, id, (int)n, &path);
	if (p.printed)
		fputc('\n', stderr);
	end(c);
	/* libdebuginfod stays loaded: its curl handles are process-wide. */
	if (fd < 0) {
		if (p.gave_up)
			*why = idd_strdup_printf(
				"debuginfod (%s) sent nothing for %g s: gave up "
				"on %s %s", urls, p.stall, what, build_id);
		else
			*why = idd_strdup_printf(
				"debuginfod (%s) has no %s with build-id "
				"%s: %s", urls, what, build_id,
				fd == -ENOENT ? "not found" : strerror(-fd));
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}
