/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* checks: the VFS invariants run on every decoded inode. */
#ifndef IDD_CHECKS_CHECKS_H
#define IDD_CHECKS_CHECKS_H

#include "decode/inode.h"

struct inode_layout;

/* Record each invariant the inode breaks (violations) or cannot be judged
 * on this kernel (skipped). */
void idd_run_checks(const struct inode_layout *l, struct inodedump_inode *ino);

#endif
