// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reproducer: a session over a memory target (idd_target_open_memory() +
 * idd_open_target()) crashes in inodedump_fact(id, "arch"):
 * idd_target_arch() calls kdump_get_string_attr(t->ctx, ...) and a memory
 * target has no kdump context (t->ctx == NULL): SEGV in kdump_get_attr.
 * idd_target_page_size(), idd_target_uts_release() and
 * idd_target_default_arch() have the same NULL context.
 *
 * Build and run from the repository root:
 *   clang-14 -fsanitize=address -D_GNU_SOURCE -Ifuzz -Ilib -Iinclude \
 *     fuzz/crashes/memory-target-fact-arch.c lib/[a-z]*.c \
 *     -lkdumpfile -laddrxlat -ldw -lelf -o /tmp/fact-arch && /tmp/fact-arch
 */
#include <stdio.h>

#include "internal.h"

int main(void)
{
	struct idd_target *t;
	struct inodedump *id;
	struct inodedump_error *err;

	err = idd_target_open_memory(NULL, 0, "OSRELEASE=6.12.118\n", &t);
	if (!err)
		err = idd_open_target(t, "tests/vmcores/committed/vmlinux", &id);
	if (err) {
		fprintf(stderr, "%s\n", inodedump_error_message(err));
		return 1;
	}
	printf("arch %s\n", inodedump_fact(id, "arch")); /* SEGV */
	inodedump_close(id);
	return 0;
}
