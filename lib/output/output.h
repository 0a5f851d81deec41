/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* output: what the views share (inode_json.c, text.c, document.c). */
#ifndef IDD_OUTPUT_OUTPUT_H
#define IDD_OUTPUT_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "output/json.h"

struct inodedump_inode;

/* The INODE object (README.md) through the writer. */
void idd_json_inode(struct idd_json *j, const struct inodedump_inode *ino);
/* A kernel dev_t as "major:minor" (12 bits major, 20 minor). */
void idd_dev_string(uint64_t dev, char *buf, size_t len);

#endif
