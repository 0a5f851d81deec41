/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What vmcore-inode prints, for a host that has its own session (the
 * Python module, drgn's command, crash's extension): the same library
 * calls in the same order as tools/vmcore-inode.c, written to a FILE *
 * the host chooses. Public API only (inodedump.h).
 *
 * Errors the CLI would print as "vmcore-inode: MESSAGE" go to on_error
 * (one per error, the message without a newline); the run goes on as the
 * CLI's does. Each returns what the CLI would exit with: 0 clean, 1 a
 * violation, 3 something could not be read or decoded.
 */
#ifndef INODEDUMP_BRIDGE_RUN_H
#define INODEDUMP_BRIDGE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "inodedump.h"

typedef void (*bridge_error_fn)(const char *message, void *arg);

struct bridge_out {
	FILE *out;
	bridge_error_fn on_error; /* may be NULL: errors are dropped */
	void *arg;
	/*
	 * May be NULL. Else, when the run as a whole fails (the log cannot
	 * be read, the sweep cannot start), the first such error is handed
	 * over here (after on_error), for the caller to free.
	 */
	struct inodedump_error **fatal;
};

/* vmcore-inode [--json] VMCORE ADDRESS...: one document of these inodes. */
int bridge_addresses(struct inodedump *id, const uint64_t *addresses,
		     size_t n, unsigned int flags, enum inodedump_format format,
		     const struct bridge_out *o);

/* vmcore-inode [--json] VMCORE: every report in the log, decoded. */
int bridge_reports(struct inodedump *id, unsigned int flags,
		   enum inodedump_format format, const struct bridge_out *o);

/* vmcore-inode --log VMCORE. */
int bridge_log(struct inodedump *id, const struct bridge_out *o);

/*
 * vmcore-inode --sweep [--jsonl] [--violations-only]: opts->flags as the
 * CLI sets them (NO_PATHS unless --paths).
 */
int bridge_sweep(struct inodedump *id, const struct inodedump_sweep_opts *opts,
		 bool jsonl, bool violations_only, const struct bridge_out *o);

/* The "0x..." / "..." hex address parser of the CLI. */
bool bridge_parse_address(const char *s, uint64_t *out);

#endif
