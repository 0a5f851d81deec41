// SPDX-License-Identifier: LGPL-2.1-or-later
/* output: the one JSON writer (json.h says the layout and the escaping). */
#include <string.h>

#include "output/json.h"

/*
 * A sweep writes ~60 small pieces per inode: the per-call locking of
 * stdio cost more than the decode, so the callers lock once.
 */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

void idd_json_write_string(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[6] = { '\\', 'u', '0', '0', 0, 0 };

	fputc('"', out);
	for (;; p++) {
		unsigned c = *p;

		/* Runs of plain characters go out in one write. */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			continue;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), out);
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc((int)c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else {
			/* Bytes from memory are not UTF-8: keep them exact. */
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			fwrite(esc, 1, sizeof(esc), out);
		}
		run = p + 1;
	}
	fputc('"', out);
}

void idd_json_init(struct idd_json *j, FILE *out, bool compact, unsigned level)
{
	*j = (struct idd_json){ .out = out, .compact = compact, .level = level };
}

static void newline(struct idd_json *j, unsigned level)
{
	static const char spaces[] = "                                ";

	fputc('\n', j->out);
	for (unsigned n = 2 * level; n;) {
		unsigned k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		fwrite(spaces, 1, k, j->out);
		n -= k;
	}
}

static unsigned slot(unsigned depth);

/* What goes before an item of the innermost container: ", " or a line. */
static void separate(struct idd_json *j)
{
	unsigned top;

	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->depth)
		return;
	top = slot(j->depth - 1);
	if (j->open[top].layout == IDD_JSON_INLINE) {
		if (!j->open[top].first)
			fputs(", ", j->out);
	} else {
		if (!j->open[top].first)
			fputc(',', j->out);
		newline(j, j->level);
	}
	j->open[top].first = false;
}

static unsigned slot(unsigned depth)
{
	return depth < IDD_JSON_MAX_DEPTH ? depth : IDD_JSON_MAX_DEPTH - 1;
}

static void begin(struct idd_json *j, enum idd_json_layout layout, char c)
{
	unsigned s = slot(j->depth);

	separate(j);
	fputc(c, j->out);
	if (j->compact)
		layout = IDD_JSON_INLINE;
	j->open[s].layout = (unsigned char)layout;
	j->open[s].first = true;
	j->open[s].close = c == '{' ? '}' : ']';
	j->depth++;
	if (layout == IDD_JSON_LINES)
		j->level++;
}

void idd_json_object(struct idd_json *j, enum idd_json_layout layout)
{
	begin(j, layout, '{');
}

void idd_json_array(struct idd_json *j, enum idd_json_layout layout)
{
	begin(j, layout, '[');
}

/* A LINES or FLAT container closes on a line of its own, even empty. */
void idd_json_end(struct idd_json *j)
{
	unsigned s;

	if (!j->depth)
		return;
	s = slot(--j->depth);
	if (j->open[s].layout == IDD_JSON_LINES)
		j->level--;
	if (j->open[s].layout != IDD_JSON_INLINE)
		newline(j, j->level);
	fputc(j->open[s].close, j->out);
}

void idd_json_key(struct idd_json *j, const char *key)
{
	unsigned top = j->depth ? slot(j->depth - 1) : 0;
	size_t len = strlen(key);
	char buf[128];

	/*
	 * Keys are the library's identifiers (json.h), written as they are.
	 * Inside a one-line object (every JSON Lines record: some 60 keys an
	 * inode in a sweep) the key and its separator go out in one write.
	 */
	if (!j->after_key && j->depth && len + 6 <= sizeof(buf) &&
	    j->open[top].layout == IDD_JSON_INLINE) {
		size_t n = 0;

		if (!j->open[top].first) {
			buf[n++] = ',';
			buf[n++] = ' ';
		}
		buf[n++] = '"';
		memcpy(buf + n, key, len);
		memcpy(buf + n + len, "\": ", 3);
		fwrite(buf, 1, n + len + 3, j->out);
		j->open[top].first = false;
		j->after_key = true;
		return;
	}
	separate(j);
	fputc('"', j->out);
	fwrite(key, 1, len, j->out);
	fputs("\": ", j->out);
	j->after_key = true;
}

void idd_json_string(struct idd_json *j, const char *s)
{
	if (!s) {
		idd_json_null(j);
		return;
	}
	separate(j);
	idd_json_write_string(j->out, s);
}

/* Decimal without printf's machinery (the sweep's hot path). */
static void put_u64(FILE *out, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

void idd_json_u64(struct idd_json *j, uint64_t v)
{
	separate(j);
	put_u64(j->out, v);
}

void idd_json_i64(struct idd_json *j, int64_t v)
{
	separate(j);
	if (v < 0) {
		fputc('-', j->out);
		put_u64(j->out, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(j->out, (uint64_t)v);
	}
}

void idd_json_bool(struct idd_json *j, bool v)
{
	separate(j);
	fputs(v ? "true" : "false", j->out);
}

void idd_json_null(struct idd_json *j)
{
	separate(j);
	fputs("null", j->out);
}

void idd_json_hex(struct idd_json *j, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	separate(j);
	*--p = '"';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), j->out);
}
