/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: the member rows' values from the bytes read (rows.c). What
 * cannot be read is a note in the inode's errors and the row marked
 * unreadable; an error return is out of memory unless said otherwise.
 */
#ifndef IDD_DECODE_ROWS_H
#define IDD_DECODE_ROWS_H

#include "decode/inode.h"
#include "decode/layout.h"

/*
 * A row's value from the bytes of the struct that holds it (m and nsec
 * are relative to buf); the only failure is running out of memory.
 */
struct inodedump_error *idd_take_row(struct inodedump_inode *ino,
				     const struct idd_row *row,
				     const struct idd_member *m,
				     const struct idd_member *nsec,
				     const uint8_t *buf);

/* size bytes at a kernel address, malloc'd; the read's error as it is. */
struct inodedump_error *idd_read_bytes(struct inodedump *id, uint64_t addr,
				       uint64_t size, uint8_t **out);

/* The INODE rows from the inode's bytes buf: no read. */
struct inodedump_error *idd_decode_inode_rows(const struct inode_layout *l,
					      struct inodedump_inode *ino,
					      const uint8_t *buf);

/* The INODE rows behind a pointer (i_link's string), then lengths. */
struct inodedump_error *idd_follow_inode_rows(struct inodedump *id,
					      struct inodedump_inode *ino,
					      const uint8_t *buf);

/*
 * The superblock's rows from its bytes at i_sb; *why (malloc'd) says why
 * it looks like no superblock.
 */
struct inodedump_error *idd_decode_sb_rows(struct inodedump *id,
					   struct inodedump_inode *ino,
					   char **why);

/* The MAPPING rows: in the inode's bytes when i_mapping is &i_data. */
struct inodedump_error *idd_decode_mapping_rows(struct inodedump *id,
						struct inodedump_inode *ino,
						const uint8_t *inode_buf);

/* The names of the bits set in each FLAGS row, remembered per row in l. */
struct inodedump_error *idd_decode_flag_names(struct inode_layout *l,
					      struct inodedump_inode *ino);

#endif
