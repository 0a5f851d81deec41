// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output: the text views' shared pieces, below each of them: a dump's
 * bytes escaped for a terminal (and, for a caller, any bytes: a name from
 * a directory others write), a dev_t as MAJOR:MINOR.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "inodedump.h"
#include "output/output.h"

#define MINORBITS 20 /* the kernel's internal dev_t: 12 bits major, 20 minor */

/* The printers lock the stream once (see json.c). */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

/* The length of the well-formed UTF-8 sequence at s (not C1), or 0. */
static size_t utf8_printable(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF, C1 controls. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp < 0xa0)
		return 0;
	return n;
}

void idd_text_escape_len(FILE *out, const char *s, size_t len, bool log)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		size_t n;

		if ((c >= 0x20 && c < 0x7f && (c != '\\' || log)) ||
		    ((c == '\n' || c == '\t') && log)) {
			fputc(c, out);
			i++;
			continue;
		}
		if (c >= 0x80 && (n = utf8_printable(p + i, len - i))) {
			fwrite(p + i, 1, n, out);
			i += n;
			continue;
		}
		switch (c) {
		case '\\': fputs("\\\\", out); break;
		case 0x1b: fputs("\\e", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default: fprintf(out, "\\x%02x", c); break;
		}
		i++;
	}
}

void idd_text_escape(FILE *out, const char *s)
{
	if (!s)
		fputc('?', out);
	else
		idd_text_escape_len(out, s, strlen(s), false);
}

void inodedump_print_escaped(const char *s, size_t len, FILE *out)
{
	flockfile(out);
	idd_text_escape_len(out, s, len, false);
	funlockfile(out);
}

void idd_dev_string(uint64_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ":%" PRIu64, dev >> MINORBITS,
		 dev & ((1u << MINORBITS) - 1));
}
