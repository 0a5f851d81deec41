// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A type that lives in a module, from the dump alone (issue 16): with no
 * vmlinux, struct ext4_inode_info (ext4 is a module on Debian's kernels)
 * comes from the module BTF the dump's btf_modules list holds. Truth: the
 * same struct in the package's own files, ext4.ko's .BTF split on
 * vmlinux's .BTF, parsed by libbpf here: its size and every named member's
 * offset.
 *
 *	test_module_btf VMCORE EXT4_KO VMLINUX EMPTY_DIR
 */
#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

#include "unit/check.h"
#include "decode/session.h"
#include "inodedump.h"

int main(int argc, char **argv)
{
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	struct inodedump *id = NULL;
	struct inodedump_error *err;
	struct idd_struct s;
	struct btf *base, *split;
	const struct btf_type *t;
	const struct btf_member *m;
	__s32 tid;

	if (argc != 5) {
		fprintf(stderr, "usage: %s VMCORE EXT4_KO VMLINUX EMPTY_DIR\n",
			argv[0]);
		return 2;
	}
	setenv("INODEDUMP_NO_CACHE", "1", 1);
	unsetenv("DEBUGINFOD_URLS");
	opts.debug_root = argv[4];
	err = inodedump_open(argv[1], &opts, &id);
	CHECKF(!err, "%s", err ? inodedump_error_message(err) : "");
	if (err)
		return check_summary("module BTF");
	CHECK(inodedump_fact(id, INODEDUMP_FACT_VMLINUX) == NULL);
	/*
	 * Read on demand: through the kernel's index where vmlinux's .BTF is
	 * sorted, else from its start (the script says which, from .BTF).
	 */
	if (getenv("EXPECT_READING")) {
		const char *types = inodedump_fact(id, INODEDUMP_FACT_TYPES);

		CHECKF(types && strstr(types, getenv("EXPECT_READING")),
		       "types from %s, expected \"%s\"", types ? types : "(none)",
		       getenv("EXPECT_READING"));
	}

	base = btf__parse_elf(argv[3], NULL);
	split = base ? btf__parse_elf_split(argv[2], base) : NULL;
	CHECKF(base && split, "libbpf cannot read %s on %s", argv[2], argv[3]);
	if (!split)
		return check_summary("module BTF");
	tid = btf__find_by_name_kind(split, "ext4_inode_info", BTF_KIND_STRUCT);
	CHECK(tid > 0 && (__u32)tid >= btf__type_cnt(base));
	t = btf__type_by_id(split, (__u32)tid);

	err = idd_types_struct(id->types, "ext4_inode_info", &s);
	CHECKF(!err, "%s", err ? inodedump_error_message(err) : "");
	if (!err && t) {
		int compared = 0;

		CHECKF(s.btf && idd_btf_module(s.btf) &&
		       !strcmp(idd_btf_module(s.btf), "ext4"),
		       "module %s", s.btf ? idd_btf_module(s.btf) : "(vmlinux)");
		CHECKF(s.size == t->size, "size %llu, ext4.ko says %u",
		       (unsigned long long)s.size, t->size);
		m = btf_members(t);
		for (__u16 i = 0; i < btf_vlen(t); i++, m++) {
			const char *name = btf__name_by_offset(split, m->name_off);
			struct idd_member got;

			if (!name || !*name || btf_member_bitfield_size(t, i))
				continue;
			idd_types_member(id->types, &s, name, &got);
			CHECKF(got.present &&
			       got.offset * 8 == btf_member_bit_offset(t, i),
			       "%s at %llu, ext4.ko says bit %u", name,
			       (unsigned long long)got.offset,
			       btf_member_bit_offset(t, i));
			compared++;
		}
		CHECKF(compared > 20, "%d members compared", compared);
	}
	inodedump_error_free(err);
	/* vmlinux's own types still from vmlinux's BTF. */
	err = idd_types_struct(id->types, "inode", &s);
	CHECK(!err && !s.btf);
	inodedump_error_free(err);
	btf__free(split);
	btf__free(base);
	inodedump_close(id);
	return check_summary("module BTF: ext4_inode_info from the dump");
}
