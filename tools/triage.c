// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcore-inode --triage [DIR]: find every dump a crash left in DIR (the
 * layouts of Debian's kdump-tools, DIR/STAMP/dump.STAMP + dmesg.STAMP, and
 * of RHEL's kdump, DIR/HOST-DATE/vmcore + vmcore-dmesg.txt, or one dump
 * file given directly), triage each once — its reports decoded, the sweep's
 * checks run — and write inodedump.json and inodedump.txt beside it,
 * atomically. A dump that cannot be read gets its error there instead; one
 * bad dump never stops the batch. Then a summary, and the batch's status.
 * Public API only (inodedump.h), through the runs of run.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inodedump.h"
#include "run.h"
#include "triage.h"

const char triage_usage[] =
	"\n"
	"  --triage [DIR|DUMP]   every dump in DIR (default /var/crash; its\n"
	"                        STAMP/dump.STAMP, HOST-DATE/vmcore, *.vmcore)\n"
	"                        not triaged yet: the reports in its log (else\n"
	"                        in dmesg.STAMP or vmcore-dmesg.txt beside it)\n"
	"                        decoded, the sweep's checks run, inodedump.json\n"
	"                        and inodedump.txt written beside it, or its\n"
	"                        error; then a table (--json: a JSON summary)\n"
	"      --settle S        (triage) a dump or directory modified less than\n"
	"                        S seconds ago is being written: left for the\n"
	"                        next run (default 10)\n"
	"      --wait S          (triage) wait up to S seconds for them instead\n"
	"      --again           (triage) the dumps triaged before, too\n"
	"--triage's exit status: the worst of its dumps' (a dump triaged before\n"
	"counts with its stored status, one left for the next run does not);\n"
	"0 also when DIR does not exist or holds no dump.\n";

#define LOCK_NAME ".inodedump-triage.lock"
#define RESULT_JSON "inodedump.json"
#define RESULT_TEXT "inodedump.txt"

enum row_state {
	ROW_PENDING,  /* found, not looked at yet */
	ROW_TRIAGED,  /* triaged by this run: results written */
	ROW_DONE,     /* triaged before: its results are the dump's */
	ROW_FAILED,   /* could not be read: its error file written */
	ROW_SKIPPED,  /* still being written: the next run takes it */
	ROW_NOTHING,  /* a directory with nothing to triage */
};

static const char *const state_names[] = {
	[ROW_PENDING] = "pending", [ROW_TRIAGED] = "triaged", [ROW_DONE] = "already triaged",
	[ROW_FAILED] = "error", [ROW_SKIPPED] = "skipped",
	[ROW_NOTHING] = "nothing",
};

/* One line of the summary: a dump, or a path that is none. */
struct row {
	char *path;	  /* the dump, or the directory or entry */
	char *json_path;  /* its inodedump.json (NULL: none written) */
	enum row_state state;
	int exit_code;
	long reports;	  /* -1: not known */
	long violations;  /* inodes with a violation in the sweep; -1 */
	char *note;	  /* one line: why, or what was used */
};

struct batch {
	const struct triage_opts *opts;
	struct row *rows;
	size_t n, cap;
	bool tty;
};

/* ------------------------------------------------------------ helpers */

static char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		fputs("vmcore-inode: out of memory\n", stderr);
		exit(RUN_UNREADABLE);
	}
	return s;
}

/* A JSON string, quotes and all. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
	     p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static struct row *add_row(struct batch *b, const char *path)
{
	struct row *r;

	for (size_t i = 0; i < b->n; i++) /* a rescan (--wait) finds it again */
		if (!strcmp(b->rows[i].path, path))
			return &b->rows[i];
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->rows = realloc(b->rows, b->cap * sizeof(*b->rows));
		if (!b->rows) {
			fputs("vmcore-inode: out of memory\n", stderr);
			exit(RUN_UNREADABLE);
		}
	}
	r = &b->rows[b->n++];
	*r = (struct row){ .path = xasprintf("%s", path), .reports = -1,
			   .violations = -1 };
	return r;
}

static void set_note(struct row *r, char *note)
{
	free(r->note);
	r->note = note;
}

static char *path_join(const char *dir, const char *name)
{
	size_t l = strlen(dir);

	return xasprintf("%s%s%s", dir, l && dir[l - 1] == '/' ? "" : "/", name);
}

/* A whole (small) file into a malloc'd buffer; NULL when unreadable. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *g = realloc(buf, cap = 2 * cap + 65536 + 1);

			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = g;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/*
 * Write data to path atomically: a temporary file in the same directory,
 * written, fsync'd, given mode, renamed over path, the directory fsync'd. Nothing when
 * path already holds these very bytes (a rerun changes no file). Returns 0
 * or an errno.
 */
static int write_atomic(const char *path, const char *data, size_t len,
			mode_t mode)
{
	char *dir = xasprintf("%s", path), *slash = strrchr(dir, '/'), *tmp;
	size_t old_len;
	char *old = slurp(path, &old_len);
	int fd, e = 0;

	if (old && old_len == len && !memcmp(old, data, len)) {
		free(old);
		free(dir);
		return 0;
	}
	free(old);
	if (slash)
		slash[1] = '\0';
	else
		strcpy(dir, "./");
	tmp = xasprintf("%s.inodedump-tmp.XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		off += (size_t)w;
	}
	if (!e && (fchmod(fd, mode) || fsync(fd)))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e) {
		unlink(tmp);
	} else {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
out:
	free(tmp);
	free(dir);
	return e;
}

/* ---------------------------------------------------- what a dump is */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Ours: results, their temporary files, the lock. */
static bool is_ours(const char *name)
{
	return !strncmp(name, ".inodedump", 10) || !strcmp(name, RESULT_JSON) ||
	       !strcmp(name, RESULT_TEXT) || ends_with(name, "." RESULT_JSON) ||
	       ends_with(name, "." RESULT_TEXT);
}

/* A dump a writer is still writing under its temporary name. */
static bool is_incomplete(const char *name)
{
	return ends_with(name, "-incomplete") || ends_with(name, ".incomplete");
}

/*
 * The names dumps have: kdump-tools' dump.STAMP, RHEL's vmcore (and
 * vmcore.flat when flattened), and NAME.vmcore as people copy them.
 */
static bool is_dump_name(const char *name)
{
	if (is_ours(name) || is_incomplete(name))
		return false;
	return !strcmp(name, "vmcore") || !strcmp(name, "vmcore.flat") ||
	       !strncmp(name, "dump.", 5) || ends_with(name, ".vmcore");
}

/* The saved log beside a dump: dmesg.STAMP for dump.STAMP, else RHEL's. */
static char *find_dmesg(const char *dir, const char *dump_name)
{
	char *p;

	if (!strncmp(dump_name, "dump.", 5)) {
		char *name = xasprintf("dmesg.%s", dump_name + 5);

		p = path_join(dir, name);
		free(name);
		if (!access(p, R_OK))
			return p;
		free(p);
	}
	p = path_join(dir, "vmcore-dmesg.txt");
	if (!access(p, R_OK))
		return p;
	free(p);
	return NULL;
}

/* --------------------------------------------------- one dump's triage */

/* What a run says on stderr, kept for the dump's results instead. */
struct messages {
	char **v;
	size_t n;
};

static void keep_message(const char *message, void *arg)
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

/* Everything one dump's results hold, gathered before either is written. */
struct dump_job {
	const char *dump, *dmesg, *key;
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
};

/* A run's output into a malloc'd string. */
#define CAPTURE(buf, len, o, stmt)                                         \
	do {                                                               \
		FILE *f_ = open_memstream(&(buf), &(len));                 \
		(o).out = f_ ? f_ : stderr;                                \
		stmt;                                                      \
		if (f_)                                                    \
			fclose(f_);                                        \
	} while (0)

/* The saved log read into records; NULL (and *why) when it cannot be. */
static struct inodedump_log *read_saved_log(const char *path, char **why)
{
	struct inodedump_log *log = NULL;
	struct inodedump_error *err;
	size_t len;
	char *text = slurp(path, &len);

	if (!text) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
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
		saved = read_saved_log(job->dmesg, &saved_why);
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

static void triage_open(const struct triage_opts *opts, struct dump_job *job)
{
	INODEDUMP_OPTS(inodedump_open_opts, oo);
	INODEDUMP_OPTS(inodedump_sweep_opts, so);
	struct run_out o = { .on_error = keep_message, .arg = &job->msgs };
	struct inodedump_error *err;
	struct inodedump_log *log;
	struct inodedump *id;
	size_t len;
	int status, s;

	oo.debug_root = opts->debug_root;
	err = inodedump_open(job->dump, &oo, &id);
	if (err) {
		job->exit_code = run_error(&o, err);
		job->error = job->msgs.v ? job->msgs.v[job->msgs.n - 1]
					 : "the dump cannot be opened";
		if (job->dmesg) {
			char *why = NULL;
			struct inodedump_log *saved = read_saved_log(job->dmesg, &why);

			if (saved && !inodedump_find_reports(saved, &job->dmesg_reps,
							     &job->n_dmesg_reps))
				job->reports = (long)job->n_dmesg_reps;
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
	job->exit_code = status;
}

/* The first line of inodedump.json: the key and status a rerun reads. */
static void json_head(FILE *f, const struct dump_job *job)
{
	fprintf(f, "{\"schema\": %d, \"triage_key\": ", INODEDUMP_JSON_SCHEMA);
	json_str(f, job->key);
	fprintf(f, ", \"exit_code\": %d, \"reports\": %ld, \"violations\": %ld,\n",
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

static char *render_json(const struct dump_job *job)
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

static char *render_text(const struct dump_job *job)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "vmcore-inode --triage: %s\n", job->dump);
	fprintf(f, "key: %s\nexit status: %d\n", job->key, job->exit_code);
	if (job->dmesg)
		fprintf(f, "saved log: %s\n", job->dmesg);
	if (job->error) {
		fprintf(f, "error: %s\n", job->error);
		if (job->n_dmesg_reps)
			fprintf(f, "\nthe saved log's %zu report%s (not decoded):\n",
				job->n_dmesg_reps, job->n_dmesg_reps == 1 ? "" : "s");
		for (size_t i = 0; i < job->n_dmesg_reps; i++)
			fprintf(f, "  %s: inode 0x%" PRIx64 "\n",
				job->dmesg_reps[i].reason, job->dmesg_reps[i].address);
	} else {
		fprintf(f, "log: %s\n\n== the dump ==\n%s", job->log_source,
			job->facts_text ? job->facts_text : "");
		fprintf(f, "\n== the reports (%ld) ==\n%s", job->reports,
			job->reports_text ? job->reports_text : "");
		fprintf(f, "\n== the sweep: inodes with a violation ==\n%s",
			job->sweep_text ? job->sweep_text : "");
	}
	if (job->msgs.n)
		fputs("\n== what could not be read ==\n", f);
	for (size_t i = 0; i < job->msgs.n; i++)
		fprintf(f, "%s\n", job->msgs.v[i]);
	fclose(f);
	return buf;
}

/* The stored result's key and exit status: true when it is this dump's. */
static bool already_done(const char *json_path, const char *key, int *code)
{
	char *old = slurp(json_path, NULL), *k, *e;
	bool same = false;

	if (!old)
		return false;
	k = strstr(old, "\"triage_key\": \"");
	if (k) {
		k += 15;
		e = strchr(k, '"');
		same = e && (size_t)(e - k) == strlen(key) &&
		       !strncmp(k, key, strlen(key));
	}
	e = strstr(old, "\"exit_code\": ");
	*code = e ? atoi(e + 13) : RUN_UNREADABLE;
	free(old);
	return same;
}

/* A dump's row from a stored result: its counts. */
static void stored_counts(const char *json_path, struct row *r)
{
	char *old = slurp(json_path, NULL), *p;

	if (!old)
		return;
	if ((p = strstr(old, "\"reports\": ")))
		r->reports = strtol(p + 11, NULL, 10);
	if ((p = strstr(old, "\"violations\": ")))
		r->violations = strtol(p + 14, NULL, 10);
	free(old);
}

static double age_of(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void free_job(struct dump_job *job)
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

/*
 * One dump: its results written, or left as they are, or skipped. Returns
 * true when it was left for later (still being written).
 */
static bool triage_dump(struct batch *b, const char *dir, const char *name,
			bool alone)
{
	char *dump = path_join(dir, name), *json_path, *text_path, *key;
	struct row *r = add_row(b, dump);
	struct dump_job job = { .dump = dump, .reports = -1, .violations = -1 };
	struct stat again;
	char *dmesg = find_dmesg(dir, name);
	int e, code;

	if (r->state == ROW_TRIAGED || r->state == ROW_FAILED) {
		free(dump);
		free(dmesg);
		return false; /* done in this run's earlier round */
	}
	if (alone) {
		json_path = path_join(dir, RESULT_JSON);
		text_path = path_join(dir, RESULT_TEXT);
	} else {
		char *j = xasprintf("%s." RESULT_JSON, name),
		     *t = xasprintf("%s." RESULT_TEXT, name);

		json_path = path_join(dir, j);
		text_path = path_join(dir, t);
		free(j);
		free(t);
	}
	free(r->json_path);
	r->json_path = json_path;
	job.dmesg = dmesg;
	if (stat(dump, &job.st)) {
		e = errno;
		job.error = e == ELOOP ? "a symlink loop: the dump is no file"
				       : strerror(e);
		job.key = key = xasprintf("unreadable: %s", strerror(e));
		job.exit_code = RUN_UNREADABLE;
	} else {
		job.key = key = xasprintf("size=%lld mtime=%lld.%09ld",
					  (long long)job.st.st_size,
					  (long long)job.st.st_mtim.tv_sec,
					  job.st.st_mtim.tv_nsec);
		if (!b->opts->again && already_done(json_path, key, &code)) {
			r->state = ROW_DONE;
			r->exit_code = code;
			stored_counts(json_path, r);
			set_note(r, xasprintf("results of an earlier run: %s",
					      json_path));
			goto out;
		}
		if (age_of(&job.st.st_mtim) < b->opts->settle) {
			r->state = ROW_SKIPPED;
			set_note(r, xasprintf("modified %.0f s ago: may still be "
					      "being written; left for the next run",
					      age_of(&job.st.st_mtim)));
			free(text_path);
			free(key);
			free(dmesg);
			free(dump);
			return true;
		}
		if (!S_ISREG(job.st.st_mode)) {
			job.error = "not a regular file";
			job.exit_code = RUN_UNREADABLE;
		} else if (!job.st.st_size) {
			job.error = "an empty file (0 bytes): its writer wrote nothing";
			job.exit_code = RUN_UNREADABLE;
		}
	}
	if (b->tty)
		fprintf(stderr, "\rvmcore-inode: triage [%zu] %s ...\033[K", b->n,
			dump);
	if (!job.error)
		triage_open(b->opts, &job);
	if (!job.error && (stat(dump, &again) || again.st_size != job.st.st_size ||
			   again.st_mtim.tv_sec != job.st.st_mtim.tv_sec ||
			   again.st_mtim.tv_nsec != job.st.st_mtim.tv_nsec)) {
		r->state = ROW_SKIPPED;
		set_note(r, xasprintf("changed while it was read: left for the "
				      "next run"));
		free_job(&job);
		free(text_path);
		free(key);
		free(dmesg);
		free(dump);
		return true;
	}
	{
		char *json = render_json(&job), *text = render_text(&job);

		/* Whoever may read the dump may read what it says; no more. */
		mode_t mode = job.st.st_mode ? job.st.st_mode & 0644 : 0600;

		e = !json || !text ? ENOMEM
				   : write_atomic(text_path, text, strlen(text), mode);
		if (!e)
			e = write_atomic(json_path, json, strlen(json), mode);
		free(json);
		free(text);
	}
	r->state = job.error ? ROW_FAILED : ROW_TRIAGED;
	r->exit_code = job.exit_code;
	r->reports = job.reports;
	r->violations = job.violations;
	if (e) {
		set_note(r, xasprintf("results not written: %s: %s", json_path,
				      strerror(e)));
		r->exit_code = RUN_UNREADABLE;
		r->json_path = NULL;
		free(json_path);
	} else if (job.error) {
		set_note(r, xasprintf("%s", job.error));
	} else {
		set_note(r, xasprintf("%s", job.log_source));
	}
	free_job(&job);
out:
	if (b->tty)
		fprintf(stderr, "\r\033[K");
	free(text_path);
	free(key);
	free(dmesg);
	free(dump);
	return false;
}

/* --------------------------------------------------------- discovery */

/*
 * A directory or entry that cannot be read: its row, and its error file
 * beside it (DIR/NAME.inodedump.json), rewritten only when it changes.
 */
static void entry_error(struct batch *b, const char *parent, const char *name,
			const char *why)
{
	char *path = path_join(parent, name);
	struct row *r = add_row(b, path);
	char *jn = xasprintf("%s." RESULT_JSON, name), *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	r->state = ROW_FAILED;
	r->exit_code = RUN_UNREADABLE;
	set_note(r, xasprintf("%s", why));
	free(r->json_path);
	r->json_path = path_join(parent, jn);
	if (f) {
		fprintf(f, "{\"schema\": %d, \"triage_key\": \"unreadable\", "
			   "\"exit_code\": %d, \"reports\": -1, \"violations\": -1,\n"
			   "  \"path\": ", INODEDUMP_JSON_SCHEMA, RUN_UNREADABLE);
		json_str(f, path);
		fputs(",\n  \"error\": ", f);
		json_str(f, why);
		fputs("\n}\n", f);
		fclose(f);
		if (write_atomic(r->json_path, buf, len, 0600)) {
			free(r->json_path);
			r->json_path = NULL;
		}
	}
	free(buf);
	free(jn);
	free(path);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * The dumps of one directory, each triaged; returns how many were left for
 * later. top: DIR itself, whose subdirectories are looked into (one level
 * down: the layouts have no deeper one).
 */
static size_t scan_dir(struct batch *b, const char *dir, bool top)
{
	struct dirent **ents;
	size_t dumps = 0, later = 0, incomplete = 0;
	int n = scandir(dir, &ents, visible, by_name);
	struct stat st;

	if (n < 0) {
		char *why = xasprintf("the directory cannot be read: %s",
				      strerror(errno));
		char *parent = xasprintf("%s", dir), *slash;

		while ((slash = strrchr(parent, '/')) && !slash[1] && slash > parent)
			*slash = '\0';
		slash = strrchr(parent, '/');
		if (slash && !top) {
			*slash = '\0';
			entry_error(b, *parent ? parent : "/", slash + 1, why);
		} else {
			struct row *r = add_row(b, dir);

			r->state = ROW_FAILED;
			r->exit_code = RUN_UNREADABLE;
			set_note(r, xasprintf("%s", why));
		}
		free(parent);
		free(why);
		return 0;
	}
	for (int i = 0; i < n; i++)
		dumps += is_dump_name(ents[i]->d_name);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *p = path_join(dir, name);

		if (is_dump_name(name)) {
			later += triage_dump(b, dir, name, dumps == 1);
		} else if (is_incomplete(name)) {
			struct row *r = add_row(b, p);

			incomplete++;
			r->state = ROW_SKIPPED;
			set_note(r, xasprintf("its writer has not finished it "
					      "(the name it writes under): left "
					      "for the next run"));
			later++;
		} else if (!top || is_ours(name)) {
			/* the saved logs, our results, whatever else */
		} else if (stat(p, &st)) {
			if (errno == ELOOP)
				entry_error(b, dir, name, "a symlink loop: it leads "
					    "to no directory or dump");
			else if (errno != ENOENT) /* gone since listed */
				entry_error(b, dir, name, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			size_t l = scan_dir(b, p, false);

			/* A directory being filled: a dump may be on its way. */
			if (!l && age_of(&st.st_mtim) < b->opts->settle) {
				bool has_row = false;

				for (size_t k = 0; k < b->n; k++)
					has_row = has_row ||
						  !strncmp(b->rows[k].path, p, strlen(p));
				if (!has_row) {
					struct row *r = add_row(b, p);

					r->state = ROW_SKIPPED;
					set_note(r, xasprintf(
						"modified %.0f s ago and no dump in "
						"it yet: left for the next run",
						age_of(&st.st_mtim)));
					l = 1;
				}
			}
			later += l;
		}
		free(p);
	}
	if (!top && !dumps && !incomplete && n >= 0) {
		bool has_row = false;

		for (size_t k = 0; k < b->n; k++)
			has_row = has_row || !strcmp(b->rows[k].path, dir);
		if (!has_row && !stat(dir, &st) &&
		    age_of(&st.st_mtim) >= b->opts->settle) {
			struct row *r = add_row(b, dir);

			r->state = ROW_NOTHING;
			set_note(r, xasprintf("no dump in it (dump.*, vmcore, "
					      "*.vmcore)"));
		}
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return later;
}

/* -------------------------------------------------------- the batch */

static void print_table(const struct batch *b, const char *root)
{
	size_t w = 4;

	if (!b->n) {
		printf("%s: no dump to triage\n", root);
		return;
	}
	for (size_t i = 0; i < b->n; i++)
		if (strlen(b->rows[i].path) > w)
			w = strlen(b->rows[i].path);
	printf("%-15s %4s %7s %10s  %-*s  %s\n", "STATE", "EXIT", "REPORTS",
	       "VIOLATIONS", (int)w, "DUMP", "NOTE");
	for (size_t i = 0; i < b->n; i++) {
		const struct row *r = &b->rows[i];
		char rep[24] = "-", vio[24] = "-", ex[8] = "-";

		if (r->reports >= 0)
			snprintf(rep, sizeof(rep), "%ld", r->reports);
		if (r->violations >= 0)
			snprintf(vio, sizeof(vio), "%ld", r->violations);
		if (r->state != ROW_SKIPPED && r->state != ROW_NOTHING)
			snprintf(ex, sizeof(ex), "%d", r->exit_code);
		printf("%-15s %4s %7s %10s  %-*s  %s\n", state_names[r->state], ex,
		       rep, vio, (int)w, r->path, r->note ? r->note : "");
	}
}

static void print_json(const struct batch *b, const char *root, int status)
{
	printf("{\"schema\": %d, \"directory\": ", INODEDUMP_JSON_SCHEMA);
	json_str(stdout, root);
	printf(", \"exit_code\": %d, \"dumps\": [", status);
	for (size_t i = 0; i < b->n; i++) {
		const struct row *r = &b->rows[i];

		fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", stdout);
		json_str(stdout, r->path);
		fputs(", \"state\": ", stdout);
		json_str(stdout, state_names[r->state]);
		if (r->state == ROW_SKIPPED || r->state == ROW_NOTHING)
			fputs(", \"exit_code\": null", stdout);
		else
			printf(", \"exit_code\": %d", r->exit_code);
		printf(", \"reports\": %ld, \"violations\": %ld, \"results\": ",
		       r->reports, r->violations);
		if (r->json_path)
			json_str(stdout, r->json_path);
		else
			fputs("null", stdout);
		fputs(", \"note\": ", stdout);
		json_str(stdout, r->note);
		fputc('}', stdout);
	}
	fputs(b->n ? "\n]}\n" : "]}\n", stdout);
}

/*
 * The lock: DIR/.inodedump-triage.lock, flock'd for the whole batch, so
 * that two runs never write at once (the second waits, then finds the
 * dumps triaged). Opened read-only: closing it writes nothing that a
 * .path unit's watch of DIR would see. -1 when DIR is read-only: a run
 * that can write nothing needs no lock.
 */
static int take_lock(const char *dir)
{
	char *p = path_join(dir, LOCK_NAME);
	int fd = open(p, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "vmcore-inode: another triage holds %s: "
				"waiting for it\n", p);
		while (flock(fd, LOCK_EX) && errno == EINTR)
			;
	}
	free(p);
	return fd;
}

int triage_run(const char *path, const struct triage_opts *opts)
{
	struct batch b = { .opts = opts, .tty = isatty(STDERR_FILENO) };
	struct timespec start;
	struct stat st;
	int status = RUN_CLEAN, lock = -1;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (stat(path, &st)) {
		struct row *r = add_row(&b, path);

		r->state = errno == ENOENT ? ROW_NOTHING : ROW_FAILED;
		r->exit_code = RUN_UNREADABLE;
		set_note(r, xasprintf(errno == ENOENT
					      ? "no such directory: nothing to triage"
					      : errno == ELOOP ? "a symlink loop"
							       : "%s",
				      strerror(errno)));
	} else if (S_ISREG(st.st_mode)) {
		/* One dump given: its results beside it, named after it. */
		char *dir = xasprintf("%s", path), *slash = strrchr(dir, '/');
		const char *name = slash ? slash + 1 : path;

		if (slash)
			*slash = '\0';
		lock = take_lock(slash ? (*dir ? dir : "/") : ".");
		triage_dump(&b, slash ? (*dir ? dir : "/") : ".", name, false);
		free(dir);
	} else {
		lock = take_lock(path);
		for (;;) {
			struct timespec now;
			size_t later = scan_dir(&b, path, true);

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (!later || now.tv_sec - start.tv_sec >= (time_t)opts->wait)
				break;
			sleep(1);
		}
	}
	for (size_t i = 0; i < b.n; i++)
		if (b.rows[i].state != ROW_SKIPPED && b.rows[i].state != ROW_NOTHING)
			run_worse(&status, b.rows[i].exit_code);
	if (opts->json)
		print_json(&b, path, status);
	else
		print_table(&b, path);
	if (lock >= 0)
		close(lock);
	for (size_t i = 0; i < b.n; i++) {
		free(b.rows[i].path);
		free(b.rows[i].json_path);
		free(b.rows[i].note);
	}
	free(b.rows);
	return status;
}
