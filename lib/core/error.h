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
char *idd_strdup_printf(const char *fmt, ...) IDD_ATTR_PRINTF(1, 2);

#endif
