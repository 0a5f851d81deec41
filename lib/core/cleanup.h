/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core: cleanup guards, after libdrgn's cleanup.h. A variable declared
 * with a guard is freed when it goes out of scope, so an early return
 * cannot leak it; TAKE_PTR / return_ptr hand it over instead.
 *
 *	_cleanup_free_ char *buf = malloc(n);
 *	if (!buf)
 *		return idd_nomem();
 *	...
 *	*out = TAKE_PTR(buf);
 */
#ifndef IDD_CORE_CLEANUP_H
#define IDD_CORE_CLEANUP_H

#include <stdlib.h>

/* Call fn(&var) when var goes out of scope. */
#define _cleanup_(fn) __attribute__((__cleanup__(fn)))

static inline void idd_freep(void *p)
{
	free(*(void **)p);
}

/* free(3) the pointer when it goes out of scope. */
#define _cleanup_free_ _cleanup_(idd_freep)

/* The pointer's value, leaving NULL behind: the guard then frees nothing. */
#define TAKE_PTR(p)                                                            \
	__extension__({                                                        \
		__typeof__(p) take_ptr_ = (p);                                 \
		(p) = NULL;                                                    \
		take_ptr_;                                                     \
	})

/* Return a guarded pointer to the caller, who owns it from then on. */
#define return_ptr(p) return TAKE_PTR(p)

#endif
