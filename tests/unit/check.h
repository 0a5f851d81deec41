/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The assertions of the C unit tests: each counts, a failure prints its
 * file, line and condition (and a message with CHECKF), and
 * check_summary() prints the closing count and gives the exit status —
 * failing also when nothing was checked at all.
 */
#ifndef IDD_TESTS_CHECK_H
#define IDD_TESTS_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECKF(cond, ...)                                                      \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
		}                                                              \
	} while (0)

#define CHECK(cond) CHECKF(cond, "false")

static inline int check_summary(const char *what)
{
	printf("%s: %d checks passed, %d failed\n", what, passed, failed);
	return failed || !passed;
}

#endif
