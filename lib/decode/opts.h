/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Options structs checked by size, the libbpf way: one macro set for every
 * public opts struct.
 *
 *   if ((err = OPTS_VALID(opts, inodedump_sweep_opts)))
 *           return err;
 *   fs = OPTS_GET(opts, fs, NULL);
 *
 * OPTS_VALID refuses a struct whose bytes beyond the last member this
 * library knows are not all zero (a newer caller asking for something we
 * cannot do), and one too small to hold sz. OPTS_GET reads a member only
 * when the caller's struct is big enough to have it (an older caller),
 * else gives the default. NULL options are valid and give every default.
 */
#ifndef IDD_DECODE_OPTS_H
#define IDD_DECODE_OPTS_H

#include <stddef.h>

#include "core/error.h"

/*
 * The last member of each opts struct: what this library knows ends
 * there. A member added to a struct must be named here too (the asserts
 * in session.c catch a member added after it).
 */
#define inodedump_open_opts__last_field types_optional
#define inodedump_sweep_opts__last_field threads
#define inodedump_reader_opts__last_field symbol

#define IDD_OFFSETOFEND(TYPE, FIELD)                                           \
	(offsetof(struct TYPE, FIELD) + sizeof(((struct TYPE *)0)->FIELD))

/* The known end of struct TYPE. */
#define IDD_OPTS_KNOWN(TYPE) IDD_OFFSETOFEND(TYPE, TYPE##__last_field)

/*
 * NULL when opts (of user_sz bytes) is acceptable to a library that knows
 * its first known bytes; else an INODEDUMP_ERR_USAGE error naming type.
 */
struct inodedump_error *idd_opts_check(const void *opts, size_t known,
				       size_t user_sz, const char *type);

#define OPTS_VALID(opts, TYPE)                                                 \
	idd_opts_check((opts), IDD_OPTS_KNOWN(TYPE), (opts) ? (opts)->sz : 0,  \
		       #TYPE)

/* The caller's struct has FIELD (its sz covers it). */
#define OPTS_HAS(opts, FIELD)                                                  \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), FIELD) +        \
					 sizeof((opts)->FIELD))

#define OPTS_GET(opts, FIELD, fallback)                                        \
	(OPTS_HAS(opts, FIELD) ? (opts)->FIELD : (fallback))

#endif
