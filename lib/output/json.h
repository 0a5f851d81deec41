/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output: the one JSON writer. Every JSON byte the library and vmcore-inode
 * write goes through it: one string escaper, numbers, keys, nesting, and
 * two modes (pretty, compact for JSON Lines).
 *
 * Strings are bytes from kernel memory, not UTF-8: each byte outside
 * printable ASCII (below 0x20, 0x7f and above) is written as \u00XX, i.e.
 * the bytes read as Latin-1, so that every input is valid JSON and the
 * bytes come back exactly (each code point below 0x100 is one byte).
 * '"' and '\' are escaped, a newline is \n.
 *
 * Pretty layout: a container is INLINE ("{"a": 1, "b": 2}"), LINES (each
 * item on its own line, one level deeper than the container; the closing
 * bracket on a line at the container's level) or FLAT (items and the
 * closing bracket on lines at the container's own level: the arrays of a
 * document). In compact mode every container is INLINE.
 *
 * The writer uses the unlocked stdio calls: the caller holds the stream's
 * lock (flockfile), as the public printers do.
 */
#ifndef IDD_OUTPUT_JSON_H
#define IDD_OUTPUT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum idd_json_layout {
	IDD_JSON_INLINE,
	IDD_JSON_LINES,
	IDD_JSON_FLAT,
};

#define IDD_JSON_MAX_DEPTH 32 /* deeper nesting is not supported */

#define IDD_JSON_BUF 4096

struct idd_json {
	FILE *out;
	/*
	 * Buffered (idd_json_init_buffered): pieces gather in buf and go to
	 * out in few writes; idd_json_flush() writes the rest. A sweep writes
	 * ~60 keys an inode, and stdio's cost per write dominated.
	 */
	bool buffered;
	size_t n;
	char buf[IDD_JSON_BUF];
	bool compact;
	bool after_key; /* a key was written, its value comes next */
	unsigned level; /* indentation level, in steps of two spaces */
	unsigned depth; /* containers open */
	struct {
		unsigned char layout;
		bool first;
		char close;
	} open[IDD_JSON_MAX_DEPTH];
};

/*
 * Start writing one JSON value to out. level: the indentation of the line
 * the value starts on (an INODE inside a document's array starts at 1).
 */
void idd_json_init(struct idd_json *j, FILE *out, bool compact,
		   unsigned level);
/* The same, buffered: the caller ends with idd_json_flush(). */
void idd_json_init_buffered(struct idd_json *j, FILE *out, bool compact,
			    unsigned level);
void idd_json_flush(struct idd_json *j);

void idd_json_object(struct idd_json *j, enum idd_json_layout layout);
void idd_json_array(struct idd_json *j, enum idd_json_layout layout);
void idd_json_end(struct idd_json *j); /* the innermost object or array */

/*
 * A key of the object being written; its value is the next call. Keys are
 * the library's own identifiers ([a-z0-9_]: literals, the member table's
 * keys, inode type names; tests/unit/test_member_table.c checks the
 * table's), never bytes from the dump: they are written as they are.
 * Strings that come from memory go through idd_json_string(), the one
 * escaper.
 */
void idd_json_key(struct idd_json *j, const char *key);
/* The same with strlen(key) known. */
void idd_json_key_n(struct idd_json *j, const char *key, size_t len);
/*
 * A key written ahead as ', "key": ' (len bytes), for a buffered writer
 * inside a one-line container; false (nothing written) elsewhere.
 * sep_key must be readable for IDD_JSON_KEY_AHEAD bytes (it is copied in
 * fixed-size pieces); len is at most IDD_JSON_KEY_AHEAD - 16.
 */
#define IDD_JSON_KEY_AHEAD 48
bool idd_json_key_inline(struct idd_json *j, const char *sep_key, size_t len);

void idd_json_string(struct idd_json *j, const char *s); /* NULL: null */
void idd_json_u64(struct idd_json *j, uint64_t v);
void idd_json_i64(struct idd_json *j, int64_t v);
void idd_json_bool(struct idd_json *j, bool v);
void idd_json_null(struct idd_json *j);
/* An address as the string "0x..." (lowercase hex). */
void idd_json_hex(struct idd_json *j, uint64_t v);

/* The escaper alone: s as one JSON string, quotes included. */
void idd_json_write_string(FILE *out, const char *s);

#endif
