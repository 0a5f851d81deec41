/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decode: the facts the checks need beyond the member rows (facts.c). */
#ifndef IDD_DECODE_FACTS_H
#define IDD_DECODE_FACTS_H

#include "checks/checks.h"
#include "decode/layout.h"

/*
 * Where the first alias's dentry type lives and the values of enum
 * dentry_flags, into l (alias_dtype_ok false when this kernel lacks them).
 */
void idd_layout_find_alias_dtype(struct inodedump *id, struct inode_layout *l);

/* The checks' facts of this kernel from its layout. */
void idd_layout_check_facts(const struct inode_layout *l,
			    struct idd_check_facts *facts);

/*
 * ino->alias_dtype: d_flags & DCACHE_ENTRY_TYPE of the dentry that names
 * it first. What cannot be read is a note; the error is out of memory.
 */
struct inodedump_error *idd_decode_alias_dtype(struct inodedump *id,
					       struct inodedump_inode *ino);

#endif
