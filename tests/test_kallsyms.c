// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dump's kallsyms as a run without vmlinux reads them (issue 16):
 * opens the dump with no vmlinux to find, then answers lookups from
 * standard input, one a line, for test_btf.py to hold against vmlinux's
 * own symbol table:
 *
 *	N name      ->  N name 0xADDR | N name -
 *	A 0xADDR    ->  A 0xADDR name[+0xOFF] | A 0xADDR -
 *
 * The first line out says how the table is read: "lazy L by-name B
 * count N" (L: read on demand; B: names found without decoding all).
 *
 *	test_kallsyms VMCORE EMPTY_DIR
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/session.h"
#include "inodedump.h"
#include "types/types.h"

int main(int argc, char **argv)
{
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	struct inodedump *id = NULL;
	struct inodedump_error *err;
	const struct idd_kallsyms *ks;
	char line[1024];

	if (argc != 3) {
		fprintf(stderr, "usage: %s VMCORE EMPTY_DIR\n", argv[0]);
		return 2;
	}
	unsetenv("DEBUGINFOD_URLS");
	opts.debug_root = argv[2];
	err = inodedump_open(argv[1], &opts, &id);
	if (err) {
		fprintf(stderr, "test_kallsyms: %s\n", inodedump_error_message(err));
		return 1;
	}
	ks = idd_symbols_kallsyms(id->syms);
	if (!ks) {
		fprintf(stderr, "test_kallsyms: symbols not from kallsyms\n");
		return 1;
	}
	printf("lazy %d by-name %d count %zu\n", idd_kallsyms_is_lazy(ks),
	       idd_kallsyms_by_name(ks), idd_kallsyms_count(ks));
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'N' && line[1] == ' ') {
			uint64_t a;

			if (idd_symbols_address(id->syms, line + 2, &a))
				printf("N %s 0x%" PRIx64 "\n", line + 2, a);
			else
				printf("N %s -\n", line + 2);
		} else if (line[0] == 'A' && line[1] == ' ') {
			uint64_t a = strtoull(line + 2, NULL, 16);
			char *name = NULL;

			err = idd_symbols_name(id->syms, a, &name);
			if (err) {
				fprintf(stderr, "test_kallsyms: %s\n",
					inodedump_error_message(err));
				return 1;
			}
			printf("A 0x%" PRIx64 " %s\n", a, name ? name : "-");
			free(name);
		}
	}
	inodedump_close(id);
	return 0;
}
