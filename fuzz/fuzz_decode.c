// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Target e: the decode over mutated inode/superblock memory. The image
 * (one per truth inode of the committed fixture) holds the inode, its
 * superblock, s_type->name, i_link, the dentry and mount chains, the
 * task list's fd tables and the module list's kallsyms; the inode at the
 * start of its first record is decoded with FORCE|HOLDERS and printed as
 * text.
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
	fuzz_session_warm();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {
		"ino", "generation", "mode", "opflags", "flags", "state",
		"count", "nlink", "uid", "gid", "size", "blocks", "bytes",
		"blkbits", "rdev", "writecount", "version", "linklen",
		"link_strlen", "nrpages", "s_dev", "s_magic", "no-such-key",
	};
	struct inodedump_inode *ino = fuzz_decode_image(data, size);

	if (!ino)
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int64_t v;

		(void)inodedump_inode_number(ino, keys[i], &v);
	}
	(void)inodedump_inode_violations(ino);
	(void)inodedump_inode_type(ino);
	inodedump_inode_print_text(ino, fuzz_sink());
	fuzz_decode_done(ino);
	return 0;
}
