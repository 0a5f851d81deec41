// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A kernel log saved as text — dmesg(1)'s lines, makedumpfile --dump-dmesg
 * (kdump-tools' dmesg.STAMP), vmcore-dmesg (RHEL's vmcore-dmesg.txt) —
 * read into the records inodedump_read_log() gives, so that the reports in
 * it are found the same way. Pure text work: nothing here reads a dump.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "log/log.h"

static void log_freep(struct inodedump_log **log)
{
	inodedump_log_free(*log);
}

/* "[  12.345678]" at *p: the time in nanoseconds; *p moved past it. */
static bool parse_time(const char **p, const char *end, uint64_t *ns)
{
	const char *s = *p + 1;
	uint64_t sec = 0, frac = 0;
	unsigned digits = 0;

	if (*p >= end || **p != '[')
		return false;
	while (s < end && *s == ' ')
		s++;
	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s) && sec < UINT64_MAX / 100)
		sec = sec * 10 + (uint64_t)(*s++ - '0');
	if (s < end && *s == '.') {
		for (s++; s < end && isdigit((unsigned char)*s); s++)
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				digits++;
			}
	}
	if (s >= end || *s != ']')
		return false;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	*p = s + 1;
	return true;
}

/* "[  T123]" or "[    C1]" (CONFIG_PRINTK_CALLER) at *p. */
static bool parse_caller(const char **p, const char *end, uint32_t *caller)
{
	const char *s = *p + 1;
	bool cpu;
	uint32_t v = 0;

	if (*p >= end || **p != '[')
		return false;
	while (s < end && *s == ' ')
		s++;
	if (s >= end || (*s != 'T' && *s != 'C'))
		return false;
	cpu = *s++ == 'C';
	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s) && v < 100000000u)
		v = v * 10 + (uint32_t)(*s++ - '0');
	if (s >= end || *s != ']')
		return false;
	*caller = cpu ? v | 0x80000000u : v;
	*p = s + 1;
	return true;
}

/* One line into a record: "<6>" level, "[time]", "[caller]", then text. */
static struct inodedump_error *add_line(struct inodedump_log *log, size_t *cap,
					const char *s, const char *end)
{
	struct inodedump_record r = { .seq = log->n, .level = 6,
				      .caller_id = INODEDUMP_CALLER_UNKNOWN };
	char *text;

	if (end - s >= 3 && s[0] == '<' && isdigit((unsigned char)s[1])) {
		const char *gt = memchr(s, '>', (size_t)(end - s));

		if (gt && gt - s <= 5) {
			unsigned v = (unsigned)strtoul(s + 1, NULL, 10);

			r.level = (uint8_t)(v & 7);
			r.facility = (uint8_t)((v >> 3) & 0xff);
			s = gt + 1;
		}
	}
	if (parse_time(&s, end, &r.ts_nsec))
		parse_caller(&s, end, &r.caller_id);
	if (s < end && *s == ' ')
		s++;
	if (end > s && end[-1] == '\r')
		end--;
	if (log->n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct inodedump_record *grown =
			realloc(log->recs, c * sizeof(*grown));

		if (!grown)
			return idd_nomem();
		log->recs = grown;
		*cap = c;
	}
	text = malloc((size_t)(end - s) + 1);
	if (!text)
		return idd_nomem();
	memcpy(text, s, (size_t)(end - s));
	text[end - s] = '\0';
	r.text = text;
	r.text_len = (size_t)(end - s);
	log->recs[log->n++] = r;
	return NULL;
}

struct inodedump_error *inodedump_log_from_text(const char *text, size_t len,
						struct inodedump_log **out)
{
	_cleanup_(log_freep) struct inodedump_log *log = calloc(1, sizeof(*log));
	const char *p = text, *end = text + len;
	struct inodedump_error *err;
	size_t cap = 0;

	if (!log)
		return idd_nomem();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		if (e > p && (err = add_line(log, &cap, p, e)))
			return err;
		p = nl ? nl + 1 : end;
	}
	*out = TAKE_PTR(log);
	return NULL;
}
