// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcore-inode --triage [DIR]: find every dump a crash left in DIR (the
 * layouts of Debian's kdump-tools, DIR/STAMP/dump.STAMP + dmesg.STAMP, and
 * of RHEL's kdump, DIR/HOST-DATE/vmcore + vmcore-dmesg.txt, or one dump
 * file given directly), triage each once — its reports decoded, the sweep's
 * checks run — and write inodedump.json and inodedump.txt beside it,
 * atomically. A dump that cannot be read gets its error there instead; one
 * bad dump never stops the batch. Then a summary, and the batch's status.
 * Here: what a dump is, the discovery, a row per entry, the lock and the
 * summary; one dump's triage is triage_dump.c, the files triage_io.c.
 * Public API only (inodedump.h), through the runs of run.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include "triage_dump.h"
#include "triage_io.h"

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
	"--triage's exit status: the worst of its dumps' (one triaged before\n"
	"counts with its stored status, one left for the next run does not);\n"
	"3 only for a dump or directory that could not be read at all (a dump\n"
	"read, but not an inode it reported, counts as 4); 0 when DIR does not\n"
	"exist or holds no dump.\n";

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
	bool unread;	  /* ROW_DONE: its stored results are an error's */
	long reports;	  /* -1: not known */
	long violations;  /* inodes with a violation in the sweep; -1 */
	char *note;	  /* one line: why, or what was used */
};

struct batch {
	const struct triage_opts *opts;
	struct row *rows;
	size_t n, cap;
	bool tty;
	size_t written; /* dumps whose results this run wrote */
};

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

static double age_of(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
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
		if (!b->opts->again &&
		    triage_stored(json_path, key, &code, &r->unread,
				  &r->reports, &r->violations)) {
			r->state = ROW_DONE;
			r->exit_code = code;
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
		triage_job_run(b->opts, &job);
	if (!job.error && (stat(dump, &again) || again.st_size != job.st.st_size ||
			   again.st_mtim.tv_sec != job.st.st_mtim.tv_sec ||
			   again.st_mtim.tv_nsec != job.st.st_mtim.tv_nsec)) {
		r->state = ROW_SKIPPED;
		set_note(r, xasprintf("changed while it was read: left for the "
				      "next run"));
		triage_job_free(&job);
		free(text_path);
		free(key);
		free(dmesg);
		free(dump);
		return true;
	}
	{
		char *json = triage_job_json(&job), *text = triage_job_text(&job);

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
		r->state = ROW_FAILED;
		r->exit_code = RUN_UNREADABLE;
		r->json_path = NULL;
		free(json_path);
	} else if (job.error) {
		b->written++;
		set_note(r, xasprintf("%s", job.error));
	} else {
		b->written++;
		set_note(r, xasprintf("%s", job.log_source));
	}
	triage_job_free(&job);
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
			   "\"state\": \"error\", \"exit_code\": %d, \"reports\": -1, "
			   "\"violations\": -1,\n"
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

/* A row for dir or something in it. */
static bool has_rows_under(const struct batch *b, const char *dir)
{
	size_t l = strlen(dir);

	for (size_t k = 0; k < b->n; k++)
		if (!strncmp(b->rows[k].path, dir, l) &&
		    (!b->rows[k].path[l] || b->rows[k].path[l] == '/'))
			return true;
	return false;
}

/* Before a round (--wait): what was left for later is looked at afresh. */
static void drop_skipped(struct batch *b)
{
	size_t k = 0;

	for (size_t i = 0; i < b->n; i++) {
		if (b->rows[i].state == ROW_SKIPPED) {
			free(b->rows[i].path);
			free(b->rows[i].json_path);
			free(b->rows[i].note);
			continue;
		}
		b->rows[k++] = b->rows[i];
	}
	b->n = k;
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
	const char *saved = NULL; /* a saved log's name */
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
	for (int i = 0; i < n; i++) {
		dumps += is_dump_name(ents[i]->d_name);
		if (!strncmp(ents[i]->d_name, "dmesg.", 6) ||
		    !strcmp(ents[i]->d_name, "vmcore-dmesg.txt"))
			saved = ents[i]->d_name;
	}
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
				if (!has_rows_under(b, p)) {
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
					      "*.vmcore)%s%s%s", saved ? ", only "
					      "the saved log " : "",
					      saved ? saved : "", saved ?
					      ": did its writer fail?" : ""));
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

/*
 * A row's part in the batch's status. A dump that could not be read (or
 * its results not written) is 3; one read whose reported inode could not
 * be (the dump's own status 3, as vmcore-inode DUMP says it) is read in
 * part for the batch: 4. Skipped and empty rows are 0.
 */
static int batch_status(const struct row *r)
{
	switch (r->state) {
	case ROW_FAILED:
		return r->exit_code;
	case ROW_TRIAGED:
	case ROW_DONE:
		if (r->state == ROW_DONE && r->unread)
			return r->exit_code;
		return r->exit_code == RUN_UNREADABLE ? RUN_PARTIAL : r->exit_code;
	default:
		return RUN_CLEAN;
	}
}

bool triage_seconds(bool wait, const char *s, struct triage_opts *opts)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *s == '-' || *end || v > 86400) {
		fprintf(stderr, "vmcore-inode: %s '%s': seconds, 0 to 86400\n",
			wait ? "--wait" : "--settle", s);
		return false;
	}
	*(wait ? &opts->wait : &opts->settle) = (unsigned int)v;
	return true;
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
		/*
		 * Again while a round wrote something (a dump may have come
		 * while it worked: a .path unit's event then started nothing)
		 * or, with --wait, while a dump is still being written.
		 */
		for (;;) {
			struct timespec now;
			size_t written = b.written, later;

			drop_skipped(&b);
			later = scan_dir(&b, path, true);

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (later && now.tv_sec - start.tv_sec < (time_t)opts->wait)
				sleep(1);
			else if (b.written == written)
				break;
		}
	}
	for (size_t i = 0; i < b.n; i++)
		run_worse(&status, batch_status(&b.rows[i]));
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
