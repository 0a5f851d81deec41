// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * idd_text_escape(): the bytes of a dump as text output prints them, so
 * that no escape sequence, carriage return, C1 control or invalid UTF-8
 * from a dump reaches a terminal, while printable text stays as it is;
 * and the public pair a caller escapes anyone's bytes with (a file name:
 * vmcore-inode --triage), text and JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inodedump.h"
#include "output/output.h"

/* What idd_text_escape_len() prints for len bytes of s. */
static char *escaped(const char *s, size_t len, bool newlines)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	idd_text_escape_len(m, s, len, newlines);
	fclose(m);
	return buf;
}

#define EXPECT(in, want)                                                  \
	do {                                                              \
		char *got = escaped(in, sizeof(in) - 1, false);          \
		CHECKF(!strcmp(got, want), "%s: got \"%s\", want \"%s\"", \
		       #in, got, want);                                   \
		free(got);                                                \
	} while (0)

int main(void)
{
	char *got;
	char *buf = NULL;
	size_t n = 0;
	FILE *m;

	/* Printable ASCII and UTF-8 as they are. */
	EXPECT("/tmp/fx/victim", "/tmp/fx/victim");
#define UTF8 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"
	EXPECT(UTF8, UTF8);
	/* ESC, OSC, BEL, CR, TAB, NL, DEL, backslash. */
	EXPECT("\x1b[2J", "\\e[2J");
	EXPECT("\x1b]0;pwned\x07", "\\e]0;pwned\\x07");
	EXPECT("a\rb", "a\\rb");
	EXPECT("a\tb\nc", "a\\tb\\nc");
	EXPECT("\x7f", "\\x7f");
	EXPECT("a\\b", "a\\\\b");
	/* C1 controls, raw and as UTF-8 (U+009B CSI). */
	EXPECT("\x9b" "31m", "\\x9b" "31m");
	EXPECT("\xc2\x9b" "31m", "\\xc2\\x9b" "31m");
	/* Invalid UTF-8: overlong, surrogate, cut short, past U+10FFFF. */
	EXPECT("\xc0\xaf", "\\xc0\\xaf");
	EXPECT("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	EXPECT("\xed\xa0\x80", "\\xed\\xa0\\x80");
	EXPECT("\xe2\x82", "\\xe2\\x82");
	EXPECT("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	/* NUL inside a counted string (a log record). */
	EXPECT("a\0b", "a\\x00b");
	/* The log keeps dmesg's newlines, tabs and backslashes. */
#define LOG "line\n\tnext \\_SB_\r\x1b"
	got = escaped(LOG, sizeof(LOG) - 1, true);
	CHECKF(!strcmp(got, "line\n\tnext \\_SB_\\r\\e"), "log: got \"%s\"",
	       got);
	free(got);
	/* A C string; NULL is "?". */
	m = open_memstream(&buf, &n);
	idd_text_escape(m, "x\x1by");
	idd_text_escape(m, NULL);
	fclose(m);
	CHECKF(!strcmp(buf, "x\\ey?"), "C string: got \"%s\"", buf);
	free(buf);
	/* A directory's name: escaped as the dump's bytes are. */
	buf = NULL;
	m = open_memstream(&buf, &n);
	inodedump_print_escaped("\x1b]0;t\x07/\xff\xfe/caf\xc3\xa9", 15, m);
	fclose(m);
	CHECKF(!strcmp(buf, "\\e]0;t\\x07/\\xff\\xfe/caf\xc3\xa9"),
	       "public text: got \"%s\"", buf);
	free(buf);
	/* In JSON each byte above ASCII is \u00XX: valid, and exact. */
	buf = NULL;
	m = open_memstream(&buf, &n);
	inodedump_print_json_string("\xff\xfe\x1b\"\\\xc3\xa9", m);
	inodedump_print_json_string(NULL, m);
	fclose(m);
	CHECKF(!strcmp(buf, "\"\\u00ff\\u00fe\\u001b\\\"\\\\\\u00c3\\u00a9\"null"),
	       "public JSON: got %s", buf);
	free(buf);
	return check_summary("text escape");
}
