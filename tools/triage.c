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
 *
 * It runs as root over a directory others may write: below DIR every name
 * is looked up relative to its directory's fd and no symlink is followed
 * (one is an entry that is said, once, and left), no FIFO or device is
 * opened as a dump, a log, a result or the lock, and names reach the
 * table, stderr and the results escaped (triage_io.h).
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
	bool said;	  /* its refusal is on stderr already (--wait rounds) */
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
		b->rows = xrealloc(b->rows, b->cap * sizeof(*b->rows));
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

/* A path that could not be read at all: its row, exit 3, note (taken). */
static struct row *row_failed(struct batch *b, const char *path, char *note)
{
	struct row *r = add_row(b, path);

	r->state = ROW_FAILED;
	r->exit_code = RUN_UNREADABLE;
	set_note(r, note);
	return r;
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

/*
 * The saved log beside a dump, its name in dfd: dmesg.STAMP for
 * dump.STAMP, else RHEL's. Whatever the entry is: when it is no regular
 * file, reading it says so.
 */
static char *find_dmesg(int dfd, const char *dump_name)
{
	struct stat st;
	char *name;

	if (!strncmp(dump_name, "dump.", 5)) {
		name = xasprintf("dmesg.%s", dump_name + 5);
		if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			return name;
		free(name);
	}
	name = xasprintf("vmcore-dmesg.txt");
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return name;
	free(name);
	return NULL;
}

/* A path refused (a symlink, a FIFO where a file belongs): said once. */
static void say_once(struct row *r, const char *why)
{
	if (r->said)
		return;
	r->said = true;
	fputs("vmcore-inode: ", stderr);
	text_str(stderr, r->path);
	fputs(": ", stderr);
	text_str(stderr, why);
	fputc('\n', stderr);
}

static double age_of(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/*
 * The dump name in dfd opened for reading: the very file fstatat() saw
 * (st), never through a symlink. -1 and *why when it cannot be opened; -1
 * and *why NULL when another file took its place meanwhile.
 */
static int open_dump(int dfd, const char *name, const struct stat *st,
		     const char **why)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
				   O_NOCTTY | O_CLOEXEC);
	struct stat now;

	*why = NULL;
	if (fd < 0) {
		*why = errno == ELOOP ? not_regular(S_IFLNK) : strerror(errno);
		return -1;
	}
	if (fstat(fd, &now) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The dump is the file it was when its triage began. */
static bool unchanged(int dfd, const char *name, const struct stat *st)
{
	struct stat now;

	return !fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) &&
	       now.st_dev == st->st_dev && now.st_ino == st->st_ino &&
	       now.st_size == st->st_size &&
	       now.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	       now.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

/*
 * Its results, text then JSON, written beside it in dfd: 0, or an errno
 * and the name that could not be written (*why: when it was refused).
 */
static int write_results(const struct dump_job *job, int dfd,
			 const char *text_name, const char *json_name,
			 const char **failed, const char **why)
{
	char *json = triage_job_json(job), *text = triage_job_text(job);
	/* Whoever may read the dump may read what it says; no more. */
	mode_t mode = job->st.st_mode ? job->st.st_mode & 0644 : 0600;
	int e;

	*why = NULL;
	e = !json || !text ? ENOMEM
			   : write_beneath(dfd, text_name, text, strlen(text),
					   mode, why);
	*failed = text_name;
	if (!e && (e = write_beneath(dfd, json_name, json, strlen(json), mode,
				     why)))
		*failed = json_name;
	free(json);
	free(text);
	return e;
}

/* What looking at a dump before reading it decided. */
enum look {
	LOOK_READ,    /* read it (or write its error: job->error) */
	LOOK_DONE,    /* its results are an earlier run's: the row says */
	LOOK_LATER,   /* still being written: the row says */
	LOOK_CHANGED, /* another file took its name meanwhile */
};

/*
 * A regular, non-empty dump opened (job->dump_fd) and its fingerprint
 * read through that fd: true. False with *why when it could not be
 * opened or read, false and no *why when another file took its name.
 */
static bool open_and_fingerprint(struct dump_job *job, int dfd,
				 const char *name, uint64_t *hash,
				 const char **why)
{
	if ((job->dump_fd = open_dump(dfd, name, &job->st, why)) < 0)
		return false;
	if (dump_fingerprint(job->dump_fd, job->st.st_size, hash))
		return true;
	*why = strerror(errno);
	close(job->dump_fd);
	job->dump_fd = -1;
	return false;
}

/*
 * The key its results are stored under: size, mtime in whole seconds
 * and, when it could be read, a hash of its header and last page. Not
 * the mtime's nanoseconds: copies that lose them (debugfs rdump, cp -p
 * onto a filesystem of whole seconds) are the same dump, not a new one.
 */
static char *dump_key(const struct stat *st, bool hashed, uint64_t hash)
{
	if (!hashed)
		return xasprintf("size=%lld mtime=%lld", (long long)st->st_size,
				 (long long)st->st_mtim.tv_sec);
	return xasprintf("size=%lld mtime=%lld head=%016llx",
			 (long long)st->st_size, (long long)st->st_mtim.tv_sec,
			 (unsigned long long)hash);
}

/*
 * The dump name in dfd looked at, not followed: when it is a regular file,
 * opened (job->dump_fd) and its first bytes hashed; its key, whether its
 * results are there already, whether it has settled.
 */
static enum look look_at(struct batch *b, struct row *r, struct dump_job *job,
			 int dfd, const char *name, const char *json_name)
{
	const char *why = NULL, *refused;
	bool hashed = false;
	uint64_t hash = 0;
	int code;

	if (fstatat(dfd, name, &job->st, AT_SYMLINK_NOFOLLOW))
		job->error = strerror(errno);
	else if (S_ISLNK(job->st.st_mode))
		job->error = not_regular(S_IFLNK);
	if (job->error) {
		/* No size and mtime to key on: looked at (and said) each run. */
		job->key = xasprintf("unreadable: %s", job->error);
		job->exit_code = RUN_UNREADABLE;
		job->st = (struct stat){ 0 };
		say_once(r, job->error);
		return LOOK_READ;
	}
	refused = not_regular(job->st.st_mode);
	if (!refused && job->st.st_size) {
		hashed = open_and_fingerprint(job, dfd, name, &hash, &why);
		if (!hashed && !why)
			return LOOK_CHANGED;
	}
	job->key = dump_key(&job->st, hashed, hash);
	if (!b->opts->again &&
	    triage_stored(dfd, json_name, job->key, &code, &r->unread,
			  &r->reports, &r->violations)) {
		r->state = ROW_DONE;
		r->exit_code = code;
		set_note(r, xasprintf("results of an earlier run: %s",
				      r->json_path));
		return LOOK_DONE;
	}
	if (age_of(&job->st.st_mtim) < b->opts->settle) {
		r->state = ROW_SKIPPED;
		set_note(r, xasprintf("modified %.0f s ago: may still be being "
				      "written; left for the next run",
				      age_of(&job->st.st_mtim)));
		return LOOK_LATER;
	}
	if (refused) {
		job->error = refused;
		say_once(r, refused);
	} else if (!job->st.st_size) {
		job->error = "an empty file (0 bytes): its writer wrote nothing";
	} else if (why) {
		job->error = why;
	}
	if (job->error)
		job->exit_code = RUN_UNREADABLE;
	return LOOK_READ;
}

/* The row of a dump whose results were written (e 0) or not. */
static void record(struct batch *b, struct row *r, const struct dump_job *job,
		   int e, const char *dir, const char *failed, const char *why)
{
	r->state = job->error ? ROW_FAILED : ROW_TRIAGED;
	r->exit_code = job->exit_code;
	r->reports = job->reports;
	r->violations = job->violations;
	if (e) {
		char *path = path_join(dir, failed);

		set_note(r, xasprintf("results not written: %s: %s", path,
				      why ? why : strerror(e)));
		free(path);
		if (why)
			say_once(r, r->note);
		r->state = ROW_FAILED;
		r->exit_code = RUN_UNREADABLE;
		free(r->json_path);
		r->json_path = NULL;
	} else {
		b->written++;
		set_note(r, xasprintf("%s", job->error ? job->error : job->log_source));
	}
}

/*
 * One dump, name in dfd (dir as shown): its results written, or left as
 * they are, or skipped. Returns true when it was left for later (still
 * being written, or changed while it was read).
 */
static bool triage_dump(struct batch *b, int dfd, const char *dir,
			const char *name, bool alone)
{
	char *dump = path_join(dir, name), *json_name, *text_name;
	char *dmesg_name = find_dmesg(dfd, name);
	char *dmesg = dmesg_name ? path_join(dir, dmesg_name) : NULL;
	struct row *r = add_row(b, dump);
	struct dump_job job = { .dump = dump, .dir_fd = dfd, .dump_fd = -1,
				.dmesg = dmesg, .dmesg_name = dmesg_name,
				.reports = -1, .violations = -1 };
	enum look look = LOOK_DONE; /* done in this run's earlier round */
	const char *why, *failed;

	json_name = alone ? xasprintf(RESULT_JSON) : xasprintf("%s." RESULT_JSON, name);
	text_name = alone ? xasprintf(RESULT_TEXT) : xasprintf("%s." RESULT_TEXT, name);
	if (r->state != ROW_TRIAGED && r->state != ROW_FAILED) {
		free(r->json_path);
		r->json_path = path_join(dir, json_name);
		look = look_at(b, r, &job, dfd, name, json_name);
	}
	if (look == LOOK_READ && b->tty) {
		fprintf(stderr, "\rvmcore-inode: triage [%zu] ", b->n);
		text_str(stderr, dump);
		fputs(" ...\033[K", stderr);
	}
	if (look == LOOK_READ && !job.error) {
		triage_job_run(b->opts, &job);
		if (!unchanged(dfd, name, &job.st))
			look = LOOK_CHANGED;
	}
	if (look == LOOK_READ) {
		int e = write_results(&job, dfd, text_name, json_name, &failed, &why);

		record(b, r, &job, e, dir, failed, why);
	} else if (look == LOOK_CHANGED) {
		r->state = ROW_SKIPPED;
		set_note(r, xasprintf("changed while it was read: left for the "
				      "next run"));
	}
	if (b->tty && (look == LOOK_READ || look == LOOK_CHANGED))
		fprintf(stderr, "\r\033[K");
	if (job.dump_fd >= 0)
		close(job.dump_fd);
	triage_job_free(&job);
	free((char *)job.key);
	free(json_name);
	free(text_name);
	free(dmesg);
	free(dmesg_name);
	free(dump);
	return look == LOOK_LATER || look == LOOK_CHANGED;
}

/* --------------------------------------------------------- discovery */

/*
 * A directory or entry that cannot be read: its row, and its error file
 * beside it (NAME.inodedump.json in pfd, parent as shown), rewritten only
 * when it changes.
 */
static void entry_error(struct batch *b, int pfd, const char *parent,
			const char *name, const char *why)
{
	char *path = path_join(parent, name);
	struct row *r = row_failed(b, path, xasprintf("%s", why));
	char *jn = xasprintf("%s." RESULT_JSON, name), *buf = NULL;
	const char *refused;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

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
		if (write_beneath(pfd, jn, buf, len, 0600, &refused)) {
			free(r->json_path);
			r->json_path = NULL;
		}
	}
	free(buf);
	free(jn);
	free(path);
}

/* A symlink below DIR: an entry said once and left, never followed. */
static void not_followed(struct batch *b, int pfd, const char *parent,
			 const char *name)
{
	char *path = path_join(parent, name);
	const char *why = not_regular(S_IFLNK);

	entry_error(b, pfd, parent, name, why);
	say_once(add_row(b, path), why);
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

static size_t scan_dir(struct batch *b, int dfd, const char *dir, bool top);

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in the directory dfd, hidden ones left out, sorted; NULL (and
 * errno) when it cannot be listed. The list ends with NULL.
 */
static char **list_dir(int dfd, size_t *count)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *ent;

	if (!d) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	while ((errno = 0, ent = readdir(d))) {
		/* a hidden name is an entry like any (ours: is_ours()) */
		if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
			continue;
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 16;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = xasprintf("%s", ent->d_name);
	}
	if (errno) {
		int e = errno;

		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		closedir(d);
		errno = e;
		return NULL;
	}
	closedir(d);
	if (!names)
		names = xrealloc(NULL, sizeof(*names));
	qsort(names, n, sizeof(*names), by_name);
	names[n] = NULL;
	*count = n;
	return names;
}

/*
 * A directory of DIR (name in dfd, path as shown): opened without
 * following a symlink, its dumps triaged; returns how many were left for
 * later.
 */
static size_t scan_subdir(struct batch *b, int dfd, const char *p,
			  const char *dir, const char *name)
{
	int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	size_t l;

	if (sub < 0) {
		char *why;

		if (errno == ELOOP || errno == ENOTDIR) { /* swapped meanwhile */
			not_followed(b, dfd, dir, name);
			return 0;
		}
		why = xasprintf("the directory cannot be read: %s", strerror(errno));
		entry_error(b, dfd, dir, name, why);
		free(why);
		return 0;
	}
	l = scan_dir(b, sub, p, false);
	/* A directory being filled: a dump may be on its way. */
	if (!l && !fstat(sub, &st) && age_of(&st.st_mtim) < b->opts->settle &&
	    !has_rows_under(b, p)) {
		struct row *r = add_row(b, p);

		r->state = ROW_SKIPPED;
		set_note(r, xasprintf("modified %.0f s ago and no dump in it yet: "
				      "left for the next run",
				      age_of(&st.st_mtim)));
		l = 1;
	}
	close(sub);
	return l;
}

/*
 * The dumps of one directory (dfd, dir as shown), each triaged; returns
 * how many were left for later. top: DIR itself, whose subdirectories are
 * looked into (one level down: the layouts have no deeper one).
 */
static size_t scan_dir(struct batch *b, int dfd, const char *dir, bool top)
{
	size_t n = 0, dumps = 0, later = 0, incomplete = 0;
	const char *saved = NULL; /* a saved log's name */
	char **names = list_dir(dfd, &n);
	struct stat st;

	if (!names) {
		row_failed(b, dir, xasprintf("the directory cannot be read: %s",
					     strerror(errno)));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		dumps += is_dump_name(names[i]);
		if (!strncmp(names[i], "dmesg.", 6) ||
		    !strcmp(names[i], "vmcore-dmesg.txt"))
			saved = names[i];
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		char *p = path_join(dir, name);

		if (is_dump_name(name)) {
			later += triage_dump(b, dfd, dir, name, dumps == 1);
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
		} else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT) /* gone since listed */
				entry_error(b, dfd, dir, name, strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			not_followed(b, dfd, dir, name);
		} else if (S_ISDIR(st.st_mode)) {
			later += scan_subdir(b, dfd, p, dir, name);
		}
		free(p);
	}
	if (!top && !dumps && !incomplete) {
		bool has_row = false;

		for (size_t k = 0; k < b->n; k++)
			has_row = has_row || !strcmp(b->rows[k].path, dir);
		if (!has_row && !fstat(dfd, &st) &&
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
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return later;
}

/* -------------------------------------------------------- the batch */

static void print_table(const struct batch *b, const char *root)
{
	char **shown;
	size_t w = 4;

	if (!b->n) {
		text_str(stdout, root);
		fputs(": no dump to triage\n", stdout);
		return;
	}
	/* Names are anyone's bytes: the table has them escaped. */
	shown = xrealloc(NULL, b->n * sizeof(*shown));
	for (size_t i = 0; i < b->n; i++) {
		shown[i] = escaped(b->rows[i].path);
		if (strlen(shown[i]) > w)
			w = strlen(shown[i]);
	}
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
		printf("%-15s %4s %7s %10s  %-*s  ", state_names[r->state], ex,
		       rep, vio, (int)w, shown[i]);
		text_str(stdout, r->note);
		putchar('\n');
		free(shown[i]);
	}
	free(shown);
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
 * that can write nothing needs no lock. Only a regular file of ours is
 * the lock: one planted (a symlink, whose target O_CREAT would create; a
 * FIFO; someone else's file) is said and the batch runs without it; its
 * results are still written atomically, a second run only repeats work.
 */
static int take_lock(int dfd, const char *dir)
{
	char *p = path_join(dir, LOCK_NAME);
	struct stat st;
	const char *why = NULL;
	int fd = -1;

	if (!fstatat(dfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW))
		why = not_regular(st.st_mode); /* never opened then */
	if (!why)
		fd = openat(dfd, LOCK_NAME, O_RDONLY | O_CREAT | O_NOFOLLOW |
					    O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
			    0644);
	if (fd < 0 && errno == ELOOP)
		why = not_regular(S_IFLNK);
	if (fd >= 0 && (fstat(fd, &st) || (why = not_regular(st.st_mode)) ||
			(st.st_uid != geteuid() &&
			 (why = "a file someone else owns")))) {
		close(fd);
		fd = -1;
	}
	if (why) {
		fputs("vmcore-inode: ", stderr);
		text_str(stderr, p);
		fprintf(stderr, ": %s: not taken as the lock; this run goes "
				"without it\n", why);
	}
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		fputs("vmcore-inode: another triage holds ", stderr);
		text_str(stderr, p);
		fputs(": waiting for it\n", stderr);
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

/*
 * One dump given: its results beside it, named after it. The path is the
 * caller's: a symlink given is followed to the dump it names, and nothing
 * else is (the saved log and the results beside it).
 */
static void triage_one(struct batch *b, const char *path, int *lock)
{
	struct stat st;
	char *real = !lstat(path, &st) && S_ISLNK(st.st_mode) ? realpath(path, NULL)
							      : NULL;
	char *dir = xasprintf("%s", real ? real : path), *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir, *shown;
	int dfd;

	if (slash)
		*slash = '\0';
	shown = slash ? (*dir ? dir : "/") : ".";
	dfd = open(shown, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		row_failed(b, path, xasprintf("its directory cannot be read: %s",
					      strerror(errno)));
	} else {
		*lock = take_lock(dfd, shown);
		triage_dump(b, dfd, shown, name, false);
		close(dfd);
	}
	free(dir);
	free(real);
}

int triage_run(const char *path, const struct triage_opts *opts)
{
	struct batch b = { .opts = opts, .tty = isatty(STDERR_FILENO) };
	struct timespec start;
	struct stat st;
	int status = RUN_CLEAN, lock = -1, dfd = -1;

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
		triage_one(&b, path, &lock);
	} else if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		/* DIR itself is the caller's: a symlink to it is followed. */
		row_failed(&b, path, xasprintf("the directory cannot be read: %s",
					       strerror(errno)));
	} else {
		lock = take_lock(dfd, path);
		/*
		 * Again while a round wrote something (a dump may have come
		 * while it worked: a .path unit's event then started nothing)
		 * or, with --wait, while a dump is still being written.
		 */
		for (;;) {
			struct timespec now;
			size_t written = b.written, later;

			drop_skipped(&b);
			later = scan_dir(&b, dfd, path, true);

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
	if (dfd >= 0)
		close(dfd);
	for (size_t i = 0; i < b.n; i++) {
		free(b.rows[i].path);
		free(b.rows[i].json_path);
		free(b.rows[i].note);
	}
	free(b.rows);
	return status;
}
