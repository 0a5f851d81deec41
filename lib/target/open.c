// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * target: opening a dump file and choosing the backend that reads it
 * (our kdump-compressed or ELF reader, else libkdumpfile), the flattened
 * format put in place first; and the libkdumpfile opener a target falls
 * back to when our reader cannot answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "target/backend.h"
#include "target/target.h"
#include "target/target_internal.h"

#define PROC_SUPER_MAGIC_ 0x9fa0

int idd_open_input(const char *path, bool devices, const char **why)
{
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int flags;

	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*why = strerror(errno);
	} else if (S_ISDIR(st.st_mode)) {
		*why = "a directory, not a file";
	} else if (S_ISBLK(st.st_mode) && !devices) {
		*why = "a block device, not a regular file";
	} else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		*why = S_ISFIFO(st.st_mode)	  ? "a FIFO, not a regular file"
		       : S_ISCHR(st.st_mode)  ? "a character device, not a "
						"regular file"
		       : S_ISSOCK(st.st_mode) ? "a socket, not a regular file"
					      : "not a regular file";
	} else if ((flags = fcntl(fd, F_GETFL)) < 0 ||
		   fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		*why = strerror(errno);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

static struct inodedump_error *open_fd(const char *path, int *fd)
{
	const char *why;
	int e;

	/* A dump may sit on a raw partition: block devices too. */
	*fd = idd_open_input(path, true, &why);
	if (*fd >= 0)
		return NULL;
	e = errno;
	if ((e == EACCES || e == EPERM) && !strcmp(path, "/proc/kcore"))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "cannot open /proc/kcore: %s: reading the live "
				 "kernel needs root (CAP_SYS_RAWIO)", why);
	if (!strcmp(path, "/proc/kcore"))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "cannot open /proc/kcore: %s: reading the live "
				 "kernel needs it (CONFIG_PROC_KCORE, /proc "
				 "mounted)", why);
	return idd_error(INODEDUMP_ERR_DUMP, "cannot open dump %s: %s", path,
			 why);
}

/*
 * The file's backend: our reader when it takes the file (its header
 * parsed once, refused when it does not fit the file), else libkdumpfile
 * unless ours_only. /proc/kcore (t->kcore: a file taken for one) is our
 * kcore reader's, else libkdumpfile's, why said.
 */
static struct inodedump_error *choose_backend(struct idd_target *t,
					      bool ours_only,
					      struct idd_backend **out)
{
	off_t size = lseek(t->fd, 0, SEEK_END);
	struct statfs fs;
	struct inodedump_error *err;

	*out = NULL;
	if (t->kcore ||
	    (fstatfs(t->fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC_)) {
		t->walk_state = -1; /* its addresses are virtual ones */
		err = idd_kcore_probe(t, t->path, t->fd, out);
		if (err || *out)
			return err;
		if (t->kcore)
			return idd_error(INODEDUMP_ERR_DUMP,
					 "%s: not a kcore our reader takes: %s",
					 t->path, t->declined ? t->declined
							      : "unknown");
	} else {
		err = idd_diskdump_probe(t, t->path, t->fd, size, size > 0,
					 &t->dump_level, out);
		if (!err && !*out)
			err = idd_elf_probe(t, t->path, t->fd, size, size > 0,
					    out);
		if (err || *out)
			return err;
	}
	if (ours_only)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: not a dump our readers take", t->path);
	return idd_kdumpfile_open(t, t->fd, t->path, t->dump_level,
				  t->default_arch, out);
}

static struct inodedump_error *open_file(const char *path, bool ours_only,
					 bool kcore, struct idd_target **out)
{
	struct idd_target *t = idd_target_new();
	struct idd_backend *b;
	struct inodedump_error *err;

	if (!t)
		return idd_nomem();
	t->kcore = kcore;
	t->path = strdup(path);
	err = t->path ? open_fd(path, &t->fd) : idd_nomem();
	if (!err && !ours_only && idd_flattened_is(t->fd)) {
		int flat = t->fd;

		err = idd_flattened_unflatten(path, flat, &t->fd);
		close(flat);
		if (err)
			t->fd = -1;
		t->flattened = true;
	}
	if (!err)
		err = choose_backend(t, ours_only, &b);
	if (err) {
		idd_target_close(t);
		return err;
	}
	idd_target_attach(t, b);
	/* a file our reader declined, now libkdumpfile's: why, if damage */
	idd_target_declined_say(t);
	t->open_fallback = idd_kdumpfile_open;
	*out = t;
	return NULL;
}

struct inodedump_error *idd_target_open(const char *path,
					struct idd_target **out)
{
	return open_file(path, false, false, out);
}

struct inodedump_error *idd_target_open_ours(const char *path,
					     struct idd_target **out)
{
	return open_file(path, true, false, out);
}

struct inodedump_error *idd_target_open_kcore(const char *path,
					      struct idd_target **out)
{
	return open_file(path, true, true, out);
}
