/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One dump's triage (triage_dump.c): opened, its reports decoded from its
 * log or the saved one, the sweep's checks run, all of it gathered into a
 * job; then the job as inodedump.json and inodedump.txt.
 */
#ifndef INODEDUMP_TRIAGE_DUMP_H
#define INODEDUMP_TRIAGE_DUMP_H

#include <stdbool.h>
#include <sys/stat.h>

#include "inodedump.h"
#include "triage.h"

/* What a run says on stderr, kept for the dump's results instead. */
struct messages {
	char **v;
	size_t n;
};

/* A message of a run, kept (run_out's on_error; arg: struct messages *). */
void keep_message(const char *message, void *arg);

/* Everything one dump's results hold, gathered before either is written. */
struct dump_job {
	const char *dump, *dmesg, *key; /* paths as shown: bytes, unescaped */
	int dir_fd;		/* the directory holding the dump */
	int dump_fd;		/* the dump, opened (not followed) */
	const char *dmesg_name; /* the saved log's name in dir_fd */
	struct stat st;
	int exit_code;
	const char *error;	/* could not be read: why */
	char *log_source;	/* whence its reports came */
	long reports, violations;
	char *facts_text;	/* --info's lines */
	char *reports_json, *reports_text;
	char *sweep_jsonl, *sweep_text;
	struct messages msgs;
	struct inodedump_report *dmesg_reps; /* unopenable: the saved log's */
	size_t n_dmesg_reps;
	bool opened;		/* inodedump_open() was tried */
	const char *debug_root; /* where vmlinux was looked for (NULL: /) */
};

/*
 * job->dump (job->dump_fd, read through /proc/self/fd) opened and
 * triaged: job->error and exit_code when it cannot be; else the facts,
 * the reports and the sweep, exit_code the worst.
 */
void triage_job_run(const struct triage_opts *opts, struct dump_job *job);
/* The results, malloc'd (NULL when out of memory). */
char *triage_job_json(const struct dump_job *job);
char *triage_job_text(const struct dump_job *job);
void triage_job_free(struct dump_job *job);

/*
 * The results json_name in dfd are of the dump keyed key: true, with their
 * exit status, whether they are an error's, and counts (left as they are
 * where the file's first line has none).
 */
bool triage_stored(int dfd, const char *json_name, const char *key, int *code,
		   bool *unread, long *reports, long *violations);

#endif
