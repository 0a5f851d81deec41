// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target b: the printk ring walk over a memory image seeded with the real
 * ring of the committed fixture (prb, struct printk_ringbuffer, descriptors,
 * infos, text data): inodedump_read_log(), inodedump_find_reports(),
 * inodedump_log_print().
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_session();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inodedump *id = fuzz_session();
	struct inodedump_log *log = NULL;
	struct inodedump_error *err;
	struct inodedump_report *reps = NULL;
	uint64_t first;
	size_t n, count;

	fuzz_image_load(data, size, &first);
	err = inodedump_read_log(id, &log);
	if (err) {
		if (!inodedump_error_message(err))
			abort();
		inodedump_error_free(err);
		fuzz_image_release();
		return 0;
	}
	count = inodedump_log_count(log);
	for (size_t i = 0; i < count; i++) {
		const struct inodedump_record *r = inodedump_log_record(log, i);

		if (!r || (r->text_len && !r->text))
			abort();
	}
	if (inodedump_log_record(log, count))
		abort();
	(void)inodedump_log_warning(log);
	err = inodedump_find_reports(log, &reps, &n);
	if (err) {
		if (inodedump_error_code(err) != INODEDUMP_ERR_NOMEM)
			abort(); /* the only way it may fail */
		inodedump_error_free(err);
		n = 0;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(fuzz_sink(), "report %s at 0x%llx seq %llu %s %s\n",
			reps[i].reason, (unsigned long long)reps[i].address,
			(unsigned long long)reps[i].seq, reps[i].location,
			reps[i].task);
	free(reps);
	inodedump_log_print(log, fuzz_sink());
	inodedump_log_free(log);
	fuzz_image_release();
	return 0;
}
