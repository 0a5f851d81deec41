/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log: the kernel log read out of the dump's printk ring (ring.c), and the
 * dump_inode() reports found in it (reports.c).
 */
#ifndef IDD_LOG_LOG_H
#define IDD_LOG_LOG_H

#include "core/error.h"

/* The records of the ring, oldest first; what inodedump_read_log() returns. */
struct inodedump_log {
	struct inodedump_record *recs; /* each text malloc'd, NUL-ended */
	size_t n;
	/* The ring's indices did not hold together: what was read, and why. */
	struct inodedump_error *corrupt;
};

/* How many records after a report its WARNING/BUG splat is looked for in. */
#define IDD_SPLAT_RECORDS 40

#endif
