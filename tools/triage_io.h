/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files as vmcore-inode --triage reads and writes them (triage_io.c), in a
 * directory others may write: every file is named relative to a directory
 * fd, opened without following a symlink and without waiting on a FIFO,
 * taken only when it is a regular file, read up to a bound; results go
 * through a temporary file created there and renamed. Names and paths
 * reach a person or a JSON file through the library's escapers. What runs
 * out of memory here ends the command (exit 3).
 */
#ifndef INODEDUMP_TRIAGE_IO_H
#define INODEDUMP_TRIAGE_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A saved log is read up to this many bytes; the rest is said, not read. */
#define TRIAGE_READ_MAX ((size_t)16 << 20)

/* Said, and the command ends (exit 3). */
void out_of_memory(void) __attribute__((noreturn));
/* realloc(), ending the command when it fails. */
void *xrealloc(void *p, size_t size);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* DIR/NAME, one slash between. */
char *path_join(const char *dir, const char *name);
/* s (NULL: "") as one JSON string, every byte kept (\u00XX above ASCII). */
void json_str(FILE *f, const char *s);
/* s as text for a terminal or a text file: control bytes escaped. */
void text_str(FILE *f, const char *s);
/* The same into a malloc'd string. */
char *escaped(const char *s);
/* s as json_str() writes it, without the quotes: to go inside a string. */
char *json_inside(const char *s);

/*
 * The bytes of an opened dump that tell it from another dump of the same
 * size and mtime second, whatever its format: its first TRIAGE_HEAD_BYTES
 * (a diskdump's header and sub-header blocks, an ELF core's headers and
 * notes, a flattened file's header and first pages) and its last page.
 */
#define TRIAGE_HEAD_BYTES ((size_t)64 << 10)
#define TRIAGE_TAIL_BYTES ((size_t)4 << 10)

/*
 * Those bytes of the regular file fd (size bytes long) hashed (FNV-1a,
 * 64 bits) into *hash: false, errno set, when they cannot be read.
 */
bool dump_fingerprint(int fd, off_t size, uint64_t *hash);

/* What a file of this mode is, when it is no regular file; else NULL. */
const char *not_regular(mode_t mode);

/*
 * name in the directory dfd read whole up to max bytes (*cut: there was
 * more), NUL-ended; NULL and *why when it is absent (errno ENOENT), no
 * regular file (a symlink, a FIFO, a device: never opened, never
 * followed) or cannot be read.
 */
char *read_beneath(int dfd, const char *name, size_t max, size_t *len,
		   bool *cut, const char **why);

/*
 * data written as name in the directory dfd: a temporary file created
 * there (O_EXCL, O_NOFOLLOW), written, fsync'd, given mode, renamed over
 * name, the directory fsync'd. Nothing when name already holds these very
 * bytes (a rerun changes no file); refused, *why said, when name is there
 * and is no regular file. Returns 0 or an errno.
 */
int write_beneath(int dfd, const char *name, const char *data, size_t len,
		  mode_t mode, const char **why);

#endif
