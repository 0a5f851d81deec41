// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runs of vmcore-inode over a host's session (run.h). Kept call for
 * call with tools/vmcore-inode.c so that a bridge prints what the command
 * prints; tests/test_bridges.py compares them byte for byte.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

enum { RUN_CLEAN = 0, RUN_VIOLATION = 1, RUN_UNREADABLE = 3 };

static int unreadable(const struct bridge_out *o, struct inodedump_error *err)
{
	if (o->on_error)
		o->on_error(inodedump_error_message(err), o->arg);
	inodedump_error_free(err);
	return RUN_UNREADABLE;
}

/* The run as a whole failed: the caller may want the error itself. */
static int failed(const struct bridge_out *o, struct inodedump_error *err)
{
	if (o->on_error)
		o->on_error(inodedump_error_message(err), o->arg);
	if (o->fatal && !*o->fatal) {
		*o->fatal = err;
		return RUN_UNREADABLE;
	}
	inodedump_error_free(err);
	return RUN_UNREADABLE;
}

static void warn(const struct bridge_out *o, const char *message)
{
	if (message && o->on_error)
		o->on_error(message, o->arg);
}

static void done_with(struct inodedump_inode *ino, int *status)
{
	if (inodedump_inode_violations(ino) && *status == RUN_CLEAN)
		*status = RUN_VIOLATION;
	inodedump_inode_free(ino);
}

bool bridge_parse_address(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	if (!*s)
		return false;
	*out = strtoull(s, &end, 16);
	return !errno && *end == '\0';
}

int bridge_addresses(struct inodedump *id, const uint64_t *addresses,
		     size_t n, unsigned int flags, enum inodedump_format format,
		     const struct bridge_out *o)
{
	struct inodedump_document *doc;
	struct inodedump_error *err;
	int status = RUN_CLEAN;

	err = inodedump_document_begin(id, NULL, format, o->out, &doc);
	if (err)
		return failed(o, err);
	for (size_t i = 0; i < n; i++) {
		struct inodedump_inode *ino;

		err = inodedump_decode(id, addresses[i], flags, &ino);
		if (err) {
			inodedump_document_error(doc, addresses[i], err);
			status = unreadable(o, err);
			continue;
		}
		inodedump_document_inode(doc, ino);
		done_with(ino, &status);
	}
	inodedump_document_end(doc);
	return status;
}

/* Each reported inode decoded once, its reports grouped under it. */
static int reports_document(struct inodedump *id, struct inodedump_log *log,
			    unsigned int flags, enum inodedump_format format,
			    const struct bridge_out *o)
{
	struct inodedump_report *reps = NULL;
	struct inodedump_document *doc;
	struct inodedump_error *err;
	int status = RUN_CLEAN;
	size_t n;

	err = inodedump_find_reports(log, &reps, &n);
	if (err)
		return failed(o, err);
	err = inodedump_document_begin(id, log, format, o->out, &doc);
	if (err) {
		free(reps);
		return failed(o, err);
	}
	for (size_t i = 0; i < n; i++) {
		struct inodedump_inode *ino = NULL;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen = seen || reps[j].address == reps[i].address;
		if (seen)
			continue;
		err = inodedump_decode(id, reps[i].address, flags, &ino);
		for (size_t j = i; j < n; j++)
			if (reps[j].address == reps[i].address)
				inodedump_document_report(doc, &reps[j], ino, err);
		if (err) {
			status = unreadable(o, err);
			continue;
		}
		inodedump_document_inode(doc, ino);
		done_with(ino, &status);
	}
	inodedump_document_end(doc);
	free(reps);
	return status;
}

int bridge_reports(struct inodedump *id, unsigned int flags,
		   enum inodedump_format format, const struct bridge_out *o)
{
	struct inodedump_log *log;
	struct inodedump_error *err = inodedump_read_log(id, &log);
	int status;

	if (err)
		return failed(o, err);
	warn(o, inodedump_log_warning(log));
	status = reports_document(id, log, flags, format, o);
	inodedump_log_free(log);
	return status;
}

int bridge_log(struct inodedump *id, const struct bridge_out *o)
{
	struct inodedump_log *log;
	struct inodedump_error *err = inodedump_read_log(id, &log);

	if (err)
		return failed(o, err);
	warn(o, inodedump_log_warning(log));
	inodedump_log_print(log, o->out);
	inodedump_log_free(log);
	return RUN_CLEAN;
}

/* ---------------------------------------------------------------- sweep */

struct sweep_run {
	const struct bridge_out *o;
	bool jsonl, violations_only;
	/* Text: a superblock's violating inodes wait for its summary line. */
	char *pending;
	size_t pending_len;
	FILE *pending_f;
	struct inodedump_sweep_totals totals;
};

static void sweep_inode(const struct inodedump_sweep_sb *sb,
			const struct inodedump_inode *ino, void *arg)
{
	struct sweep_run *r = arg;
	size_t v = inodedump_inode_violations(ino);

	(void)sb;
	r->totals.inodes++;
	r->totals.violations += v != 0;
	if (r->violations_only && !v)
		return;
	if (r->jsonl) {
		inodedump_inode_print_jsonl(ino, r->o->out);
		fputc('\n', r->o->out);
	} else if (v) {
		if (!r->pending_f)
			r->pending_f = open_memstream(&r->pending,
						      &r->pending_len);
		if (r->pending_f) {
			fputc('\n', r->pending_f);
			inodedump_inode_print_text(ino, r->pending_f);
		}
	}
}

static void sweep_sb(const struct inodedump_sweep_sb *sb, void *arg)
{
	struct sweep_run *r = arg;
	FILE *out = r->o->out;

	if (sb->error)
		r->totals.cut_short++;
	if (r->jsonl) {
		inodedump_sweep_sb_print(sb, INODEDUMP_FORMAT_JSON, out);
		return;
	}
	if (r->violations_only && !sb->violations && !sb->error)
		return;
	inodedump_sweep_sb_print(sb, INODEDUMP_FORMAT_TEXT, out);
	if (r->pending_f) {
		fclose(r->pending_f);
		fwrite(r->pending, 1, r->pending_len, out);
		fputc('\n', out);
		free(r->pending);
		r->pending_f = NULL;
		r->pending = NULL;
	}
}

int bridge_sweep(struct inodedump *id, const struct inodedump_sweep_opts *opts,
		 bool jsonl, bool violations_only, const struct bridge_out *o)
{
	struct sweep_run r = { .o = o, .jsonl = jsonl,
			       .violations_only = violations_only };
	struct inodedump_error *err;

	err = inodedump_sweep(id, opts, sweep_inode, sweep_sb, &r);
	if (r.pending_f) { /* a superblock the sweep never finished */
		fclose(r.pending_f);
		free(r.pending);
	}
	inodedump_sweep_summary_print(&r.totals,
				      jsonl ? INODEDUMP_FORMAT_JSON
					    : INODEDUMP_FORMAT_TEXT,
				      o->out);
	if (err)
		return failed(o, err);
	return r.totals.violations ? RUN_VIOLATION : RUN_CLEAN;
}
