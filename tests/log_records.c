// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel log's records through the public API, one line each:
 *
 *   log_records VMLINUX DUMP
 *   SEQ CALLER_ID CALLER_ID2 COMM_HEX     (COMM_HEX "-": no execution ctx)
 *
 * For tests/test_log_comm.py, which compares them with drgn's reading of
 * the same printk_info records.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "inodedump.h"

int main(int argc, char **argv)
{
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	struct inodedump *id;
	struct inodedump_log *log;
	struct inodedump_error *err;

	if (argc != 3) {
		fprintf(stderr, "usage: log_records VMLINUX DUMP\n");
		return 2;
	}
	opts.vmlinux = argv[1];
	err = inodedump_open(argv[2], &opts, &id);
	if (!err)
		err = inodedump_read_log(id, &log);
	if (err) {
		fprintf(stderr, "log_records: %s\n",
			inodedump_error_message(err));
		return 1;
	}
	for (size_t i = 0; i < inodedump_log_count(log); i++) {
		const struct inodedump_record *r = inodedump_log_record(log, i);

		printf("%" PRIu64 " %" PRIu32 " %" PRIu32 " ", r->seq,
		       r->caller_id, r->caller_id2);
		if (!r->has_execution_ctx)
			fputc('-', stdout);
		for (size_t k = 0; r->has_execution_ctx && r->comm[k]; k++)
			printf("%02x", (unsigned char)r->comm[k]);
		fputc('\n', stdout);
	}
	inodedump_log_free(log);
	inodedump_close(id);
	return 0;
}
