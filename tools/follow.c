// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcore-inode --live --follow (follow.h): read the kernel log from
 * /dev/kmsg as it grows and decode each dump_inode() report's inode the
 * moment its record is read, while the inode is as close as it can be to
 * what the assertion saw; write it with the report once the splat after it
 * is in (or no record comes for a moment), and flush.
 *
 * /dev/kmsg hands out one record per read(2): "PRI,SEQ,USEC,FLAGS[,...];"
 * then the text with bytes outside printable ASCII as \xNN, then lines of
 * " KEY=VALUE" (ignored here). A reader the log overran gets EPIPE once,
 * then the oldest record still there: the gap in sequence numbers is what
 * was lost. The report lines and their splats are parsed by the library
 * (inodedump_find_reports_in()), as in a dump's log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "follow.h"

/* A report's splat is looked for in the records after it, as in a dump. */
#define SPLAT_RECORDS 40
#define SPLAT_WAIT_MS 50
/* A record is at most ~1 KiB of text, escaped at most 4 times as long. */
#define RECORD_MAX 8192
#define READ_BUF (8 * RECORD_MAX)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void say(const struct run_out *o, const char *message)
{
	if (o->on_error)
		o->on_error(message, o->arg);
}

int follow_open_kmsg(const char *path, bool from_start,
		     const struct run_out *o)
{
	char message[512];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(message, sizeof(message),
			 "cannot open %s: %s: --follow reads the kernel log "
			 "there (root, or kernel.dmesg_restrict=0)", path,
			 strerror(errno));
		say(o, message);
		return -1;
	}
	/* /dev/kmsg: SEEK_END is "the next record", SEEK_SET the oldest. */
	if (lseek(fd, 0, from_start ? SEEK_SET : SEEK_END) < 0 &&
	    errno != ESPIPE) {
		snprintf(message, sizeof(message), "cannot seek %s: %s", path,
			 strerror(errno));
		say(o, message);
		close(fd);
		return -1;
	}
	return fd;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "caller=T123" (a task) or "caller=C1" (a CPU: bit 31 set). */
static void parse_caller(const char *s, const char *end, uint32_t *caller)
{
	uint32_t v = 0;
	bool cpu;
	const char *p;

	if (end - s < 9 || memcmp(s, "caller=", 7) || (s[7] != 'T' && s[7] != 'C'))
		return;
	cpu = s[7] == 'C';
	for (p = s + 8; p < end && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint32_t)(*p - '0');
	if (p == s + 8 || p != end)
		return;
	*caller = cpu ? v | 0x80000000u : v;
}

bool follow_parse_record(const char *line, size_t len,
			 struct inodedump_record *rec, char *text, size_t cap)
{
	const char *end = line + len, *semi = memchr(line, ';', len), *p;
	unsigned long long field[3];
	size_t n = 0;

	if (!semi || !cap)
		return false;
	memset(rec, 0, sizeof(*rec));
	rec->caller_id = INODEDUMP_CALLER_UNKNOWN; /* unless ",caller=" says */
	p = line;
	for (int i = 0; i < 3; i++) { /* PRI, SEQ, USEC: decimal, comma-ended */
		const char *d = p;

		field[i] = 0;
		while (p < semi && *p >= '0' && *p <= '9' &&
		       field[i] < UINT64_MAX / 10)
			field[i] = field[i] * 10 + (unsigned long long)(*p++ - '0');
		if (p == d || p >= semi || *p != ',')
			return false;
		p++;
	}
	if (p >= semi || (*p != '-' && *p != 'c'))
		return false;
	rec->continuation = *p == 'c';
	for (p++; p < semi;) { /* ",caller=T123", other fields skipped */
		const char *e;

		if (*p != ',')
			return false;
		e = memchr(p + 1, ',', (size_t)(semi - p - 1));
		if (!e)
			e = semi;
		parse_caller(p + 1, e, &rec->caller_id);
		p = e;
	}
	rec->level = (uint8_t)(field[0] & 7);
	rec->facility = (uint8_t)((field[0] >> 3) & 0xff);
	rec->seq = field[1];
	rec->ts_nsec = field[2] * 1000;
	for (p = semi + 1; p < end && n + 1 < cap; p++) {
		int hi, lo;

		if (*p == '\\' && end - p >= 4 && p[1] == 'x' &&
		    (hi = hexval(p[2])) >= 0 && (lo = hexval(p[3])) >= 0) {
			text[n++] = (char)(hi * 16 + lo);
			p += 3;
		} else {
			text[n++] = *p;
		}
	}
	text[n] = '\0';
	rec->text = text;
	rec->text_len = n;
	return true;
}

/* ---- the run ---- */

struct follow {
	const struct follow_opts *fo;
	int status;
	size_t said_notes;
	/* The last record's sequence number (have_seq: one was read). */
	uint64_t last_seq;
	bool have_seq;
	bool overran;		 /* EPIPE: the next record says how much */
	uint64_t lost;		 /* records lost, in all */
	size_t records, reports; /* read, and reports written */
	/*
	 * The report waiting for its splat: its record and those after it
	 * (texts owned), and what its inode decoded to when it came.
	 */
	struct inodedump_record window[SPLAT_RECORDS];
	size_t nwindow;
	struct inodedump_inode *inode;
	struct inodedump_error *err;
	struct timespec last_record; /* when the last record came */
};

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/*
 * INODEDUMP_FOLLOW_TIMES set: how long forgetting and decoding took, a
 * line on stderr a report (bench/: where a report's latency goes).
 */
static struct inodedump_error *default_decode(void *arg, uint64_t address,
					      struct inodedump_inode **out)
{
	const struct follow_opts *fo = arg;
	struct timespec t0, t1, t2;
	struct inodedump_error *err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = inodedump_forget(fo->id);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* A reader that kept its pages still decodes; the note says so. */
	if (err) {
		if (fo->o->on_error)
			fo->o->on_error(inodedump_error_message(err),
					fo->o->arg);
		inodedump_error_free(err);
	}
	err = inodedump_decode(fo->id, address,
			       fo->flags | INODEDUMP_DECODE_FORCE, out);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (getenv("INODEDUMP_FOLLOW_TIMES"))
		fprintf(stderr, "vmcore-inode: inode 0x%" PRIx64 ": forget %.3f "
				"ms, decode %.3f ms\n", address,
			ms_between(&t0, &t1), ms_between(&t1, &t2));
	return err;
}

/* What the session could not trust, said as it is found (run.c's way). */
static void say_notes(struct follow *f)
{
	const char *note;

	if (!f->fo->id)
		return;
	for (; (note = inodedump_note(f->fo->id, f->said_notes));
	     f->said_notes++) {
		say(f->fo->o, note);
		if (!inodedump_note_informs(f->fo->id, f->said_notes))
			run_worse(&f->status, RUN_PARTIAL);
	}
}

static void drop_window(struct follow *f)
{
	for (size_t i = 0; i < f->nwindow; i++)
		free((char *)f->window[i].text);
	f->nwindow = 0;
	inodedump_inode_free(f->inode);
	f->inode = NULL;
	inodedump_error_free(f->err);
	f->err = NULL;
}

/* The pending report as the library parses its window, or false. */
static bool pending_report(const struct follow *f,
			   struct inodedump_report *rep)
{
	struct inodedump_report *reps = NULL;
	size_t n = 0;
	struct inodedump_error *err =
		inodedump_find_reports_in(f->window, f->nwindow, &reps, &n);

	if (err || !n) {
		inodedump_error_free(err);
		free(reps);
		/* out of memory: the first record alone, no splat */
		return f->nwindow && inodedump_parse_report(f->window[0].text,
							    f->window[0].text_len,
							    rep);
	}
	*rep = reps[0];
	free(reps);
	return true;
}

/* Write the pending report with its inode, count its status, flush. */
static void emit(struct follow *f)
{
	const struct run_out *o = f->fo->o;
	struct inodedump_report rep;
	char message[512];

	if (!f->nwindow)
		return;
	if (pending_report(f, &rep)) {
		rep.seq = f->window[0].seq;
		rep.ts_nsec = f->window[0].ts_nsec;
		rep.caller_id = f->window[0].caller_id;
		inodedump_report_print(&rep, f->inode, f->err, f->fo->format,
				       o->out);
		fflush(o->out);
		f->reports++;
		if (f->err) {
			snprintf(message, sizeof(message),
				 "report seq %" PRIu64 ": inode 0x%" PRIx64
				 ": %s", rep.seq, rep.address,
				 inodedump_error_message(f->err));
			say(o, message);
			run_worse(&f->status,
				  inodedump_error_code(f->err) ==
						  INODEDUMP_ERR_USAGE
					  ? RUN_USAGE
					  : RUN_UNREADABLE);
		} else if (f->inode) {
			unsigned int inc = inodedump_inode_incomplete(f->inode);

			if (inodedump_inode_violations(f->inode))
				run_worse(&f->status, RUN_VIOLATION);
			if (inc) {
				snprintf(message, sizeof(message),
					 "inode 0x%" PRIx64 ": not read in "
					 "full", rep.address);
				say(o, message);
				run_worse(&f->status, RUN_PARTIAL);
			}
		}
	}
	drop_window(f);
}

/* The splat is in when its WARNING/BUG line, function and task are. */
static bool splat_complete(const struct follow *f)
{
	struct inodedump_report rep;

	if (f->nwindow >= SPLAT_RECORDS)
		return true;
	return pending_report(f, &rep) && rep.location[0] &&
	       rep.site_function[0] && rep.task[0];
}

static bool keep(struct follow *f, const struct inodedump_record *rec)
{
	struct inodedump_record *w = &f->window[f->nwindow];
	char *text = malloc(rec->text_len + 1);

	if (!text)
		return false;
	memcpy(text, rec->text, rec->text_len + 1);
	*w = *rec;
	w->text = text;
	f->nwindow++;
	return true;
}

static void lost_records(struct follow *f, uint64_t from, uint64_t to)
{
	char message[256];
	uint64_t n = to - from + 1;

	f->lost += n;
	if (n == 1)
		snprintf(message, sizeof(message),
			 "1 kernel log record lost (seq %" PRIu64 "): the log "
			 "overran before it was read; a report in it was not "
			 "decoded", from);
	else
		snprintf(message, sizeof(message),
			 "%" PRIu64 " kernel log records lost (seq %" PRIu64
			 " to %" PRIu64 "): the log overran before they were "
			 "read; a report among them was not decoded", n, from,
			 to);
	say(f->fo->o, message);
	run_worse(&f->status, RUN_PARTIAL);
}

static void record(struct follow *f, const struct inodedump_record *rec)
{
	struct inodedump_report rep;

	f->records++;
	clock_gettime(CLOCK_MONOTONIC, &f->last_record);
	if (f->have_seq && rec->seq > f->last_seq + 1)
		lost_records(f, f->last_seq + 1, rec->seq - 1);
	else if (f->overran && f->have_seq && rec->seq <= f->last_seq)
		say(f->fo->o, "the kernel log overran and went back: how many "
			      "records were lost is not known");
	f->overran = false;
	f->last_seq = rec->seq;
	f->have_seq = true;
	if (inodedump_parse_report(rec->text, rec->text_len, &rep)) {
		emit(f);
		/* Decoded now: the inode as near as can be to the report. */
		if (!keep(f, rec)) {
			say(f->fo->o, "out of memory");
			run_worse(&f->status, RUN_UNREADABLE);
			return;
		}
		f->err = f->fo->decode
				 ? f->fo->decode(f->fo->decode_arg, rep.address,
						 &f->inode)
				 : default_decode((void *)f->fo, rep.address,
						  &f->inode);
		if (f->err)
			f->inode = NULL;
		say_notes(f);
		/* the splat's wait starts now: it came while we decoded */
		clock_gettime(CLOCK_MONOTONIC, &f->last_record);
	} else if (f->nwindow && !keep(f, rec)) {
		emit(f);
	}
	if (f->nwindow && splat_complete(f))
		emit(f);
}

/* The complete lines in buf[0, *have): records handled, the rest kept. */
static void lines(struct follow *f, char *buf, size_t *have)
{
	static char text[RECORD_MAX];
	char *p = buf, *end = buf + *have, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		struct inodedump_record rec;

		/* " KEY=VALUE" lines belong to the record before. */
		if (*p != ' ' &&
		    follow_parse_record(p, (size_t)(nl - p), &rec, text,
					sizeof(text)))
			record(f, &rec);
		p = nl + 1;
	}
	*have = (size_t)(end - p);
	memmove(buf, p, *have);
}

static int ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int)((now.tv_sec - t->tv_sec) * 1000 +
		     (now.tv_nsec - t->tv_nsec) / 1000000);
}

/* One read(2): false when the log ended or cannot be read on. */
static bool read_some(struct follow *f, char *buf, size_t *have)
{
	const struct run_out *o = f->fo->o;
	char message[256];
	ssize_t n;

	if (*have > READ_BUF - RECORD_MAX) { /* a line longer than any record */
		say(o, "a kernel log line too long to be a record: skipped");
		*have = 0;
	}
	n = read(f->fo->fd, buf + *have, READ_BUF - *have);
	if (n > 0) {
		*have += (size_t)n;
		lines(f, buf, have);
		return true;
	}
	if (n == 0)
		return !f->fo->stop_at_eof;
	if (errno == EAGAIN || errno == EINTR)
		return true;
	if (errno == EPIPE) { /* overrun: the next record tells how much */
		f->overran = true;
		return true;
	}
	snprintf(message, sizeof(message), "reading the kernel log: %s",
		 strerror(errno));
	say(o, message);
	run_worse(&f->status, RUN_PARTIAL);
	return false;
}

int follow_run(const struct follow_opts *fo)
{
	struct follow f = { .fo = fo, .status = RUN_CLEAN };
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigset_t block, old_mask, wait_mask;
	int wait_ms = fo->splat_wait_ms > 0 ? fo->splat_wait_ms : SPLAT_WAIT_MS;
	char *buf = malloc(READ_BUF), message[256];
	size_t have = 0;
	int flags;

	if (!buf) {
		say(fo->o, "out of memory");
		return RUN_UNREADABLE;
	}
	/*
	 * The signals stay blocked but in ppoll(2): one that comes while a
	 * report is decoded or written ends the run after it, not inside it.
	 */
	stop_signal = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	flags = fcntl(fo->fd, F_GETFL);
	if (flags >= 0)
		fcntl(fo->fd, F_SETFL, flags | O_NONBLOCK);

	say_notes(&f);
	fprintf(stderr, "vmcore-inode: following the kernel log (%s)\n",
		fo->format == INODEDUMP_FORMAT_JSON ? "JSON Lines" : "text");
	fflush(stderr);
	while (!stop_signal) {
		struct pollfd p = { .fd = fo->fd, .events = POLLIN };
		struct timespec ts, *tsp = NULL;
		int r;

		if (f.nwindow) {
			int left = wait_ms - ms_since(&f.last_record);

			/* at 0: what is there already is read first */
			if (left < 0)
				left = 0;
			ts.tv_sec = left / 1000;
			ts.tv_nsec = (long)(left % 1000) * 1000000;
			tsp = &ts;
		}
		r = ppoll(&p, 1, tsp, &wait_mask);
		if (r < 0 && errno != EINTR) {
			snprintf(message, sizeof(message),
				 "waiting for the kernel log: %s",
				 strerror(errno));
			say(fo->o, message);
			run_worse(&f.status, RUN_PARTIAL);
			break;
		}
		if (r == 0 && f.nwindow) /* no record came: the splat is in */
			emit(&f);
		if (r <= 0)
			continue;
		if (!read_some(&f, buf, &have))
			break;
	}
	emit(&f);
	if (f.overran)
		say(fo->o, "the kernel log overran the reader at the end: how "
			   "many records were lost is not known");
	if (stop_signal) {
		snprintf(message, sizeof(message),
			 "stopped by %s: %zu report%s, %zu record%s read, %"
			 PRIu64 " lost", stop_signal == SIGINT ? "SIGINT"
							       : "SIGTERM",
			 f.reports, f.reports == 1 ? "" : "s", f.records,
			 f.records == 1 ? "" : "s", f.lost);
		say(fo->o, message);
	}
	fflush(fo->o->out);
	/* one still pending reaches our handler, then the old ones return */
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	free(buf);
	return f.status;
}

int follow_live(struct inodedump *id, bool from_start, unsigned int flags,
		enum inodedump_format format, const struct run_out *o)
{
	struct follow_opts fo = { .format = format, .flags = flags, .id = id,
				  .o = o };
	struct inodedump_error *err;
	int status;

	/* the types every decode needs, looked up before the first report */
	err = inodedump_prepare(id);
	if (err)
		return run_error(o, err);
	fo.fd = follow_open_kmsg("/dev/kmsg", from_start, o);
	if (fo.fd < 0)
		return RUN_UNREADABLE;
	/* Each report's line is whole when written: a pipe's reader sees it. */
	setvbuf(o->out, NULL, _IOFBF, 1u << 16);
	status = follow_run(&fo);
	close(fo.fd);
	return status;
}
