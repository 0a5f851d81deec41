// SPDX-License-Identifier: LGPL-2.1-or-later
/* output: the one JSON writer (json.h says the layout and the escaping). */
#include <string.h>

#include "inodedump.h"
#include "output/json.h"

/*
 * A sweep writes ~60 small pieces per inode: the per-call locking of
 * stdio cost more than the decode, so the callers lock once.
 */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

void idd_json_flush(struct idd_json *j)
{
	if (j->n)
		fwrite(j->buf, 1, j->n, j->out);
	j->n = 0;
}

/* The one way out: into the buffer, or to the stream when unbuffered. */
static inline void put(struct idd_json *j, const void *p, size_t len)
{
	if (j->buffered && len <= 16 && sizeof(j->buf) - j->n >= 16) {
		/* the common short piece: no call to memcpy */
		const char *from = p;
		char *to = j->buf + j->n;

		for (size_t i = 0; i < len; i++)
			to[i] = from[i];
		j->n += len;
		return;
	}
	if (!j->buffered) {
		fwrite(p, 1, len, j->out);
		return;
	}
	if (len > sizeof(j->buf) - j->n) {
		idd_json_flush(j);
		if (len > sizeof(j->buf)) {
			fwrite(p, 1, len, j->out);
			return;
		}
	}
	memcpy(j->buf + j->n, p, len);
	j->n += len;
}

static inline void put_c(struct idd_json *j, char c)
{
	if (!j->buffered) {
		fputc(c, j->out);
		return;
	}
	if (j->n == sizeof(j->buf))
		idd_json_flush(j);
	j->buf[j->n++] = c;
}

/*
 * Bytes that go out as they are: printable ASCII but '"' and '\\'. A
 * table: the test runs once per byte of every string a sweep writes.
 */
static const unsigned char plain_byte[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x80 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x90 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xa0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xb0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xc0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xd0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xe0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xf0 */
};

static void write_string(struct idd_json *j, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[6] = { '\\', 'u', '0', '0', 0, 0 };

	put_c(j, '"');
	for (;; p++) {
		unsigned c;

		/*
		 * Runs of plain characters go out in one write. Four bytes a
		 * step; each is read only if the one before it was plain (so
		 * not the NUL): never past the string.
		 */
		while (plain_byte[p[0]] && plain_byte[p[1]] &&
		       plain_byte[p[2]] && plain_byte[p[3]])
			p += 4;
		while (plain_byte[*p])
			p++;
		c = *p;
		if (p > run)
			put(j, run, (size_t)(p - run));
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			put_c(j, '\\');
			put_c(j, (char)c);
		} else if (c == '\n') {
			put(j, "\\n", 2);
		} else {
			/* Bytes from memory are not UTF-8: keep them exact. */
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			put(j, esc, sizeof(esc));
		}
		run = p + 1;
	}
	put_c(j, '"');
}

void idd_json_write_string(FILE *out, const char *s)
{
	struct idd_json j = { .out = out };

	write_string(&j, s);
}

void inodedump_print_json_string(const char *s, FILE *out)
{
	struct idd_json j = { .out = out };

	flockfile(out);
	if (s)
		write_string(&j, s);
	else
		fputs("null", out);
	funlockfile(out);
}

void idd_json_init(struct idd_json *j, FILE *out, bool compact, unsigned level)
{
	j->out = out;
	j->buffered = false;
	j->n = 0;
	j->compact = compact;
	j->after_key = false;
	j->level = level;
	j->depth = 0;
}

void idd_json_init_buffered(struct idd_json *j, FILE *out, bool compact,
			    unsigned level)
{
	idd_json_init(j, out, compact, level);
	j->buffered = true;
}

static void newline(struct idd_json *j, unsigned level)
{
	static const char spaces[] = "                                ";

	put_c(j, '\n');
	for (unsigned n = 2 * level; n;) {
		unsigned k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		put(j, spaces, k);
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
			put(j, ", ", 2);
	} else {
		if (!j->open[top].first)
			put_c(j, ',');
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
	put_c(j, c);
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
	put_c(j, j->open[s].close);
}

void idd_json_key(struct idd_json *j, const char *key)
{
	idd_json_key_n(j, key, strlen(key));
}

void idd_json_key_n(struct idd_json *j, const char *key, size_t len)
{
	unsigned top = j->depth ? slot(j->depth - 1) : 0;
	char buf[128];

	/*
	 * Keys are the library's identifiers (json.h), written as they are.
	 * Inside a one-line object (every JSON Lines record: some 60 keys an
	 * inode in a sweep) the key and its separator go out in one write.
	 */
	if (!j->after_key && j->depth && len + 6 <= sizeof(buf) &&
	    j->open[top].layout == IDD_JSON_INLINE) {
		size_t n = 0;

		if (j->buffered) {
			/* straight into the buffer */
			char *to;

			if (sizeof(j->buf) - j->n < len + 6)
				idd_json_flush(j);
			to = j->buf + j->n;
			if (!j->open[top].first) {
				to[n++] = ',';
				to[n++] = ' ';
			}
			to[n++] = '"';
			memcpy(to + n, key, len);
			memcpy(to + n + len, "\": ", 3);
			j->n += n + len + 3;
			j->open[top].first = false;
			j->after_key = true;
			return;
		}

		if (!j->open[top].first) {
			buf[n++] = ',';
			buf[n++] = ' ';
		}
		buf[n++] = '"';
		memcpy(buf + n, key, len);
		memcpy(buf + n + len, "\": ", 3);
		put(j, buf, n + len + 3);
		j->open[top].first = false;
		j->after_key = true;
		return;
	}
	separate(j);
	put_c(j, '"');
	put(j, key, len);
	put(j, "\": ", 3);
	j->after_key = true;
}

bool idd_json_key_inline(struct idd_json *j, const char *sep_key, size_t len)
{
	unsigned top;

	if (!j->buffered || j->after_key || !j->depth)
		return false;
	top = slot(j->depth - 1);
	if (j->open[top].layout != IDD_JSON_INLINE)
		return false;
	if (j->open[top].first) { /* no ", " before the first key */
		sep_key += 2;
		len -= 2;
	}
	if (sizeof(j->buf) - j->n < 32)
		idd_json_flush(j);
	if (len <= 32) {
		/* a fixed size: a few moves, no call (json.h: readable) */
		memcpy(j->buf + j->n, sep_key, 32);
		j->n += len;
	} else {
		put(j, sep_key, len);
	}
	j->open[top].first = false;
	j->after_key = true;
	return true;
}

void idd_json_string(struct idd_json *j, const char *s)
{
	if (!s) {
		idd_json_null(j);
		return;
	}
	separate(j);
	write_string(j, s);
}

/* Decimal without printf's machinery (the sweep's hot path). */
static void put_u64(struct idd_json *j, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(j, p, (size_t)(buf + sizeof(buf) - p));
}

void idd_json_u64(struct idd_json *j, uint64_t v)
{
	separate(j);
	put_u64(j, v);
}

void idd_json_i64(struct idd_json *j, int64_t v)
{
	separate(j);
	if (v < 0) {
		put_c(j, '-');
		put_u64(j, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(j, (uint64_t)v);
	}
}

void idd_json_bool(struct idd_json *j, bool v)
{
	separate(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void idd_json_null(struct idd_json *j)
{
	separate(j);
	put(j, "null", 4);
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
	put(j, p, (size_t)(buf + sizeof(buf) - p));
}
