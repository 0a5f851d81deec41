// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runs of vmcore-inode (run.h): the one copy the command and the
 * bridges share, so that what they print cannot drift apart.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

void run_worse(int *status, int code)
{
	static const int rank[] = { [RUN_CLEAN] = 0, [RUN_VIOLATION] = 1,
				    [RUN_PARTIAL] = 2, [RUN_UNREADABLE] = 3,
				    [RUN_USAGE] = 4 };

	if (rank[code] > rank[*status])
		*status = code;
}

static void say(const struct run_out *o, const char *message)
{
	if (o->on_error)
		o->on_error(message, o->arg);
}

/* A caller's mistake is a usage error; anything else, unreadable input. */
static int status_of(const struct inodedump_error *err)
{
	return inodedump_error_code(err) == INODEDUMP_ERR_USAGE ? RUN_USAGE
								: RUN_UNREADABLE;
}

int run_error(const struct run_out *o, struct inodedump_error *err)
{
	int code = status_of(err);

	say(o, inodedump_error_message(err));
	inodedump_error_free(err);
	return code;
}

/*
 * What the session could not trust about the dump (a malformed VMCOREINFO,
 * a release taken from elsewhere, module symbols or a check's input that
 * could not be read): said once each run, those known before its output
 * first and those a decode finds as it goes (*said counts the notes said
 * so far), and the run is partial whatever else it finds.
 */
static int say_notes(struct inodedump *id, const struct run_out *o,
		     size_t *said)
{
	const char *note;

	for (; (note = inodedump_note(id, *said)); ++*said)
		say(o, note);
	for (size_t i = 0; i < *said; i++)
		if (!inodedump_note_informs(id, i))
			return RUN_PARTIAL;
	return RUN_CLEAN;
}

/* The run as a whole failed: the caller may want the error itself. */
static int failed(const struct run_out *o, struct inodedump_error *err)
{
	if (!o->fatal || *o->fatal)
		return run_error(o, err);
	say(o, inodedump_error_message(err));
	*o->fatal = err;
	return status_of(err);
}

/* The parts a decode may be asked for, as messages name them. */
static const struct {
	unsigned int part;
	const char *name;
} parts[] = {
	{ INODEDUMP_PART_PATHS, "paths" },
	{ INODEDUMP_PART_HOLDERS, "holders" },
	{ INODEDUMP_PART_FIELDS, "fields" },
};
#define N_PARTS (sizeof(parts) / sizeof(parts[0]))

/*
 * A decoded inode counts toward the status, then goes. A part that could
 * not be read in full makes the run partial, said: paths and fields for
 * each inode, holders once per run (one walk of the tasks serves every inode
 * of a run; *holders_said remembers).
 */
static void done_with(const struct run_out *o, struct inodedump_inode *ino,
		      uint64_t addr, bool *holders_said, int *status)
{
	unsigned int inc = inodedump_inode_incomplete(ino);

	if (inodedump_inode_violations(ino))
		run_worse(status, RUN_VIOLATION);
	for (size_t i = 0; i < N_PARTS; i++) {
		const char *why;
		char message[512];

		if (!(inc & parts[i].part))
			continue;
		run_worse(status, RUN_PARTIAL);
		why = inodedump_inode_incomplete_reason(ino, parts[i].part);
		if (parts[i].part == INODEDUMP_PART_HOLDERS) {
			if (*holders_said)
				continue;
			*holders_said = true;
			snprintf(message, sizeof(message),
				 "holders could not be read in full: %s", why);
		} else {
			snprintf(message, sizeof(message),
				 "inode 0x%" PRIx64 ": %s could not be read in "
				 "full: %s", addr, parts[i].name, why);
		}
		say(o, message);
	}
	inodedump_inode_free(ino);
}

/* A log read only in part: said, and the run is partial. */
static int log_status(const struct run_out *o, const struct inodedump_log *log)
{
	if (!inodedump_log_warning(log))
		return RUN_CLEAN;
	say(o, inodedump_log_warning(log));
	return RUN_PARTIAL;
}

/* Hex, with an optional 0x, at most 64 bits: no sign, no spaces. */
bool run_parse_address(const char *s, uint64_t *out)
{
	size_t n;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	n = strspn(s, "0123456789abcdefABCDEF");
	if (!n || s[n])
		return false;
	while (n > 1 && *s == '0') { /* leading zeros do not count */
		s++;
		n--;
	}
	if (n > 16)
		return false;
	*out = strtoull(s, NULL, 16);
	return true;
}

int run_addresses(struct inodedump *id, const uint64_t *addresses, size_t n,
		  unsigned int flags, enum inodedump_format format,
		  const struct run_out *o)
{
	struct inodedump_document *doc;
	struct inodedump_error *err;
	size_t said = 0;
	int status = say_notes(id, o, &said);
	bool holders_said = false;

	err = inodedump_document_begin(id, NULL, format, o->out, &doc);
	if (err)
		return failed(o, err);
	for (size_t i = 0; i < n; i++) {
		struct inodedump_inode *ino;

		err = inodedump_decode(id, addresses[i], flags, &ino);
		run_worse(&status, say_notes(id, o, &said));
		if (err) {
			inodedump_document_error(doc, addresses[i], err);
			run_worse(&status, run_error(o, err));
			continue;
		}
		inodedump_document_inode(doc, ino);
		done_with(o, ino, addresses[i], &holders_said, &status);
	}
	inodedump_document_end(doc);
	return status;
}

/* The reports of one log as one document (run_reports). */
static int reports_document(struct inodedump *id,
			    const struct inodedump_log *log,
			    unsigned int flags, enum inodedump_format format,
			    const struct run_out *o, int status, size_t *said)
{
	struct inodedump_report *reps = NULL;
	struct inodedump_document *doc;
	struct inodedump_error *err;
	bool holders_said = false;
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
		/*
		 * The kernel's own dump_inode() named it an inode: decode it as
		 * far as memory allows even where it fails the plausibility
		 * checks (a report of "fs:<unknown, sb unreadable>" has no
		 * superblock to find); what it lacks is in its errors.
		 */
		err = inodedump_decode(id, reps[i].address,
				       flags | INODEDUMP_DECODE_FORCE, &ino);
		run_worse(&status, say_notes(id, o, said));
		for (size_t j = i; j < n; j++)
			if (reps[j].address == reps[i].address)
				inodedump_document_report(doc, &reps[j], ino, err);
		if (err) {
			run_worse(&status, run_error(o, err));
			continue;
		}
		inodedump_document_inode(doc, ino);
		done_with(o, ino, reps[i].address, &holders_said, &status);
	}
	inodedump_document_end(doc);
	free(reps);
	return status;
}

int run_reports(struct inodedump *id, unsigned int flags,
		enum inodedump_format format, const struct run_out *o)
{
	struct inodedump_log *log;
	struct inodedump_error *err = inodedump_read_log(id, &log);
	int status;

	if (err) {
		size_t said = 0;
		int notes = say_notes(id, o, &said);

		status = failed(o, err);
		run_worse(&status, notes);
		return status;
	}
	status = run_reports_log(id, log, flags, format, o);
	inodedump_log_free(log);
	return status;
}

int run_reports_log(struct inodedump *id, const struct inodedump_log *log,
		    unsigned int flags, enum inodedump_format format,
		    const struct run_out *o)
{
	size_t said = 0;
	int status = say_notes(id, o, &said);

	run_worse(&status, log_status(o, log));
	return reports_document(id, log, flags, format, o, status, &said);
}

int run_log(struct inodedump *id, const struct run_out *o)
{
	size_t said = 0;
	int status = say_notes(id, o, &said);
	struct inodedump_log *log;
	struct inodedump_error *err = inodedump_read_log(id, &log);

	if (err)
		return failed(o, err);
	run_worse(&status, log_status(o, log));
	inodedump_log_print(log, o->out);
	inodedump_log_free(log);
	return status;
}

int run_info(struct inodedump *id, const struct run_out *o)
{
	size_t said = 0;
	int status = say_notes(id, o, &said);

	inodedump_facts_print(id, o->out);
	/* what reading the facts found: the memory map's damage (issue 41) */
	run_worse(&status, say_notes(id, o, &said));
	return status;
}

int run_what(struct inodedump *id, const uint64_t *addresses, size_t n,
	     enum inodedump_format format, const struct run_out *o)
{
	size_t said = 0;
	int status = say_notes(id, o, &said);
	bool json = format == INODEDUMP_FORMAT_JSON;

	if (json)
		fputs("{\n  \"schema\": 1,\n  \"what\": [", o->out);
	for (size_t i = 0; i < n; i++) {
		struct inodedump_what *w;
		struct inodedump_error *err = inodedump_what(id, addresses[i], &w);
		INODEDUMP_OPTS(inodedump_slab_object, s);

		run_worse(&status, say_notes(id, o, &said));
		if (err) {
			run_worse(&status, run_error(o, err));
			continue;
		}
		if (json) {
			fputs(i ? ",\n    " : "\n    ", o->out);
			inodedump_what_print_jsonl(w, o->out);
		} else {
			if (i)
				fputc('\n', o->out);
			inodedump_what_print_text(w, o->out);
		}
		if (inodedump_what_unread(w)) {
			char msg[512];
			bool slab = inodedump_what_slab(w, &s);

			snprintf(msg, sizeof(msg), "0x%llx: %s: %s",
				 (unsigned long long)addresses[i],
				 !slab ? "whether it is in a slab object is not known"
				 : s.state == INODEDUMP_SLAB_UNKNOWN
					 ? "whether the object is free is not known"
					 : "not everything could be read",
				 inodedump_what_unread(w));
			if (o->on_error)
				o->on_error(msg, o->arg);
			run_worse(&status, RUN_PARTIAL);
		}
		inodedump_what_free(w);
	}
	if (json)
		fputs(n ? "\n  ]\n}\n" : "]\n}\n", o->out);
	return status;
}

/* ---------------------------------------------------------------- sweep */

struct sweep_run {
	const struct run_out *o;
	bool jsonl, violations_only;
	/* Text: a superblock's violating inodes wait for its summary line. */
	char *pending;
	size_t pending_len;
	FILE *pending_f;
	struct inodedump_sweep_totals totals;
	struct timespec start, last;
	/* Superblocks whose filesystem type's name could not be read. */
	size_t fs_unknown;
	/* Inodes whose paths or holders (asked) could not be read in full. */
	size_t incomplete[N_PARTS];
	char *first_incomplete[N_PARTS];
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void sweep_inode(const struct inodedump_sweep_sb *sb,
			const struct inodedump_inode *ino, void *arg)
{
	struct sweep_run *r = arg;
	size_t v = inodedump_inode_violations(ino);

	r->totals.inodes++;
	r->totals.violations += v != 0;
	for (size_t i = 0; i < N_PARTS; i++) {
		if (!(inodedump_inode_incomplete(ino) & parts[i].part))
			continue;
		if (!r->incomplete[i]++)
			r->first_incomplete[i] = strdup(
				inodedump_inode_incomplete_reason(ino,
								  parts[i].part));
	}
	if (r->o->progress && seconds_since(&r->last) > 0.25) {
		clock_gettime(CLOCK_MONOTONIC, &r->last);
		fprintf(stderr, "\r%zu inodes, %.0f/s, superblock %s (%s)   ",
			r->totals.inodes,
			r->totals.inodes / seconds_since(&r->start),
			sb->fs_type, sb->s_id);
	}
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
	if (sb->from_slabs)
		r->totals.from_slabs += sb->inodes;
	if (sb->fs_type_error) { /* once a superblock: each is its own cause */
		char message[640];

		snprintf(message, sizeof(message),
			 "superblock 0x%" PRIx64 ": its filesystem type is "
			 "unknown: %s", sb->address, sb->fs_type_error);
		say(r->o, message);
		r->fs_unknown++;
	}
	if (r->jsonl) {
		inodedump_sweep_sb_print(sb, INODEDUMP_FORMAT_JSON, out);
		return;
	}
	if (r->violations_only && !sb->violations && !sb->error &&
	    !sb->fs_type_error)
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

int run_sweep(struct inodedump *id, const struct inodedump_sweep_opts *opts,
	      bool jsonl, bool violations_only, const struct run_out *o)
{
	struct sweep_run r = { .o = o, .jsonl = jsonl,
			       .violations_only = violations_only };
	struct inodedump_error *err;
	size_t said = 0;
	int notes = say_notes(id, o, &said), status;

	clock_gettime(CLOCK_MONOTONIC, &r.start);
	r.last = r.start;
	err = inodedump_sweep(id, opts, sweep_inode, sweep_sb, &r);
	run_worse(&notes, say_notes(id, o, &said)); /* what the decodes found */
	if (r.pending_f) { /* a superblock the sweep never finished */
		fclose(r.pending_f);
		free(r.pending);
	}
	if (o->progress)
		fprintf(stderr, "\r%60s\r", "");
	inodedump_sweep_summary_print(&r.totals,
				      jsonl ? INODEDUMP_FORMAT_JSON
					    : INODEDUMP_FORMAT_TEXT,
				      o->out);
	if (err) {
		for (size_t i = 0; i < N_PARTS; i++)
			free(r.first_incomplete[i]);
		return failed(o, err);
	}
	status = r.totals.violations ? RUN_VIOLATION : RUN_CLEAN;
	run_worse(&status, notes);
	if (r.fs_unknown)
		status = RUN_PARTIAL;
	if (r.totals.cut_short) {
		char message[160];

		snprintf(message, sizeof(message),
			 "%zu superblock walk%s cut short: inodes of %s were "
			 "not checked",
			 r.totals.cut_short, r.totals.cut_short == 1 ? "" : "s",
			 r.totals.cut_short == 1 ? "it" : "them");
		say(o, message);
		status = RUN_PARTIAL;
	}
	for (size_t i = 0; i < N_PARTS; i++) {
		char message[512];

		if (!r.incomplete[i])
			continue;
		snprintf(message, sizeof(message),
			 "%s of %zu inode%s could not be read in full (the "
			 "first: %s)", parts[i].name, r.incomplete[i],
			 r.incomplete[i] == 1 ? "" : "s",
			 r.first_incomplete[i] ? r.first_incomplete[i]
					       : "out of memory");
		say(o, message);
		free(r.first_incomplete[i]);
		status = RUN_PARTIAL;
	}
	return status;
}
