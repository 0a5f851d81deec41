/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A strict RFC 8259 validator, no dependency: one JSON value, optionally
 * surrounded by whitespace. Strings must be valid UTF-8 with no raw control
 * characters and only the standard escapes (\uXXXX surrogates paired);
 * numbers follow the grammar; objects have no duplicate keys.
 */
#ifndef INODEDUMP_FUZZ_JSON_CHECK_H
#define INODEDUMP_FUZZ_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* NULL if s[0..len) is one valid JSON value, else why not (static text);
 * *where gets the offset of the first offending byte. */
const char *json_check(const char *s, size_t len, size_t *where);

#endif
