// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reproducer: a session over a memory target ignores VMCOREINFO's
 * KERNELOFFSET for symbols. idd_open_target() opens the symbol table with
 * offset 0, then find_kaslr() sets id->kaslr from KERNELOFFSET and returns
 * without idd_symbols_set_kaslr() (only the derived-offset branch calls
 * it; inodedump_open() instead passes the offset to idd_symbols_open()).
 * So no runtime address is named (i_op etc. print as bare hex) and
 * init_task, modules, prb (when not in VMCOREINFO), __start_BTF are looked
 * for at their link-time addresses. fuzz/harness.c works around it.
 *
 * Build and run from the repository root:
 *   clang-14 -D_GNU_SOURCE -Ifuzz -Ilib -Iinclude \
 *     fuzz/crashes/memory-session-kaslr.c lib/[a-z]*.c \
 *     -lkdumpfile -laddrxlat -ldw -lelf -o /tmp/kaslr && /tmp/kaslr
 * prints "(none)" for both; expected "shmem_symlink_inode_operations" and
 * 0xffffffffad20a540.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int main(void)
{
	struct idd_target *t;
	struct inodedump *id;
	struct inodedump_error *err;
	uint64_t init_task = 0;
	char *name;

	err = idd_target_open_memory(NULL, 0,
				     "OSRELEASE=6.12.118\nKERNELOFFSET=2b800000\n",
				     &t);
	if (!err)
		err = idd_open_target(t, "tests/vmcores/committed/vmlinux", &id);
	if (err) {
		fprintf(stderr, "%s\n", inodedump_error_message(err));
		return 1;
	}
	/* The victim inode's i_op in the committed fixture (KASLR applied). */
	err = idd_symbols_name(id->syms, 0xfffffffface12c40ull, &name);
	if (err) {
		fprintf(stderr, "%s\n", inodedump_error_message(err));
		return 1;
	}
	printf("kaslr 0x%llx, i_op 0xfffffffface12c40 is %s\n",
	       (unsigned long long)id->kaslr, name ? name : "(none)");
	idd_symbols_address(id->syms, "init_task", &init_task);
	printf("init_task at 0x%llx\n", (unsigned long long)init_task);
	free(name);
	inodedump_close(id);
	return 0;
}
