/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* target: VMCOREINFO's text read strictly (vmcoreinfo.c). Not installed. */
#ifndef IDD_TARGET_VMCOREINFO_H
#define IDD_TARGET_VMCOREINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

struct idd_vmcoreinfo_entry {
	char *key;
	char *value;
};

struct idd_vmcoreinfo {
	struct idd_vmcoreinfo_entry *entry; /* the lines taken */
	size_t n;
	/* What the text breaks, one line each (the session's notes). */
	char **problems;
	size_t nproblems;
	bool present; /* there was a text at all */
};

/*
 * raw's size bytes as KEY=value lines. Tolerated: keys not known here
 * (new kernels add some) and NUL padding after the last newline. A line
 * that breaks the grammar is left out with a problem naming its byte; a
 * key written twice has every copy left out.
 */
void idd_vmcoreinfo_parse(struct idd_vmcoreinfo *vi, const char *raw,
			  size_t size);
/* A key's value, or NULL: absent, malformed or written twice. */
const char *idd_vmcoreinfo_get(const struct idd_vmcoreinfo *vi,
			       const char *key);
/* Problem i ("VMCOREINFO: ... at byte N"), or NULL past the last. */
const char *idd_vmcoreinfo_problem(const struct idd_vmcoreinfo *vi, size_t i);
void idd_vmcoreinfo_free(struct idd_vmcoreinfo *vi);
/* A key's value as a number (base 10 or 16), all of it or false. */
bool idd_vmcoreinfo_number(const struct idd_vmcoreinfo *vi, const char *key,
			   int base, uint64_t *out);

#endif
