/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* output: what the views share (inode_json.c, text.c, document.c). */
#ifndef IDD_OUTPUT_OUTPUT_H
#define IDD_OUTPUT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/json.h"

struct inodedump_inode;
struct inodedump_what;

/* The INODE object (README.md) through the writer. */
void idd_json_inode(struct idd_json *j, const struct inodedump_inode *ino);
/* What an address is (what.c) as one JSON object. */
void idd_json_what(struct idd_json *j, const struct inodedump_what *w);
/* The filesystem's own rows (fs_view.c): JSON value or text lines. */
void idd_json_fs(struct idd_json *j, const struct inodedump_inode *ino);
void idd_text_fs(FILE *out, const struct inodedump_inode *ino);
/*
 * Bytes that came from the dump, for a terminal (text.c): printable ASCII
 * and well-formed UTF-8 as they are, everything else C-style as ls -b
 * does ("\e", "\r", "\x9b", "\\"), so no escape sequence, carriage
 * return or C1 control reaches the terminal. log: the kernel log, as
 * dmesg prints it: newlines, tabs and backslashes stay as they are.
 * idd_text_escape() takes a C string (NULL prints "?").
 */
void idd_text_escape_len(FILE *out, const char *s, size_t len, bool log);
void idd_text_escape(FILE *out, const char *s);
/* A kernel dev_t as "major:minor" (12 bits major, 20 minor). */
void idd_dev_string(uint64_t dev, char *buf, size_t len);

#endif
