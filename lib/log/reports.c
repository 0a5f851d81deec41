// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reports: the lines dump_inode() writes when a VFS assertion fails, in
 * each kernel's format, and the WARNING/BUG splat that follows each in the
 * log. Pure text work: nothing here reads the dump.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "log/log.h"

/* A %px value: hex digits only, ended by the end of the line or a space. */
static bool parse_px(const char *s, const char *end, uint64_t *out,
		     const char **after)
{
	const char *p = s;
	uint64_t v = 0;

	if (p + 2 <= end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	s = p;
	while (p < end && isxdigit((unsigned char)*p) && p - s < 16) {
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*p)
						? *p - '0'
						: (tolower((unsigned char)*p) - 'a' + 10));
		p++;
	}
	if (p == s || (p < end && !isspace((unsigned char)*p)))
		return false;
	*out = v;
	*after = p;
	return true;
}

static bool copy_reason(char *dst, size_t dstlen, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	if (!len)
		return false;
	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return true;
}

/*
 * The fields dump_inode() prints after the address: fs_label, the
 * filesystem's name up to " mode" (the kernel prints "<unknown, sb
 * unreadable>" when it cannot read it, spaces and all), then the numbers
 * by numbers_fmt (mode, opflags, flags, state, count).
 */
static bool parse_fields(const char *s, const char *fs_label,
			 const char *numbers_fmt,
			 struct inodedump_report_fields *out)
{
	struct inodedump_report_fields f = { 0 };
	size_t label_len = strlen(fs_label);
	const char *fs, *fs_end;
	int n = 0;

	if (strncmp(s, fs_label, label_len))
		return false;
	for (fs = s + label_len; isspace((unsigned char)*fs); fs++)
		;
	fs_end = strstr(fs, " mode");
	if (!fs_end)
		return false;
	while (fs_end > fs && isspace((unsigned char)fs_end[-1]))
		fs_end--;
	if (fs_end == fs || (size_t)(fs_end - fs) >= sizeof(f.fs_type))
		return false;
	memcpy(f.fs_type, fs, (size_t)(fs_end - fs));
	if (sscanf(fs_end, numbers_fmt, &f.mode, &f.opflags, &f.flags, &f.state,
		   &f.count, &n) != 5 || !n)
		return false;
	*out = f;
	return true;
}

/* "fs tmpfs mode 100644 opflags 0xc flags 0x0 state 0x0 count 1" (6.18) */
static bool parse_6_18_fields(const char *line, struct inodedump_report *out)
{
	if (!parse_fields(line, "fs ", " mode %o opflags 0x%x flags 0x%x "
			  "state 0x%x count %d%n", &out->fields))
		return false;
	out->has_fields = true;
	return true;
}

/*
 * 7.0 and later: "<reason>: inode:<%px> fs:<name> mode:... count:<n>" or
 * "<reason>: unreadable inode:<%px>".
 */
static bool parse_7_0(const char *text, const char *end,
		       struct inodedump_report *out)
{
	static const char unreadable[] = ": unreadable inode:";
	static const char readable[] = ": inode:";
	const char *p, *after;
	char line[512];
	size_t len = (size_t)(end - text);

	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, text, len);
	line[len] = '\0';
	if ((p = strstr(line, unreadable))) {
		if (!copy_reason(out->reason, sizeof(out->reason), line,
				 (size_t)(p - line)) ||
		    !parse_px(p + strlen(unreadable), line + len, &out->address,
			      &after))
			return false;
		out->unreadable = true;
	} else if ((p = strstr(line, readable))) {
		if (!copy_reason(out->reason, sizeof(out->reason), line,
				 (size_t)(p - line)) ||
		    !parse_px(p + strlen(readable), line + len, &out->address,
			      &after))
			return false;
		while (isspace((unsigned char)*after))
			after++;
		if (!parse_fields(after, "fs:", " mode:%o opflags:%x flags:%x "
				  "state:%x count:%d%n", &out->fields))
			return false;
		out->has_fields = true;
	} else {
		return false;
	}
	out->format = INODEDUMP_REPORT_7_0;
	return true;
}

bool inodedump_parse_report(const char *text, size_t len,
			    struct inodedump_report *out)
{
	static const char marker[] = " encountered for inode ";
	const char *end = text + len, *nl, *p, *after;
	struct inodedump_report r = { 0 };

	/* The first line; a NUL (corrupt memory) ends it too. */
	nl = memchr(text, '\n', len);
	if (!nl)
		nl = end;
	{
		const char *nul = memchr(text, '\0', (size_t)(nl - text));

		if (nul)
			nl = end = nul;
	}
	/* The marker must be on the first line of the record. */
	for (p = text; p + sizeof(marker) - 1 <= nl; p++)
		if (!memcmp(p, marker, sizeof(marker) - 1))
			break;
	if (p + sizeof(marker) - 1 > nl) {
		if (!parse_7_0(text, nl, &r))
			return false;
		*out = r;
		return true;
	}
	if (!copy_reason(r.reason, sizeof(r.reason), text, (size_t)(p - text)) ||
	    !parse_px(p + sizeof(marker) - 1, nl, &r.address, &after))
		return false;
	r.format = INODEDUMP_REPORT_6_15;
	if (nl < end) {
		char line[256];
		size_t l = (size_t)(end - nl - 1);

		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, nl + 1, l);
		line[l] = '\0';
		if (parse_6_18_fields(line, &r))
			r.format = INODEDUMP_REPORT_6_18;
	}
	*out = r;
	return true;
}

static bool starts_with(const struct inodedump_record *r, const char *prefix)
{
	size_t n = strlen(prefix);

	return r->text_len >= n && !memcmp(r->text, prefix, n);
}

static void copy_line(char *dst, size_t dstlen, const char *s, size_t len)
{
	const char *nl = memchr(s, '\n', len);

	if (nl)
		len = (size_t)(nl - s);
	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Copy [s, e) into dst (dstlen bytes, NUL-ended, cut to fit). */
static void copy_span(char *dst, size_t dstlen, const char *s, const char *e)
{
	size_t len = (size_t)(e - s);

	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* "fs/namei.c:4266" in [s, e): the file and line of a site. */
static bool parse_file_line(const char *s, const char *e,
			    struct inodedump_report *rep)
{
	const char *colon = NULL;
	unsigned long line = 0;

	for (const char *p = s; p < e; p++)
		if (*p == ':')
			colon = p;
	if (!colon || colon == s || colon + 1 == e)
		return false;
	for (const char *p = colon + 1; p < e; p++) {
		if (!isdigit((unsigned char)*p) || line > 1000000)
			return false;
		line = line * 10 + (unsigned long)(*p - '0');
	}
	for (const char *p = s; p < colon; p++)
		if (isspace((unsigned char)*p))
			return false;
	copy_span(rep->site_file, sizeof(rep->site_file), s, colon);
	rep->site_line = (unsigned int)line;
	return true;
}

/* "%pS" at s: the symbol up to its "+0x" offset ("may_open+0x1b/0x40"). */
static void parse_function(const char *s, struct inodedump_report *rep)
{
	const char *e = s;

	while (*e && *e != '+' && *e != ',' && !isspace((unsigned char)*e))
		e++;
	/* A bare address (user-mode RIP, no symbol) names no function. */
	if (e == s || *e != '+' || !strncmp(s, "0x", 2))
		return;
	copy_span(rep->site_function, sizeof(rep->site_function), s, e);
}

/*
 * The site in rep->location, a line of one of the forms
 *   WARNING: CPU: 1 PID: 65 at include/linux/fs.h:791 func+0x70/0x100 [mod]
 *   WARNING: CPU: 1 PID: 65 at func+0x70/0x100 [mod]        (before 7.0)
 *   WARNING: include/linux/fs.h:951 at func+0x70/0x100 [mod], CPU#0: insmod/65
 *   WARNING: at func+0x70/0x100, CPU#0: insmod/65           (7.0 and later)
 *   kernel BUG at fs/namei.c:4266!
 */
static void parse_site(struct inodedump_report *rep)
{
	const char *s = rep->location, *at, *sp;

	if (!strncmp(s, "kernel BUG at ", 14)) {
		s += 14;
		sp = strchr(s, '!');
		parse_file_line(s, sp ? sp : s + strlen(s), rep);
		return;
	}
	s += strlen("WARNING: ");
	if (!strncmp(s, "CPU: ", 5)) {
		at = strstr(s, " at ");
		if (!at)
			return;
		s = at + 4;
		sp = strchr(s, ' ');
		if (sp && parse_file_line(s, sp, rep))
			s = sp + 1;
		parse_function(s, rep);
		return;
	}
	if (!strncmp(s, "at ", 3)) {
		parse_function(s + 3, rep);
		return;
	}
	at = strstr(s, " at ");
	if (at && parse_file_line(s, at, rep))
		parse_function(at + 4, rep);
}

/*
 * The WARNING/BUG line, its site, and the task named in the splat after a
 * report; for a BUG, whose line names no function, the program counter's
 * line: x86-64's "RIP: 0010:may_open+0x1b3/0x1c0", arm64's
 * "pc : may_open+0x2c4/0x2d0" (a user-mode pc is a bare address there,
 * "pc : 0000ffff9c3e1a2c", and names no function).
 */
static void find_splat(const struct inodedump_record *recs, size_t nrecs,
		       size_t i, struct inodedump_report *rep)
{
	size_t limit = i + IDD_SPLAT_RECORDS < nrecs ? i + IDD_SPLAT_RECORDS
						     : nrecs;

	for (size_t j = i + 1; j < limit; j++) {
		const struct inodedump_record *r = &recs[j];
		struct inodedump_report other;

		/* The next report's splat is not ours. */
		if (inodedump_parse_report(r->text, r->text_len, &other))
			return;
		if (!rep->location[0]) {
			if (starts_with(r, "WARNING: ") ||
			    starts_with(r, "kernel BUG at ")) {
				copy_line(rep->location, sizeof(rep->location),
					  r->text, r->text_len);
				parse_site(rep);
			}
			continue;
		}
		if (!rep->task[0] && starts_with(r, "CPU: ")) {
			const char *comm = memmem(r->text, r->text_len, " Comm: ", 7);
			const char *s = comm ? comm + 7 : NULL;
			size_t k = 0;

			while (s && s + k < r->text + r->text_len &&
			       !isspace((unsigned char)s[k]) &&
			       k < sizeof(rep->task) - 1)
				k++;
			memcpy(rep->task, s ? s : "", k);
			rep->task[k] = '\0';
		} else if (!rep->site_function[0] && starts_with(r, "RIP: ")) {
			char line[160];
			const char *colon;

			copy_line(line, sizeof(line), r->text, r->text_len);
			colon = strchr(line + 5, ':');
			if (colon)
				parse_function(colon + 1, rep);
		} else if (!rep->site_function[0] && starts_with(r, "pc : ")) {
			char line[160];

			copy_line(line, sizeof(line), r->text, r->text_len);
			parse_function(line + 5, rep);
		}
		if (rep->task[0] && rep->site_function[0])
			return;
	}
}

struct inodedump_error *
inodedump_find_reports_in(const struct inodedump_record *recs, size_t nrecs,
			  struct inodedump_report **reports, size_t *count)
{
	_cleanup_free_ struct inodedump_report *reps = NULL;
	size_t n = 0, cap = 0;

	*reports = NULL;
	*count = 0;
	for (size_t i = 0; i < nrecs; i++) {
		const struct inodedump_record *r = &recs[i];
		struct inodedump_report rep;

		if (!inodedump_parse_report(r->text, r->text_len, &rep))
			continue;
		/* 6.18 fields printed as a record of their own. */
		if (rep.format == INODEDUMP_REPORT_6_15 && i + 1 < nrecs) {
			const struct inodedump_record *next = &recs[i + 1];
			char line[256];

			copy_line(line, sizeof(line), next->text, next->text_len);
			if (parse_6_18_fields(line, &rep))
				rep.format = INODEDUMP_REPORT_6_18;
		}
		rep.seq = r->seq;
		rep.ts_nsec = r->ts_nsec;
		rep.caller_id = r->caller_id;
		find_splat(recs, nrecs, i, &rep);
		/* 7.x records name their task themselves. */
		if (!rep.task[0] && r->has_execution_ctx)
			snprintf(rep.task, sizeof(rep.task), "%s", r->comm);
		if (n == cap) {
			size_t grown_cap = cap ? 2 * cap : 8;
			struct inodedump_report *grown =
				realloc(reps, grown_cap * sizeof(*reps));

			if (!grown)
				return idd_nomem();
			reps = grown;
			cap = grown_cap;
		}
		reps[n++] = rep;
	}
	*reports = TAKE_PTR(reps);
	*count = n;
	return NULL;
}

struct inodedump_error *inodedump_find_reports(const struct inodedump_log *log,
					       struct inodedump_report **reports,
					       size_t *count)
{
	return inodedump_find_reports_in(log->recs, log->n, reports, count);
}
