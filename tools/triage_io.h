/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files as vmcore-inode --triage reads and writes them (triage_io.c): a
 * path joined, a small file read whole, a file written atomically, a JSON
 * string. What runs out of memory here ends the command (exit 3).
 */
#ifndef INODEDUMP_TRIAGE_IO_H
#define INODEDUMP_TRIAGE_IO_H

#include <stdio.h>
#include <sys/types.h>

char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* DIR/NAME, one slash between. */
char *path_join(const char *dir, const char *name);
/* A whole (small) file, NUL-ended; NULL when it cannot be read (errno). */
char *slurp(const char *path, size_t *len);
/*
 * data written to path atomically: a temporary file in the same
 * directory, written, fsync'd, given mode, renamed over path, the
 * directory fsync'd. Nothing when path already holds these very bytes (a
 * rerun changes no file). Returns 0 or an errno.
 */
int write_atomic(const char *path, const char *data, size_t len, mode_t mode);
/* A JSON string, quotes and all. */
void json_str(FILE *f, const char *s);

#endif
