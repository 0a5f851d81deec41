/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmcore-inode --triage [DIR]: every dump a crash left in DIR (default
 * /var/crash) triaged once, its results written beside it. See triage.c.
 */
#ifndef INODEDUMP_TRIAGE_H
#define INODEDUMP_TRIAGE_H

#include <stdbool.h>

struct triage_opts {
	/* --debug-root: look for each kernel's vmlinux below it (NULL: /) */
	const char *debug_root;
	/*
	 * A dump (or a dump's directory) modified less than settle seconds
	 * ago may still be being written: skipped this round, or waited for.
	 */
	unsigned int settle;
	/* Wait up to this many seconds for such dumps to settle (0: skip). */
	unsigned int wait;
	/* Triage again the dumps that already have their results. */
	bool again;
	/* The batch's summary as JSON on stdout (else a table). */
	bool json;
};

/* --triage's options and status, for vmcore-inode --help. */
extern const char triage_usage[];

/* --wait (wait true) or --settle S into opts; false, said, if S is no
 * number of seconds from 0 to 86400. */
bool triage_seconds(bool wait, const char *s, struct triage_opts *opts);

/* The batch: returns the command's exit status (enum run_status). */
int triage_run(const char *path, const struct triage_opts *opts);

#endif
