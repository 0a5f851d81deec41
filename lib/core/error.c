// SPDX-License-Identifier: LGPL-2.1-or-later
/* One error type for the whole library: a code, a message, maybe an address. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static struct inodedump_error nomem_error = {
	.code = INODEDUMP_ERR_NOMEM,
	.message = "out of memory",
};

struct inodedump_error *idd_nomem(void)
{
	return &nomem_error;
}

struct inodedump_error *idd_error_unless(struct inodedump_error *err,
					 enum inodedump_error_code code)
{
	if (err && err->code == code) {
		inodedump_error_free(err);
		return NULL;
	}
	return err;
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *idd_strdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

static struct inodedump_error *make(enum inodedump_error_code code,
				    bool has_address, uint64_t address,
				    const char *fmt, va_list ap)
{
	struct inodedump_error *err = calloc(1, sizeof(*err));

	if (!err)
		return idd_nomem();
	err->code = code;
	err->has_address = has_address;
	err->address = address;
	err->message = vformat(fmt, ap);
	if (!err->message) {
		free(err);
		return idd_nomem();
	}
	return err;
}

struct inodedump_error *idd_error(enum inodedump_error_code code,
				  const char *fmt, ...)
{
	struct inodedump_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = make(code, false, 0, fmt, ap);
	va_end(ap);
	return err;
}

struct inodedump_error *idd_error_at(enum inodedump_error_code code,
				     uint64_t address, const char *fmt, ...)
{
	struct inodedump_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = make(code, true, address, fmt, ap);
	va_end(ap);
	return err;
}

struct inodedump_error *idd_error_damage(struct inodedump_error *err)
{
	if (err && err != &nomem_error)
		err->damage = true;
	return err;
}

struct inodedump_error *idd_error_wrap(struct inodedump_error *err,
				       const char *fmt, ...)
{
	char *prefix, *joined;
	va_list ap;

	if (err == &nomem_error)
		return err;
	va_start(ap, fmt);
	prefix = vformat(fmt, ap);
	va_end(ap);
	if (!prefix)
		return err;
	joined = idd_strdup_printf("%s: %s", prefix, err->message);
	free(prefix);
	if (joined) {
		free(err->message);
		err->message = joined;
	}
	return err;
}

enum inodedump_error_code
inodedump_error_code(const struct inodedump_error *err)
{
	return err->code;
}

const char *inodedump_error_message(const struct inodedump_error *err)
{
	return err->message;
}

bool inodedump_error_address(const struct inodedump_error *err,
			     uint64_t *address)
{
	if (err->has_address && address)
		*address = err->address;
	return err->has_address;
}

void inodedump_error_free(struct inodedump_error *err)
{
	if (!err || err == &nomem_error)
		return;
	free(err->message);
	free(err);
}

void idd_escape_bytes(char *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			*out++ = (char)c;
		else
			out += sprintf(out, "\\x%02x", c);
	}
	*out = '\0';
}
