/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* core: the one error type of the library (error.c). */
#ifndef IDD_CORE_ERROR_H
#define IDD_CORE_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inodedump.h"

#define IDD_ATTR_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- errors (error.c) ---- */
struct inodedump_error {
	enum inodedump_error_code code;
	bool has_address;
	uint64_t address;
	char *message;
	bool damage; /* a reader found the dump's own bytes damaged */
};

struct inodedump_error *idd_error(enum inodedump_error_code code,
				  const char *fmt, ...) IDD_ATTR_PRINTF(2, 3);
struct inodedump_error *idd_error_at(enum inodedump_error_code code,
				     uint64_t address, const char *fmt, ...)
	IDD_ATTR_PRINTF(3, 4);
/* Prefix an error's message with context ("reading i_sb: ..."). */
struct inodedump_error *idd_error_wrap(struct inodedump_error *err,
				       const char *fmt, ...)
	IDD_ATTR_PRINTF(2, 3);
struct inodedump_error *idd_nomem(void);
/* err, marked as damage the dump's reader found (idd_error_damage()). */
struct inodedump_error *idd_error_damage(struct inodedump_error *err);
/*
 * err unless its code is code: then err is freed and NULL returned. For
 * errors that only mean "absent" to a caller, which goes on without the
 * thing while any other error (out of memory) still reaches its caller.
 */
struct inodedump_error *idd_error_unless(struct inodedump_error *err,
					 enum inodedump_error_code code);
static inline bool idd_error_is_nomem(const struct inodedump_error *err)
{
	return err && err->code == INODEDUMP_ERR_NOMEM;
}
/* For _cleanup_(idd_error_freep): an error that is only looked at. */
static inline void idd_error_freep(struct inodedump_error **err)
{
	inodedump_error_free(*err);
}
char *idd_strdup_printf(const char *fmt, ...) IDD_ATTR_PRINTF(1, 2);
/*
 * The dump's bytes as a message may quote them: printable ASCII as it is,
 * anything else (and the backslash) as \xNN. out holds 4 * len + 1.
 */
void idd_escape_bytes(char *out, const char *s, size_t len);

#endif
