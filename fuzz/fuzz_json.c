// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target d: the JSON writer. Each input is decoded as in fuzz_decode.c
 * (same images), written with inodedump_inode_print_json() to an
 * open_memstream, and the text must be one valid JSON object (json_check.c)
 * holding the schema's keys. Anything else aborts with the offending text.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_session_warm();
	return 0;
}

static void bad(const char *why, const char *text, size_t len, size_t where)
{
	fprintf(stderr, "fuzz_json: %s at byte %zu of %zu:\n%.*s\n", why, where,
		len, (int)len, text);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Keys README.md's schema promises in every INODE. */
	static const char *const keys[] = {
		"\"address\": ", "\"forced\": ", "\"type\": ", "\"mode\": ",
		"\"mode_string\": ", "\"opflags_names\": ", "\"violations\": ",
		"\"skipped_checks\": ", "\"errors\": ", "\"link\": ",
		"\"linklen\": ", "\"fs_type\": ", "\"s_op\": ",
	};
	struct inodedump_inode *ino = fuzz_decode_image(data, size);
	char *text = NULL;
	size_t len = 0, where;
	const char *why;
	FILE *f;

	if (!ino)
		return 0;
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	inodedump_inode_print_json(ino, f);
	fclose(f);
	why = json_check(text, len, &where);
	if (why)
		bad(why, text, len, where);
	if (len < 2 || text[0] != '{' || text[len - 1] != '}')
		bad("not a JSON object", text, len, 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(text, keys[i]))
			bad(keys[i], text, len, 0);
	if (getenv("IDD_FUZZ_VERBOSE"))
		fprintf(fuzz_sink(), "%s\n", text);
	free(text);
	fuzz_decode_done(ino);
	return 0;
}
