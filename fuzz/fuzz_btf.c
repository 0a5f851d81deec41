// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target f (added with lib/btf.c, now lib/types/btf_lazy.c): BTF read from the dump's memory. The
 * committed vmlinux is debug-only (its .BTF is NOBITS), so idd_btfl_load()
 * copies __start_BTF..__stop_BTF (1.5 MB) out of the dump and parses it;
 * paths.c then asks it for struct mount's members. The image (same format
 * as the other memory targets) is seeded with a small BTF built from the
 * fixture's real struct mount layout at __start_BTF, zero-filled up to
 * __stop_BTF; the fuzzer mutates the blob and where it lies.
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
	/* What paths.c asks, and a few more shapes of question. */
	static const char *const q[][2] = {
		{ "mount", "mnt_parent" },	{ "mount", "mnt_mountpoint" },
		{ "mount", "mnt.mnt_root" },	{ "mount", "mnt_instance" },
		{ "mount", "mnt_instance.next" }, { "mount", "mnt_count" },
		{ "mount", "mnt_next_for_sb" },	{ "mount", "mnt" },
		{ "mount", "mnt.no_such" },	{ "vfsmount", "mnt_root" },
		{ "list_head", "next" },	{ "no_such_struct", "x" },
		{ "mount", "" },		{ "mount", "." },
	};
	struct inodedump *id = fuzz_session();
	struct idd_btfl *btf = NULL;
	uint64_t first;

	fuzz_image_load(data, size, &first);
	inodedump_error_free(idd_btfl_load(id->types, id->syms, id->target, &btf));
	if (btf) {
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			struct idd_member m;

			bool found = idd_btfl_member(btf, q[i][0], q[i][1], &m);

			if (found && !m.present)
				abort();
			if (getenv("IDD_FUZZ_VERBOSE"))
				fprintf(fuzz_sink(), "%s.%s: %s offset %llu "
					"size %llu\n", q[i][0], q[i][1],
					found ? "found" : "absent",
					(unsigned long long)m.offset,
					(unsigned long long)m.size);
		}
		idd_btfl_free(btf);
	}
	fuzz_image_release();
	return 0;
}
