/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: what a session remembers between decodes (memo.c), freed when
 * it closes: symbol names by address, the last superblock's rows.
 */
#ifndef IDD_DECODE_MEMO_H
#define IDD_DECODE_MEMO_H

#include "decode/inode.h"
#include "decode/layout.h"

/*
 * The name remembered for addr, copied into ino's arena (either may be
 * NULL: looked up, none found); false when addr was never looked up.
 */
bool idd_sym_memo_get(struct inodedump *id, struct inodedump_inode *ino,
		      uint64_t addr, char **symbol, char **module,
		      char **note);
/*
 * Remember what addr was named, and why not where note says (a full memo
 * forgets nothing, adds none).
 */
void idd_sym_memo_put(struct inodedump *id, uint64_t addr, const char *symbol,
		      const char *module, const char *note);
void idd_free_sym_memo(struct sym_memo *memo);

/* The superblock rows remembered for the superblock at sb, or NULL. */
const struct inodedump_inode *idd_sb_memo_find(const struct inodedump *id,
					       uint64_t sb);
/* Copy from's superblock rows into to (strings duplicated). */
struct inodedump_error *idd_copy_sb_rows(const struct inode_layout *l,
					 struct inodedump_inode *to,
					 const struct inodedump_inode *from);
/* Remember ino's superblock rows when every one present could be read. */
struct inodedump_error *idd_sb_memo_put(struct inodedump *id,
					const struct inodedump_inode *ino);
void idd_free_sb_memo(struct sb_memo *m);

#endif
