// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * VMCOREINFO's text read strictly: the KEY=value lines a kernel writes,
 * and a problem said for each thing that breaks them (issue 29), so that
 * nothing is decided on a malformed answer without a note.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/vmcoreinfo.h"

/*
 * Problems said about one text: a binary blob would make one a line, and
 * one is enough to know it cannot be trusted.
 */
#define MAX_PROBLEMS 8

static void problem(struct idd_vmcoreinfo *vi, const char *fmt, ...)
	IDD_ATTR_PRINTF(2, 3);
static void problem(struct idd_vmcoreinfo *vi, const char *fmt, ...)
{
	char **v;
	va_list ap;
	char *msg;

	if (vi->nproblems > MAX_PROBLEMS)
		return;
	if (vi->nproblems == MAX_PROBLEMS) {
		vi->nproblems++; /* counted, said by idd_vmcoreinfo_problem() */
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	v = msg ? realloc(vi->problems, (vi->nproblems + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(msg);
		return;
	}
	vi->problems = v;
	v[vi->nproblems++] = msg;
}

/*
 * A key as kernels write them: a word of A-Z a-z 0-9 _ - ("OSRELEASE",
 * "BUILD-ID", "CONFIG_X86_PAE"), optionally a parenthesised name of the
 * same bytes and dots ("SYMBOL(init_uts_ns)", "OFFSET(list_head.next)").
 */
static bool key_ok(const char *k, size_t len)
{
	size_t i = 0, word;

	while (i < len && (isalnum((unsigned char)k[i]) || k[i] == '_' ||
			   k[i] == '-'))
		i++;
	if (!i)
		return false;
	if (i == len)
		return true;
	if (k[i++] != '(')
		return false;
	word = i;
	while (i < len && (isalnum((unsigned char)k[i]) || k[i] == '_' ||
			   k[i] == '.'))
		i++;
	return i > word && i + 1 == len && k[i] == ')';
}

/* Whether [s, s + len) is digits of base (16: "%lx"), at least one. */
static bool digits(const char *s, size_t len, int base)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (base == 16 ? !isxdigit((unsigned char)s[i])
			       : !isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * Whether a value is a number as the kernel writes it for its key:
 * SYMBOL() and KERNELOFFSET in hex ("%lx"), SIZE(), OFFSET(), LENGTH(),
 * PAGESIZE in decimal, NUMBER() in decimal ("%ld", signed) or, on arm64,
 * "0x%llx". Other keys hold text.
 */
static bool value_ok(const char *k, size_t klen, const char *v, size_t len)
{
#define KEY_IS(p) (klen >= sizeof(p) - 1 && !memcmp(k, p, sizeof(p) - 1))
	if (KEY_IS("SYMBOL(") || (klen == 12 && KEY_IS("KERNELOFFSET")))
		return digits(v, len, 16);
	if (KEY_IS("SIZE(") || KEY_IS("OFFSET(") || KEY_IS("LENGTH(") ||
	    (klen == 8 && KEY_IS("PAGESIZE")))
		return digits(v, len, 10);
	if (KEY_IS("NUMBER("))
		return (len > 2 && !memcmp(v, "0x", 2))
			       ? digits(v + 2, len - 2, 16)
			       : digits(v + (len && *v == '-'),
					len - (len && *v == '-'), 10);
	return true;
#undef KEY_IS
}

/* The first byte of [s, s + len) that is not printable ASCII, or len. */
static size_t first_binary(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return i;
	return len;
}

static bool add_entry(struct idd_vmcoreinfo *vi, const char *line, size_t len,
		      size_t klen)
{
	struct idd_vmcoreinfo_entry *e = &vi->entry[vi->n];

	e->key = strndup(line, klen);
	e->value = strndup(line + klen + 1, len - klen - 1);
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		return false;
	}
	vi->n++;
	return true;
}

/* Entries by key, then by place: copies of a key end up side by side. */
static int by_key(const void *a, const void *b, void *arg)
{
	const struct idd_vmcoreinfo_entry *entry = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(entry[i].key, entry[j].key);

	return c ? c : (i > j) - (i < j);
}

/*
 * A key written twice: neither value can be trusted over the other, so
 * every copy goes (an absent key is what the session knows how to
 * replace), each key said once, in the order of its first copy. Sorted
 * rather than compared pair by pair: a kernel writes a hundred keys or
 * more, and this runs at every open.
 */
static void drop_twice(struct idd_vmcoreinfo *vi)
{
	enum { TWICE = 1, FIRST = 2 };
	size_t n = vi->n ? vi->n : 1, kept = 0;
	size_t *order = malloc(n * sizeof(*order));
	unsigned char *mark = calloc(n, 1);

	if (!order || !mark)
		goto out;
	for (size_t i = 0; i < vi->n; i++)
		order[i] = i;
	qsort_r(order, vi->n, sizeof(*order), by_key, vi->entry);
	for (size_t g = 0, e; g < vi->n; g = e) {
		for (e = g + 1; e < vi->n &&
		     !strcmp(vi->entry[order[g]].key, vi->entry[order[e]].key);
		     e++)
			mark[order[e]] = TWICE;
		if (e - g > 1)
			mark[order[g]] = TWICE | FIRST;
	}
	for (size_t i = 0; i < vi->n; i++) {
		if (mark[i] & FIRST)
			problem(vi, "VMCOREINFO: %s is written more than "
				"once: no value of it is trusted",
				vi->entry[i].key);
		if (mark[i]) {
			free(vi->entry[i].key);
			free(vi->entry[i].value);
		} else {
			vi->entry[kept++] = vi->entry[i];
		}
	}
	vi->n = kept;
out:
	free(order);
	free(mark);
}

/*
 * "KEY=value\n" lines as the kernel's vmcoreinfo_append_str() writes them.
 * Tolerated: keys this code does not know (new kernels add some) and NUL
 * padding after the last newline. A line that breaks the grammar is left
 * out and said, as is a key written twice (both copies left out): what
 * depends on a key must not be decided on a malformed answer.
 */
void idd_vmcoreinfo_parse(struct idd_vmcoreinfo *vi, const char *raw,
			  size_t size)
{
	size_t lines = 1, end = size;

	vi->present = true;
	while (end && !raw[end - 1])
		end--;
	for (size_t i = 0; i < end; i++)
		lines += raw[i] == '\n';
	vi->entry = calloc(lines, sizeof(*vi->entry));
	if (!vi->entry)
		return;
	if (!end)
		problem(vi, "VMCOREINFO: empty (%zu bytes, none of them text)",
			size);
	for (size_t at = 0; at < end;) {
		const char *line = raw + at;
		const char *nl = memchr(line, '\n', end - at);
		size_t len = nl ? (size_t)(nl - line) : end - at;
		const char *eq = memchr(line, '=', len);
		size_t bin = first_binary(line, len);

		if (bin < len)
			problem(vi, "VMCOREINFO: byte 0x%02x at byte %zu is not "
				"text", (unsigned char)line[bin], at + bin);
		else if (!nl)
			problem(vi, "VMCOREINFO: its last line (at byte %zu) "
				"does not end with a newline: cut short?", at);
		else if (!eq)
			problem(vi, "VMCOREINFO: the line at byte %zu has no "
				"'=': not KEY=value", at);
		else if (!key_ok(line, (size_t)(eq - line)))
			problem(vi, "VMCOREINFO: the line at byte %zu has no "
				"key of the kernel's (SYMBOL(x), OFFSET(a.b), "
				"NAME...) before its '='", at);
		else if (vi->n < lines &&
			 !add_entry(vi, line, len, (size_t)(eq - line)))
			break;
		/* kept: what reads it says what it lacks (a layout, a walk) */
		else if (!value_ok(line, (size_t)(eq - line), eq + 1,
				   len - (size_t)(eq - line) - 1))
			problem(vi, "VMCOREINFO: the line at byte %zu, %.*s, "
				"has no number as the kernel writes it", at,
				(int)(len < 96 ? len : 96), line);
		at += len + (nl ? 1 : 0);
	}
	drop_twice(vi);
	if (end && !memchr(raw, '\0', end) &&
	    !(end >= 10 && !memcmp(raw, "OSRELEASE=", 10)) &&
	    !memmem(raw, end, "\nOSRELEASE=", 11)) {
		/* Kernels write it first: its absence shows a shifted start. */
		const char *nl = memchr(raw, '\n', end);
		size_t first = nl ? (size_t)(nl - raw) : end;
		char shown[48 * 4 + 1];

		idd_escape_bytes(shown, raw, first < 48 ? first : 48);
		problem(vi, "VMCOREINFO: no OSRELEASE line, which kernels write "
			"first; its first line is \"%s\"%s (does the text begin "
			"where the header says?)", shown, first > 48 ? "..." : "");
	}
}

const char *idd_vmcoreinfo_get(const struct idd_vmcoreinfo *vi,
			       const char *key)
{
	for (size_t i = 0; i < vi->n; i++)
		if (!strcmp(vi->entry[i].key, key))
			return vi->entry[i].value;
	return NULL;
}

const char *idd_vmcoreinfo_problem(const struct idd_vmcoreinfo *vi, size_t i)
{
	if (i >= vi->nproblems)
		return NULL;
	if (i == MAX_PROBLEMS)
		return "VMCOREINFO: more problems than these, not said";
	return vi->problems[i];
}

void idd_vmcoreinfo_free(struct idd_vmcoreinfo *vi)
{
	for (size_t i = 0; i < vi->n; i++) {
		free(vi->entry[i].key);
		free(vi->entry[i].value);
	}
	free(vi->entry);
	for (size_t i = 0; i < vi->nproblems && i < MAX_PROBLEMS; i++)
		free(vi->problems[i]);
	free(vi->problems);
	*vi = (struct idd_vmcoreinfo){ 0 };
}

bool idd_vmcoreinfo_number(const struct idd_vmcoreinfo *info,
			   const char *key, int base, uint64_t *out)
{
	const char *v = idd_vmcoreinfo_get(info, key);
	char *end;

	if (!v || !*v)
		return false;
	errno = 0;
	*out = base == 10 ? (uint64_t)strtoll(v, &end, 10)
			  : strtoull(v, &end, 16);
	return !errno && *end == '\0';
}
