// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * log: what a dump_inode() report line said against what the dump holds.
 * The inode may have changed between the report and the dump.
 */
#include "decode/inode.h"

/* The fields a report line prints, with the format it prints them in. */
static const struct {
	const char *key; /* the INODE key (inodedump_inode_number) */
	const char *format;
} report_fields[INODEDUMP_MAX_DIFFERENCES] = {
	{ "mode", "0%llo" },
	{ "opflags", "0x%llx" },
	{ "flags", "0x%llx" },
	{ "state", "0x%llx" },
	{ "count", "%lld" },
};

size_t inodedump_report_differences(const struct inodedump_report *report,
				    const struct inodedump_inode *inode,
				    struct inodedump_difference *out)
{
	const struct inodedump_report_fields *f = &report->fields;
	const int64_t at_report[INODEDUMP_MAX_DIFFERENCES] = {
		f->mode, f->opflags, f->flags, f->state, f->count
	};
	size_t n = 0;

	if (!report->has_fields || !inode)
		return 0;
	for (size_t i = 0; i < INODEDUMP_MAX_DIFFERENCES; i++) {
		int64_t now;

		if (!inodedump_inode_number(inode, report_fields[i].key, &now) ||
		    now == at_report[i])
			continue;
		out[n++] = (struct inodedump_difference){
			.field = report_fields[i].key,
			.at_report = at_report[i],
			.in_dump = now,
			.format = report_fields[i].format,
		};
	}
	return n;
}
