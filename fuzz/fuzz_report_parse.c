// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target a: the dump_inode() report-line parser, inodedump_parse_report(),
 * on arbitrary bytes (not NUL-terminated: the input is exactly len bytes,
 * so AddressSanitizer sees any read past it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inodedump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inodedump_report r;

	memset(&r, 0xa5, sizeof(r));
	if (inodedump_parse_report((const char *)data, size, &r)) {
		/*
		 * What a successful parse promises: a known format and a
		 * non-empty reason (fuzz/crashes/report_parse-nul-reason.txt
		 * broke that before commit fccb8dd).
		 */
		if (r.format < INODEDUMP_REPORT_6_15 ||
		    r.format > INODEDUMP_REPORT_7_0 ||
		    !memchr(r.reason, '\0', sizeof(r.reason)) || !r.reason[0] ||
		    (r.has_fields &&
		     !memchr(r.fields.fs_type, '\0', sizeof(r.fields.fs_type))) ||
		    (r.format == INODEDUMP_REPORT_6_15 && r.has_fields))
			abort();
	}
	return 0;
}
