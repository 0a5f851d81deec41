/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runs of vmcore-inode — a document of addresses, every report in the
 * log, the log, the sweep — over an open session, written to a FILE * the
 * caller chooses. The command (tools/vmcore-inode.c) and every bridge
 * (the Python module, drgn's command, crash's extension) call these, so
 * they print the same bytes and end with the same status. Public API only
 * (inodedump.h).
 *
 * An error the command prints as "vmcore-inode: MESSAGE" goes to
 * on_error (one call per error, the message without a newline); the run
 * goes on as far as it can. Each returns the command's exit status:
 * enum run_status.
 */
#ifndef INODEDUMP_RUN_H
#define INODEDUMP_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "inodedump.h"

enum run_status {
	RUN_CLEAN = 0,	    /* decoded, no violation */
	RUN_VIOLATION = 1,  /* decoded, at least one violation */
	RUN_USAGE = 2,	    /* the caller's mistake (INODEDUMP_ERR_USAGE) */
	RUN_UNREADABLE = 3, /* input could not be read or decoded */
	RUN_PARTIAL = 4,    /* some of what was asked could not be read */
};

/*
 * The status a run ends with when several apply: 2 and 3 over 4 (a part
 * could not be read, so the answer is incomplete) over 1 over 0.
 */
void run_worse(int *status, int code);

typedef void (*run_error_fn)(const char *message, void *arg);

struct run_out {
	FILE *out;
	run_error_fn on_error; /* may be NULL: errors are dropped */
	void *arg;
	/*
	 * May be NULL. Else, when the run as a whole fails (the log cannot
	 * be read, the sweep cannot start), the first such error is handed
	 * over here (after on_error), for the caller to free.
	 */
	struct inodedump_error **fatal;
	/* --sweep: a progress line on stderr every 0.25 s (a terminal's) */
	bool progress;
};

/*
 * err said through o->on_error, then freed; returns its status: a caller's
 * mistake (INODEDUMP_ERR_USAGE) is RUN_USAGE, anything else RUN_UNREADABLE.
 */
int run_error(const struct run_out *o, struct inodedump_error *err);

/* vmcore-inode [--json] VMCORE ADDRESS...: one document of these inodes. */
int run_addresses(struct inodedump *id, const uint64_t *addresses, size_t n,
		  unsigned int flags, enum inodedump_format format,
		  const struct run_out *o);

/*
 * vmcore-inode [--json] VMCORE: every report in the log, each reported
 * inode decoded once (with INODEDUMP_DECODE_FORCE: the kernel named it an
 * inode), its reports grouped under it, in the order of first report.
 */
int run_reports(struct inodedump *id, unsigned int flags,
		enum inodedump_format format, const struct run_out *o);

/*
 * The same over a log the caller read: the dump's ring, or a log saved
 * beside the dump (inodedump_log_from_text(); vmcore-inode --triage).
 */
int run_reports_log(struct inodedump *id, const struct inodedump_log *log,
		    unsigned int flags, enum inodedump_format format,
		    const struct run_out *o);

/* vmcore-inode --log VMCORE. */
int run_log(struct inodedump *id, const struct run_out *o);

/*
 * vmcore-inode [--json] --what ADDRESS... VMCORE: what each address is
 * (inodedump_what()); partial (4) where a freelist could not be read.
 */
int run_what(struct inodedump *id, const uint64_t *addresses, size_t n,
	     enum inodedump_format format, const struct run_out *o);

/* vmcore-inode --info VMCORE: the facts, and the session's notes. */
int run_info(struct inodedump *id, const struct run_out *o);

/*
 * vmcore-inode --sweep [--jsonl] [--violations-only]: opts->flags as the
 * command sets them (NO_PATHS unless --paths).
 */
int run_sweep(struct inodedump *id, const struct inodedump_sweep_opts *opts,
	      bool jsonl, bool violations_only, const struct run_out *o);

/* An ADDRESS argument: hex, an optional 0x, at most 64 bits; no sign, no
 * spaces. */
bool run_parse_address(const char *s, uint64_t *out);

#endif
