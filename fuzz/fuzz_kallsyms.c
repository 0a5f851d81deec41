// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kallsyms read on demand (lib/types/kallsyms.c, idd_kallsyms_open_lazy):
 * tables found by their layout in memory the dump gives, then looked up by
 * name and by address (and decoded whole where seqs_of_names is not
 * found). An input is a 32-byte header (num_syms; the offsets in the image
 * of kallsyms_names, _token_table, _token_index, _offsets and
 * _relative_base, 0: none) and the image, read at IMAGE. Seeds:
 * fuzz/tools/make_kallsyms_seeds.py (three eras' layouts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

#define IMAGE 0xffffffff82000000ull
#define HEADER 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct image {
	const uint8_t *bytes;
	size_t len;
};

static bool image_read(void *arg, uint64_t addr, void *out, size_t len)
{
	const struct image *m = arg;

	if (addr < IMAGE || addr - IMAGE > m->len ||
	    len > m->len - (addr - IMAGE))
		return false;
	memcpy(out, m->bytes + (addr - IMAGE), len);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"dup_name", "alias_first", "alias_second", "f00000_0",
		"f07919_1", "", "zzzz", "f",
	};
	struct image m = { data + HEADER, size > HEADER ? size - HEADER : 0 };
	struct idd_kallsyms_tables tab = { 0 };
	struct idd_kallsyms_places at = { 0 };
	struct idd_kallsyms *ks = NULL;
	struct inodedump_error *err;
	uint32_t h[6];
	uint16_t index[256];
	char tokens[256 * 64];
	size_t tokens_len = 0;

	if (size < HEADER)
		return 0;
	memcpy(h, data, sizeof(h));
	at.names = IMAGE + h[1];
	at.token_table = IMAGE + h[2];
	at.relative_base = h[5] ? IMAGE + h[5] : 0;
	if (!image_read(&m, IMAGE + h[3], index, sizeof(index)))
		return 0;
	for (int i = 0; i < 256; i++)
		tokens_len = index[i] > tokens_len ? index[i] : tokens_len;
	tokens_len += 256;
	if (tokens_len > sizeof(tokens) ||
	    !image_read(&m, at.token_table, tokens, tokens_len))
		return 0;
	tab.num_syms = h[0];
	tab.token_table = tokens;
	tab.token_table_len = tokens_len;
	tab.token_index = index;
	tab.offsets_addr = IMAGE + h[4];
	if (h[5]) {
		tab.has_relative_base = true;
		if (!image_read(&m, at.relative_base, &tab.relative_base, 8))
			return 0;
	}
	err = idd_kallsyms_open_lazy(&tab, &at, image_read, &m, NULL, &ks);
	inodedump_error_free(err);
	if (getenv("IDD_FUZZ_VERBOSE"))
		fprintf(stderr, "opened: %s; by name %d\n",
			ks ? "lazy" : "no layout", ks && idd_kallsyms_by_name(ks));
	if (!ks)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t a;

		if (idd_kallsyms_address(ks, names[i], &a)) {
			char *n = NULL;

			inodedump_error_free(idd_kallsyms_name(ks, a, &n));
			if (getenv("IDD_FUZZ_VERBOSE"))
				fprintf(stderr, "%s at 0x%llx, named %s\n",
					names[i], (unsigned long long)a,
					n ? n : "-");
			free(n);
		}
	}
	for (uint64_t a = 0xffffffff81000000ull; a < 0xffffffff81003000ull;
	     a += 0x3f1) {
		char *n = NULL;

		inodedump_error_free(idd_kallsyms_name(ks, a, &n));
		free(n);
	}
	idd_kallsyms_free(ks);
	return 0;
}
