/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmcore-inode --live --follow (follow.c): the running kernel's log read
 * from /dev/kmsg as it grows; each dump_inode() report's inode decoded
 * through the session (/proc/kcore) the moment its record is read, then
 * written with the report (text, or one JSON Lines object) and flushed.
 * Public API only (inodedump.h).
 */
#ifndef INODEDUMP_FOLLOW_H
#define INODEDUMP_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inodedump.h"
#include "run.h"

/*
 * What follow_run() decodes an address with. The default (decode NULL):
 * inodedump_forget(id), so nothing read before is reused, then
 * inodedump_decode(id, address, flags | INODEDUMP_DECODE_FORCE).
 */
typedef struct inodedump_error *(*follow_decode_fn)(
	void *arg, uint64_t address, struct inodedump_inode **out);

struct follow_opts {
	int fd; /* the log: /dev/kmsg (follow_open_kmsg()), a pipe, a file */
	/* A pipe or file ends at EOF; /dev/kmsg never does. */
	bool stop_at_eof;
	enum inodedump_format format; /* JSON: one JSON Lines object a report */
	unsigned int flags;	      /* inodedump_decode()'s */
	struct inodedump *id;
	follow_decode_fn decode; /* NULL: the default, on id */
	void *decode_arg;
	/*
	 * How long a report waits for the rest of its splat (the WARNING line,
	 * the task) once no record comes: milliseconds, 0 for the default.
	 */
	int splat_wait_ms;
	const struct run_out *o;
};

/*
 * Open path (/dev/kmsg) for reading, at its end (records from now on)
 * or, from_start, at its oldest record. -1 and the reason said through
 * o->on_error when it cannot be opened.
 */
int follow_open_kmsg(const char *path, bool from_start,
		     const struct run_out *o);

/*
 * Follow until SIGINT or SIGTERM (or EOF with stop_at_eof), then write
 * what is pending and return the status: the worst of its reports' as
 * run_reports() counts them (1 a violation, 3 an inode not decoded),
 * 4 when records were lost to an overrun of the log or the log could
 * not be read on; 0 when no report came. "following ..." is said on
 * stderr once reading starts (the ready line scripts wait for); records
 * lost, and the signal that ended it, are said through o->on_error.
 */
int follow_run(const struct follow_opts *fo);

/*
 * vmcore-inode --live --follow [--from-start]: /dev/kmsg opened, then
 * followed with the session's decodes (follow_run()); 3 when the log
 * cannot be opened.
 */
int follow_live(struct inodedump *id, bool from_start, unsigned int flags,
		enum inodedump_format format, const struct run_out *o);

/*
 * One /dev/kmsg record's first line ("PRI,SEQ,USEC,FLAGS[,...];TEXT",
 * len bytes, no newline) into rec: its text unescaped (\xNN) into text
 * (cap bytes, NUL-ended, cut to fit), rec->text pointing there. False
 * when the line is not a record.
 */
bool follow_parse_record(const char *line, size_t len,
			 struct inodedump_record *rec, char *text, size_t cap);

#endif
