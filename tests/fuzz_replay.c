// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Replays fuzzer inputs through a libFuzzer target built without libFuzzer:
 * every reproducer in fuzz/crashes/ becomes a regression test of the
 * ordinary (sanitizer) build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		size_t size = 0;
		uint8_t *data = slurp(argv[i], &size);

		if (!data) {
			fprintf(stderr, "cannot read %s\n", argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		printf("replayed %s (%zu bytes): no crash, no leak, no hang\n",
		       argv[i], size);
	}
	printf("%d passed, 0 failed\n", argc - 1);
	return 0;
}
