// SPDX-License-Identifier: LGPL-2.1-or-later
/* A strict JSON validator for the JSON writer's fuzzer (see json_check.h). */
#include "json_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_KEYS 256 /* per object, for the duplicate check */

struct p {
	const unsigned char *s;
	size_t len, i;
	const char *why;
	int depth;
};

static bool fail(struct p *p, const char *why)
{
	if (!p->why)
		p->why = why;
	return false;
}

static void ws(struct p *p)
{
	while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
				 p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static bool lit(struct p *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->i < n || memcmp(p->s + p->i, word, n))
		return fail(p, "bad literal");
	p->i += n;
	return true;
}

static int hex4(struct p *p)
{
	int v = 0;

	if (p->len - p->i < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		unsigned char c = p->s[p->i++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* One UTF-8 sequence starting at p->i (c >= 0x80), strictly. */
static bool utf8(struct p *p)
{
	unsigned char c = p->s[p->i];
	int n;
	uint32_t cp, min;

	if (c >= 0xc2 && c <= 0xdf)
		n = 1, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 2, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3, cp = c & 0x07, min = 0x10000;
	else
		return fail(p, "invalid UTF-8 lead byte in string");
	if (p->len - p->i - 1 < (size_t)n)
		return fail(p, "truncated UTF-8 sequence");
	for (int k = 1; k <= n; k++) {
		unsigned char d = p->s[p->i + k];

		if ((d & 0xc0) != 0x80)
			return fail(p, "invalid UTF-8 continuation byte");
		cp = cp << 6 | (d & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(p, "overlong or invalid UTF-8 code point");
	p->i += (size_t)n + 1;
	return true;
}

/* A string; its raw span (between the quotes) in *start, *end. */
static bool string(struct p *p, size_t *start, size_t *end)
{
	if (p->i >= p->len || p->s[p->i] != '"')
		return fail(p, "expected a string");
	p->i++;
	*start = p->i;
	while (p->i < p->len) {
		unsigned char c = p->s[p->i];

		if (c == '"') {
			*end = p->i++;
			return true;
		}
		if (c < 0x20)
			return fail(p, "raw control character in string");
		if (c >= 0x80) {
			if (!utf8(p))
				return false;
			continue;
		}
		p->i++;
		if (c != '\\')
			continue;
		if (p->i >= p->len)
			break;
		c = p->s[p->i++];
		if (c == 'u') {
			int v = hex4(p);

			if (v < 0)
				return fail(p, "bad \\u escape");
			if (v >= 0xd800 && v <= 0xdbff) {
				int lo;

				if (p->len - p->i < 2 || p->s[p->i] != '\\' ||
				    p->s[p->i + 1] != 'u')
					return fail(p, "unpaired high surrogate");
				p->i += 2;
				lo = hex4(p);
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(p, "unpaired high surrogate");
			} else if (v >= 0xdc00 && v <= 0xdfff) {
				return fail(p, "unpaired low surrogate");
			}
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return fail(p, "invalid escape");
		}
	}
	return fail(p, "unterminated string");
}

static bool digits(struct p *p)
{
	size_t from = p->i;

	while (p->i < p->len && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > from;
}

static bool number(struct p *p)
{
	if (p->i < p->len && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->len && p->s[p->i] == '0')
		p->i++;
	else if (!(p->i < p->len && p->s[p->i] >= '1' && p->s[p->i] <= '9') ||
		 !digits(p))
		return fail(p, "bad number");
	if (p->i < p->len && p->s[p->i] == '.') {
		p->i++;
		if (!digits(p))
			return fail(p, "bad fraction");
	}
	if (p->i < p->len && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->len && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!digits(p))
			return fail(p, "bad exponent");
	}
	return true;
}

static bool value(struct p *p);

static bool same_key(const struct p *p, size_t a0, size_t a1, size_t b0,
		     size_t b1)
{
	/* Raw comparison: the writer never escapes a key two ways. */
	return a1 - a0 == b1 - b0 && !memcmp(p->s + a0, p->s + b0, a1 - a0);
}

static bool object(struct p *p)
{
	size_t keys[MAX_KEYS][2], nkeys = 0;

	p->i++; /* { */
	ws(p);
	if (p->i < p->len && p->s[p->i] == '}') {
		p->i++;
		return true;
	}
	for (;;) {
		size_t k0, k1;

		ws(p);
		if (!string(p, &k0, &k1))
			return false;
		for (size_t k = 0; k < nkeys; k++)
			if (same_key(p, keys[k][0], keys[k][1], k0, k1))
				return fail(p, "duplicate key in object");
		if (nkeys < MAX_KEYS) {
			keys[nkeys][0] = k0;
			keys[nkeys][1] = k1;
			nkeys++;
		}
		ws(p);
		if (p->i >= p->len || p->s[p->i] != ':')
			return fail(p, "expected ':'");
		p->i++;
		if (!value(p))
			return false;
		ws(p);
		if (p->i < p->len && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->len && p->s[p->i] == '}') {
			p->i++;
			return true;
		}
		return fail(p, "expected ',' or '}'");
	}
}

static bool array(struct p *p)
{
	p->i++; /* [ */
	ws(p);
	if (p->i < p->len && p->s[p->i] == ']') {
		p->i++;
		return true;
	}
	for (;;) {
		if (!value(p))
			return false;
		ws(p);
		if (p->i < p->len && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->len && p->s[p->i] == ']') {
			p->i++;
			return true;
		}
		return fail(p, "expected ',' or ']'");
	}
}

static bool value(struct p *p)
{
	size_t a, b;
	bool ok;

	ws(p);
	if (p->i >= p->len)
		return fail(p, "expected a value");
	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested too deep");
	switch (p->s[p->i]) {
	case '{': ok = object(p); break;
	case '[': ok = array(p); break;
	case '"': ok = string(p, &a, &b); break;
	case 't': ok = lit(p, "true"); break;
	case 'f': ok = lit(p, "false"); break;
	case 'n': ok = lit(p, "null"); break;
	default: ok = number(p); break;
	}
	p->depth--;
	return ok;
}

const char *json_check(const char *s, size_t len, size_t *where)
{
	struct p p = { (const unsigned char *)s, len, 0, NULL, 0 };

	if (value(&p)) {
		ws(&p);
		if (p.i != p.len)
			fail(&p, "trailing bytes after the value");
	}
	*where = p.i;
	return p.why;
}
