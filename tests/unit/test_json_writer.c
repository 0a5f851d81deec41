// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The JSON writer (lib/output/json.c) against the strict checker
 * (fuzz/json_check.c): every byte a string can hold comes back exactly,
 * numbers at their limits, nesting in both modes, the document layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../fuzz/json_check.h"
#include "output/json.h"



/* What a writer wrote, as a string. */
struct capture {
	char *text;
	size_t len;
	FILE *f;
	struct idd_json j;
};

static void start(struct capture *c, bool compact, unsigned level)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	if (!c->f)
		abort();
	idd_json_init(&c->j, c->f, compact, level);
}

static char *finish(struct capture *c)
{
	fclose(c->f);
	return c->text;
}

static bool valid(const char *text)
{
	size_t where;
	const char *why = json_check(text, strlen(text), &where);

	if (why)
		printf("  invalid JSON (%s at %zu): %s\n", why, where, text);
	return !why;
}

/*
 * Decode one JSON string the writer wrote, as the writer defines it: each
 * \u00XX escape is the byte XX. Returns the bytes, or NULL when the text
 * holds an escape the writer never writes.
 */
static char *unescape(const char *text, size_t *len)
{
	char *out = malloc(strlen(text) + 1);
	size_t n = 0;
	const char *p = text;

	if (!out || *p++ != '"')
		goto bad;
	for (; *p && *p != '"'; p++) {
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		p++;
		if (*p == '"' || *p == '\\') {
			out[n++] = *p;
		} else if (*p == 'n') {
			out[n++] = '\n';
		} else if (*p == 'u' && !strncmp(p + 1, "00", 2)) {
			unsigned v;

			if (sscanf(p + 3, "%2x", &v) != 1)
				goto bad;
			out[n++] = (char)v;
			p += 4;
		} else {
			goto bad;
		}
	}
	if (*p != '"' || p[1])
		goto bad;
	out[n] = 0;
	*len = n;
	return out;
bad:
	free(out);
	return NULL;
}

static bool round_trip(const char *s)
{
	struct capture c;
	char *text, *back;
	size_t len = 0;
	bool ok;

	start(&c, true, 0);
	idd_json_string(&c.j, s);
	text = finish(&c);
	back = unescape(text, &len);
	ok = valid(text) && back && len == strlen(s) && !memcmp(back, s, len);
	if (!ok)
		printf("  round trip failed: %s\n", text);
	free(back);
	free(text);
	return ok;
}

static void test_every_byte_comes_back(void)
{
	char s[4];

	for (unsigned b = 1; b < 256; b++) {
		s[0] = (char)b;
		s[1] = 0;
		CHECK(round_trip(s));
		s[0] = 'a';
		s[1] = (char)b;
		s[2] = 'z';
		s[3] = 0;
		CHECK(round_trip(s));
	}
}

static void test_control_bytes_quotes_backslashes(void)
{
	struct capture c;
	char *text;

	CHECK(round_trip("\"quoted\" \\back\\slash\\\" \t\r\n\b\f\x01\x1f\x7f"));
	CHECK(round_trip(""));
	start(&c, true, 0);
	idd_json_string(&c.j, "a\"b\\c\nd\te\x7f");
	text = finish(&c);
	CHECK(!strcmp(text, "\"a\\\"b\\\\c\\nd\\u0009e\\u007f\""));
	free(text);
}

static void test_invalid_utf8_is_bytes(void)
{
	struct capture c;
	char *text;

	/* Not UTF-8 (a lone continuation, a truncated sequence, 0xff) and
	 * valid UTF-8 alike: each byte a code point below 0x100. */
	CHECK(round_trip("\x80\xbf\xc3\xe2\x82\xff\xfe"));
	CHECK(round_trip("caf\xc3\xa9"));
	start(&c, true, 0);
	idd_json_string(&c.j, "\xc3\xa9\xff");
	text = finish(&c);
	CHECK(!strcmp(text, "\"\\u00c3\\u00a9\\u00ff\""));
	CHECK(valid(text));
	free(text);
}

static void test_numbers_at_their_limits(void)
{
	struct capture c;
	char *text;

	start(&c, true, 0);
	idd_json_array(&c.j, IDD_JSON_INLINE);
	idd_json_u64(&c.j, 0);
	idd_json_u64(&c.j, UINT64_MAX);
	idd_json_i64(&c.j, INT64_MIN);
	idd_json_i64(&c.j, -1);
	idd_json_i64(&c.j, INT64_MAX);
	idd_json_hex(&c.j, 0);
	idd_json_hex(&c.j, 0xffff935e008f6850ull);
	idd_json_bool(&c.j, true);
	idd_json_bool(&c.j, false);
	idd_json_null(&c.j);
	idd_json_string(&c.j, NULL);
	idd_json_end(&c.j);
	text = finish(&c);
	CHECK(valid(text));
	CHECK(!strcmp(text, "[0, 18446744073709551615, -9223372036854775808, "
			    "-1, 9223372036854775807, \"0x0\", "
			    "\"0xffff935e008f6850\", true, false, null, null]"));
	free(text);
}

/* A document shaped like vmcore-inode's, in both modes. */
static void write_document(struct idd_json *j, bool with_reports)
{
	idd_json_object(j, IDD_JSON_LINES);
	idd_json_key(j, "schema");
	idd_json_u64(j, 1);
	idd_json_key(j, "inodes");
	if (with_reports) {
		idd_json_array(j, IDD_JSON_INLINE);
		idd_json_end(j);
		idd_json_key(j, "reports");
	}
	idd_json_array(j, IDD_JSON_FLAT);
	for (int i = 0; i < 2; i++) {
		idd_json_object(j, with_reports ? IDD_JSON_INLINE : IDD_JSON_LINES);
		idd_json_key(j, "n");
		idd_json_i64(j, i);
		idd_json_key(j, "t");
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "sec");
		idd_json_i64(j, -5);
		idd_json_end(j);
		idd_json_key(j, "names");
		idd_json_array(j, IDD_JSON_INLINE);
		idd_json_string(j, "x");
		idd_json_string(j, "y");
		idd_json_end(j);
		if (with_reports) {
			idd_json_key(j, "inode");
			idd_json_object(j, IDD_JSON_LINES);
			idd_json_key(j, "k");
			idd_json_null(j);
			idd_json_end(j);
		}
		idd_json_end(j);
	}
	idd_json_end(j);
	idd_json_end(j);
}

static void test_pretty_document_layout(void)
{
	struct capture c;
	char *text;

	start(&c, false, 0);
	write_document(&c.j, false);
	text = finish(&c);
	CHECK(valid(text));
	CHECK(!strcmp(text, "{\n  \"schema\": 1,\n  \"inodes\": [\n"
			    "  {\n    \"n\": 0,\n    \"t\": {\"sec\": -5},\n"
			    "    \"names\": [\"x\", \"y\"]\n  },\n"
			    "  {\n    \"n\": 1,\n    \"t\": {\"sec\": -5},\n"
			    "    \"names\": [\"x\", \"y\"]\n  }\n  ]\n}"));
	free(text);

	start(&c, false, 0);
	write_document(&c.j, true);
	text = finish(&c);
	CHECK(valid(text));
	CHECK(!strncmp(text, "{\n  \"schema\": 1,\n  \"inodes\": [],\n"
			     "  \"reports\": [\n  {\"n\": 0, ", 50));
	CHECK(strstr(text, "\"inode\": {\n    \"k\": null\n  }}") != NULL);
	free(text);
}

static void test_compact_is_one_line(void)
{
	struct capture c;
	char *text;

	start(&c, true, 0);
	write_document(&c.j, true);
	text = finish(&c);
	CHECK(valid(text));
	CHECK(!strchr(text, '\n'));
	CHECK(!strcmp(text, "{\"schema\": 1, \"inodes\": [], \"reports\": ["
			    "{\"n\": 0, \"t\": {\"sec\": -5}, \"names\": [\"x\", "
			    "\"y\"], \"inode\": {\"k\": null}}, {\"n\": 1, \"t\": "
			    "{\"sec\": -5}, \"names\": [\"x\", \"y\"], \"inode\": "
			    "{\"k\": null}}]}"));
	free(text);
}

static void test_deep_nesting_both_modes(void)
{
	for (int compact = 0; compact < 2; compact++) {
		struct capture c;
		char *text;

		start(&c, compact, 0);
		for (int i = 0; i < IDD_JSON_MAX_DEPTH; i++) {
			if (i % 2) {
				idd_json_array(&c.j, i % 3 ? IDD_JSON_LINES
							   : IDD_JSON_FLAT);
			} else {
				idd_json_object(&c.j, i % 3 ? IDD_JSON_INLINE
							    : IDD_JSON_LINES);
				idd_json_key(&c.j, "k");
			}
		}
		idd_json_string(&c.j, "deep\x02");
		for (int i = 0; i < IDD_JSON_MAX_DEPTH; i++)
			idd_json_end(&c.j);
		idd_json_end(&c.j); /* one too many: ignored */
		text = finish(&c);
		CHECK(valid(text));
		CHECK(!compact || !strchr(text, '\n'));
		free(text);
	}
}

int main(void)
{
	test_every_byte_comes_back();
	test_control_bytes_quotes_backslashes();
	test_invalid_utf8_is_bytes();
	test_numbers_at_their_limits();
	test_pretty_document_layout();
	test_compact_is_one_line();
	test_deep_nesting_both_modes();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
