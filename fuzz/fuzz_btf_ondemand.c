// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dump's BTF read on demand (lib/types/btf.c, "on demand"): the
 * kernel's index of its BTF found from btf_vmlinux and checked
 * (lazy_open), records and strings read and checked one at a time
 * (lazy_type, index_page_ok, lazy_str), lookups by binary search
 * (lazy_lookup), sizes (lazy_size), and the fall back to reading the
 * BTF whole with libbpf (lazy_settle) when anything is amiss. An input is
 * a 16-byte header (the offsets in the image of btf_vmlinux, __start_BTF
 * and __stop_BTF, and a spare word) and the image, read at IMAGE through
 * a memory target. Seeds: fuzz/tools/make_btf_ondemand_seeds.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "types/types.h"

#define IMAGE 0xffffffff82000000ull
#define HEADER 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(const char *name, int64_t value, void *arg)
{
	(void)name;
	(void)value;
	++*(unsigned *)arg;
}

static void ask(struct idd_btf *b, const char *sname)
{
	static const char *const paths[] = {
		"i_mode", "i_sb", "i_nlink", "__i_nlink", "i_generation",
		"i_name", "s_id", "types", "nr_types", "named_start_id",
		"no_such", "", ".", "i_sb.s_id",
	};
	struct idd_struct s;
	struct inodedump_error *err = idd_btf_struct(b, sname, &s);

	if (getenv("IDD_FUZZ_VERBOSE"))
		fprintf(stderr, "struct %s: %s\n", sname,
			err ? err->message : "found");
	if (err) {
		inodedump_error_free(err);
		return;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct idd_member m;
		struct idd_struct p;
		unsigned n = 0;

		idd_btf_types_member(b, &s, paths[i], &m);
		if (m.present && (m.size > s.size || m.offset > s.size - m.size))
			abort(); /* members are promised inside their struct */
		if (getenv("IDD_FUZZ_VERBOSE"))
			fprintf(stderr, "  %s: %s offset %llu size %llu\n",
				paths[i], m.present ? "present" : "absent",
				(unsigned long long)m.offset,
				(unsigned long long)m.size);
		if (!m.present)
			continue;
		if (m.kind == IDD_KIND_PTR) {
			inodedump_error_free(idd_btf_pointee(b, &m, &p));
		}
		idd_btf_member_enum(&m, count, &n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct idd_memory_region r = { IMAGE, data + HEADER,
				       size > HEADER ? size - HEADER : 0 };
	struct idd_target *t = NULL;
	struct idd_btf *b;
	uint32_t h[4];
	int64_t v;
	unsigned n = 0;

	if (size < HEADER)
		return 0;
	memcpy(h, data, sizeof(h));
	inodedump_error_free(idd_target_open_memory(&r, 1, NULL, &t));
	if (!t)
		return 0;
	b = idd_btf_open_on_demand(t, IMAGE + h[0], IMAGE + h[1], IMAGE + h[2],
				   NULL);
	if (getenv("IDD_FUZZ_VERBOSE"))
		fprintf(stderr, "on demand: %s\n", b ? "yes" : "no");
	if (b) {
		ask(b, "inode");
		ask(b, "super_block");
		ask(b, "btf");
		ask(b, "no_such_struct");
		if (idd_btf_enumerator_in(b, "dentry_flags", "DCACHE_ENTRY_TYPE",
					  &v) &&
		    getenv("IDD_FUZZ_VERBOSE"))
			fprintf(stderr, "DCACHE_ENTRY_TYPE %lld\n", (long long)v);
		idd_btf_enum(b, "dentry_flags", count, &n);
		idd_btf_enumerator(b, "DCACHE_DIRECTORY_TYPE", &v);
		idd_btf_free(b);
	}
	idd_target_close(t);
	return 0;
}
