// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One dump's triage (triage_dump.h): the runs of run.h over it, their
 * output and what they say kept, then written out as one JSON document
 * (its first line the key a rerun reads) and as text. Public API only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "triage_dump.h"
#include "triage_io.h"

void keep_message(const char *message, void *arg)
{
	struct messages *m = arg;
	char **g = realloc(m->v, (m->n + 1) * sizeof(*g));

	if (!g)
		return;
	m->v = g;
	m->v[m->n++] = xasprintf("%s", message);
}

static void free_messages(struct messages *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	*m = (struct messages){ 0 };
}

/* A run's output into a malloc'd string. */
#define CAPTURE(buf, len, o, stmt)                                         \
	do {                                                               \
		FILE *f_ = open_memstream(&(buf), &(len));                 \
		(o).out = f_ ? f_ : stderr;                                \
		stmt;                                                      \
		if (f_)                                                    \
			fclose(f_);                                        \
	} while (0)

/*
 * The saved log read into records; NULL (and *why) when it cannot be. A
 * regular file only, its first TRIAGE_READ_MAX bytes: a saved log is a
 * few hundred KiB, and one that is not (dmesg.STAMP planted as a huge
 * file) is read that far, said.
 */
static struct inodedump_log *read_saved_log(struct dump_job *job, char **why)
{
	struct inodedump_log *log = NULL;
	struct inodedump_error *err;
	const char *path = job->dmesg, *w;
	size_t len;
	bool cut;
	char *text = read_beneath(job->dir_fd, job->dmesg_name, TRIAGE_READ_MAX,
				  &len, &cut, &w);

	if (!text) {
		*why = xasprintf("%s: %s", path, w);
		return NULL;
	}
	if (cut) {
		char *m = xasprintf("the saved log %s: only its first %zu MiB "
				    "read, it is larger", path,
				    TRIAGE_READ_MAX >> 20);

		keep_message(m, &job->msgs);
		free(m);
	}
	err = inodedump_log_from_text(text, len, &log);
	free(text);
	if (err) {
		*why = xasprintf("%s: %s", path, inodedump_error_message(err));
		inodedump_error_free(err);
		return NULL;
	}
	return log;
}

static size_t count_reports(const struct inodedump_log *log)
{
	struct inodedump_report *reps = NULL;
	size_t n = 0;
	struct inodedump_error *err = inodedump_find_reports(log, &reps, &n);

	inodedump_error_free(err);
	free(reps);
	return err ? 0 : n;
}

/*
 * The log whose reports are decoded: the dump's own ring, unless it cannot
 * be read, is damaged or holds no record; then the saved one, when there is
 * one. job->log_source says which, and why.
 */
static struct inodedump_log *choose_log(struct inodedump *id,
					struct dump_job *job)
{
	struct inodedump_log *ring = NULL, *saved = NULL;
	struct inodedump_error *err = inodedump_read_log(id, &ring);
	char *why = NULL, *saved_why = NULL;

	if (err) {
		why = xasprintf("the dump's kernel log cannot be read: %s",
				inodedump_error_message(err));
		inodedump_error_free(err);
	} else if (inodedump_log_warning(ring)) {
		why = xasprintf("the dump's kernel log is damaged: %s",
				inodedump_log_warning(ring));
	} else if (!inodedump_log_count(ring)) {
		why = xasprintf("the dump's kernel log holds no record");
	} else {
		job->log_source = xasprintf("the dump's kernel log (%zu records)",
					    inodedump_log_count(ring));
		return ring;
	}
	if (job->dmesg)
		saved = read_saved_log(job, &saved_why);
	if (saved) {
		job->log_source = xasprintf("the saved log %s (%zu records): %s",
					    job->dmesg, inodedump_log_count(saved),
					    why);
		inodedump_log_free(ring);
		free(why);
		return saved;
	}
	job->log_source = xasprintf("%s%s%s", why,
				    saved_why ? "; and the saved log: " : "; no saved log beside the dump",
				    saved_why ? saved_why : "");
	keep_message(job->log_source, &job->msgs);
	free(why);
	free(saved_why);
	return ring; /* may be NULL: no reports then */
}

static void sweep_counts(struct dump_job *job)
{
	const char *s = job->sweep_jsonl ? strstr(job->sweep_jsonl, "{\"summary\"") : NULL;
	const char *v = s ? strstr(s, "\"violations\":") : NULL;

	job->violations = v ? strtol(v + 13, NULL, 10) : -1;
}

/* s with every from replaced by to (a new string; s freed). NULL: NULL. */
static char *replace_all(char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), len = 0;
	char *buf = NULL, *p = s, *hit;
	FILE *f;

	if (!s || !strstr(s, from))
		return s;
	f = open_memstream(&buf, &len);
	if (!f)
		out_of_memory();
	while ((hit = strstr(p, from))) {
		fwrite(p, 1, (size_t)(hit - p), f);
		fputs(to, f);
		p = hit + fl;
	}
	fputs(p, f);
	if (fclose(f))
		out_of_memory();
	free(s);
	return buf;
}

/*
 * The library read the dump as /proc/self/fd/N (the file opened, not a
 * name that could be swapped for a symlink): what it said names the dump
 * instead, in each capture as that capture escapes names. The messages
 * and the log's source are escaped when written; the library's text
 * views are written as they are (so the name goes in escaped), its JSON
 * inside JSON (so the name goes in JSON-escaped).
 */
static void name_the_dump(struct dump_job *job, const char *proc)
{
	char *shown = escaped(job->dump), *json = json_inside(job->dump);

	for (size_t i = 0; i < job->msgs.n; i++)
		job->msgs.v[i] = replace_all(job->msgs.v[i], proc, job->dump);
	job->log_source = replace_all(job->log_source, proc, job->dump);
	job->facts_text = replace_all(job->facts_text, proc, shown);
	job->reports_text = replace_all(job->reports_text, proc, shown);
	job->sweep_text = replace_all(job->sweep_text, proc, shown);
	job->reports_json = replace_all(job->reports_json, proc, json);
	job->sweep_jsonl = replace_all(job->sweep_jsonl, proc, json);
	free(shown);
	free(json);
}

void triage_job_run(const struct triage_opts *opts, struct dump_job *job)
{
	char proc[40];
	INODEDUMP_OPTS(inodedump_open_opts, oo);
	INODEDUMP_OPTS(inodedump_sweep_opts, so);
	struct run_out o = { .on_error = keep_message, .arg = &job->msgs };
	struct inodedump_error *err;
	struct inodedump_log *log;
	struct inodedump *id;
	size_t len;
	int status, s;

	oo.debug_root = opts->debug_root;
	job->debug_root = opts->debug_root;
	job->opened = true;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", job->dump_fd);
	if (access(proc, F_OK))
		keep_message("the dump is opened by its fd, through /proc/self/fd, "
			     "which cannot be reached: is /proc mounted?",
			     &job->msgs);
	err = inodedump_open(proc, &oo, &id);
	if (err) {
		job->exit_code = run_error(&o, err);
		name_the_dump(job, proc);
		job->error = job->msgs.v ? job->msgs.v[job->msgs.n - 1]
					 : "the dump cannot be opened";
		if (job->dmesg) {
			char *why = NULL;
			struct inodedump_log *saved = read_saved_log(job, &why);

			if (saved && !inodedump_find_reports(saved, &job->dmesg_reps,
							     &job->n_dmesg_reps))
				job->reports = (long)job->n_dmesg_reps;
			if (!saved)
				keep_message(why, &job->msgs);
			inodedump_log_free(saved);
			free(why);
		}
		return;
	}
	CAPTURE(job->facts_text, len, o, inodedump_facts_print(id, o.out));
	log = choose_log(id, job);
	if (log) {
		job->reports = (long)count_reports(log);
		CAPTURE(job->reports_json, len, o,
			status = run_reports_log(id, log, 0, INODEDUMP_FORMAT_JSON, &o));
		/* The same decodes again for the text: the messages once. */
		{
			struct messages keep = job->msgs;

			job->msgs = (struct messages){ 0 };
			o.arg = &job->msgs;
			CAPTURE(job->reports_text, len, o,
				run_reports_log(id, log, 0, INODEDUMP_FORMAT_TEXT, &o));
			free_messages(&job->msgs);
			job->msgs = keep;
			o.arg = &job->msgs;
		}
		inodedump_log_free(log);
	} else {
		status = RUN_PARTIAL;
		job->reports = -1;
	}
	so.flags = INODEDUMP_DECODE_NO_PATHS | INODEDUMP_DECODE_NO_FS;
	so.threads = 1;
	CAPTURE(job->sweep_jsonl, len, o,
		s = run_sweep(id, &so, true, true, &o));
	run_worse(&status, s);
	{
		struct messages keep = job->msgs;

		job->msgs = (struct messages){ 0 };
		o.arg = &job->msgs;
		CAPTURE(job->sweep_text, len, o,
			run_sweep(id, &so, false, true, &o));
		free_messages(&job->msgs);
		job->msgs = keep;
	}
	sweep_counts(job);
	inodedump_close(id);
	name_the_dump(job, proc);
	job->exit_code = status;
}

/* The first line of inodedump.json: the key and status a rerun reads. */
static void json_head(FILE *f, const struct dump_job *job)
{
	fprintf(f, "{\"schema\": %d, \"triage_key\": ", INODEDUMP_JSON_SCHEMA);
	json_str(f, job->key);
	fprintf(f, ", \"state\": \"%s\", \"exit_code\": %d, \"reports\": %ld, "
		   "\"violations\": %ld,\n", job->error ? "error" : "triaged",
		job->exit_code, job->reports, job->violations);
}

static void json_messages(FILE *f, const struct messages *m)
{
	fputs("  \"messages\": [", f);
	for (size_t i = 0; i < m->n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_str(f, m->v[i]);
	}
	fputs(m->n ? "\n  ]" : "]", f);
}

/* The JSON Lines of a sweep as one array. */
static void json_lines(FILE *f, const char *lines)
{
	bool first = true;

	fputc('[', f);
	for (const char *p = lines ? lines : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l) {
			fputs(first ? "\n    " : ",\n    ", f);
			fwrite(p, 1, l, f);
			first = false;
		}
		p += l + (nl != NULL);
	}
	fputs(first ? "]" : "\n  ]", f);
}

static void json_dump_facts(FILE *f, const struct dump_job *job)
{
	fputs("  \"dump\": ", f);
	json_str(f, job->dump);
	fprintf(f, ",\n  \"size\": %lld,\n  \"mtime\": %lld.%09ld,\n  \"dmesg\": ",
		(long long)job->st.st_size, (long long)job->st.st_mtim.tv_sec,
		job->st.st_mtim.tv_nsec);
	if (job->dmesg)
		json_str(f, job->dmesg);
	else
		fputs("null", f);
	fputs(",\n", f);
}

/* What was tried before the dump was given up: "tried": [...]. */
static void json_tried(FILE *f, const struct dump_job *job)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *step;

	fputs(",\n  \"tried\": [\n    ", f);
	step = xasprintf("stat(2): %s",
			 job->st.st_mode ? "a file of this size and mtime"
					 : "no file could be reached");
	json_str(f, step);
	free(step);
	if (job->opened) {
		step = xasprintf("inodedump_open(): its format probed; vmlinux by "
				 "build-id and by release below %s, from "
				 "debuginfod (%s); else the dump's BTF and kallsyms",
				 job->debug_root ? job->debug_root : "/",
				 urls && *urls ? urls : "DEBUGINFOD_URLS unset");
		fputs(",\n    ", f);
		json_str(f, step);
		free(step);
		step = job->dmesg ? xasprintf("the saved log %s: %zu report%s "
					      "(dmesg_reports)", job->dmesg,
					      job->n_dmesg_reps,
					      job->n_dmesg_reps == 1 ? "" : "s")
				  : xasprintf("no saved log beside the dump");
		fputs(",\n    ", f);
		json_str(f, step);
		free(step);
	}
	fputs("\n  ]", f);
}

char *triage_job_json(const struct dump_job *job)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_head(f, job);
	json_dump_facts(f, job);
	if (job->error) {
		fputs("  \"error\": ", f);
		json_str(f, job->error);
		json_tried(f, job);
		fputs(",\n  \"dmesg_reports\": [", f);
		for (size_t i = 0; i < job->n_dmesg_reps; i++) {
			const struct inodedump_report *r = &job->dmesg_reps[i];

			fputs(i ? ",\n    {\"reason\": " : "\n    {\"reason\": ", f);
			json_str(f, r->reason);
			fprintf(f, ", \"address\": \"0x%" PRIx64 "\"}", r->address);
		}
		fputs(job->n_dmesg_reps ? "\n  ],\n" : "],\n", f);
	} else {
		fputs("  \"log\": ", f);
		json_str(f, job->log_source);
		fputs(",\n  \"facts\": ", f);
		json_str(f, job->facts_text);
		fputs(",\n  \"reports_document\": ", f);
		if (job->reports_json && *job->reports_json) {
			size_t l = strlen(job->reports_json);

			while (l && job->reports_json[l - 1] == '\n')
				l--;
			fwrite(job->reports_json, 1, l, f);
		} else {
			fputs("null", f);
		}
		fputs(",\n  \"sweep\": ", f);
		json_lines(f, job->sweep_jsonl);
		fputs(",\n", f);
	}
	json_messages(f, &job->msgs);
	fputs("\n}\n", f);
	fclose(f);
	return buf;
}

/* label, then s escaped (names are anyone's bytes), then a newline. */
static void text_line(FILE *f, const char *label, const char *s)
{
	fputs(label, f);
	text_str(f, s);
	fputc('\n', f);
}

char *triage_job_text(const struct dump_job *job)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	text_line(f, "vmcore-inode --triage: ", job->dump);
	text_line(f, "key: ", job->key);
	fprintf(f, "exit status: %d\n", job->exit_code);
	if (job->dmesg)
		text_line(f, "saved log: ", job->dmesg);
	if (job->error) {
		text_line(f, "error: ", job->error);
		if (job->n_dmesg_reps)
			fprintf(f, "\nthe saved log's %zu report%s (not decoded):\n",
				job->n_dmesg_reps, job->n_dmesg_reps == 1 ? "" : "s");
		for (size_t i = 0; i < job->n_dmesg_reps; i++) {
			fputs("  ", f);
			text_str(f, job->dmesg_reps[i].reason);
			fprintf(f, ": inode 0x%" PRIx64 "\n",
				job->dmesg_reps[i].address);
		}
	} else {
		text_line(f, "log: ", job->log_source);
		/* The library's own views: escaped already. */
		fprintf(f, "\n== the dump ==\n%s",
			job->facts_text ? job->facts_text : "");
		fprintf(f, "\n== the reports (%ld) ==\n%s", job->reports,
			job->reports_text ? job->reports_text : "");
		fprintf(f, "\n== the sweep: inodes with a violation ==\n%s",
			job->sweep_text ? job->sweep_text : "");
	}
	if (job->msgs.n)
		fputs("\n== what could not be read ==\n", f);
	for (size_t i = 0; i < job->msgs.n; i++)
		text_line(f, "", job->msgs.v[i]);
	fclose(f);
	return buf;
}

/* The stored result's key and exit status: true when it is this dump's. */
bool triage_stored(int dfd, const char *json_name, const char *key, int *code,
		   bool *unread, long *reports, long *violations)
{
	const char *why;
	bool cut, same = false;
	/* Its first line is all that is read: the key, status and counts. */
	char *old = read_beneath(dfd, json_name, 4096, NULL, &cut, &why), *k, *e;

	if (!old)
		return false;
	if ((e = strchr(old, '\n'))) /* the first line is the key's */
		*e = '\0';
	*unread = strstr(old, "\"state\": \"error\"") != NULL;
	k = strstr(old, "\"triage_key\": \"");
	if (k) {
		k += 15;
		e = strchr(k, '"');
		same = e && (size_t)(e - k) == strlen(key) &&
		       !strncmp(k, key, strlen(key));
	}
	e = strstr(old, "\"exit_code\": ");
	*code = e ? atoi(e + 13) : RUN_UNREADABLE;
	if ((e = strstr(old, "\"reports\": ")))
		*reports = strtol(e + 11, NULL, 10);
	if ((e = strstr(old, "\"violations\": ")))
		*violations = strtol(e + 14, NULL, 10);
	free(old);
	return same;
}

void triage_job_free(struct dump_job *job)
{
	free(job->log_source);
	free(job->facts_text);
	free(job->reports_json);
	free(job->reports_text);
	free(job->sweep_jsonl);
	free(job->sweep_text);
	free(job->dmesg_reps);
	free_messages(&job->msgs);
}
