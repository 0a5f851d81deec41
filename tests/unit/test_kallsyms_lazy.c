// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kallsyms read on demand (kallsyms.c, idd_kallsyms_open_lazy): the
 * tables laid out in memory as scripts/kallsyms.c lays them out in each
 * era (6.4 and later with kallsyms_relative_base; 7.3's 4-byte alignment
 * and place-relative offsets; 6.2/6.3 with kallsyms_seqs_of_names before
 * the token table; 6.1 and before without it, 8-byte markers too), found
 * from the places VMCOREINFO names, looked up by name and by address
 * against the addresses they were built from; then damaged. And the same
 * tables found without those places (kallsyms_find.c): each era's layout
 * found at the places it was built at, and images with no tables, or
 * tables that disagree with each other or with the anchors, refused; and
 * a big-endian kernel's tables (s390x), read and found in its order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "types/kallsyms_internal.h"
#include "types/types.h"

#define N 20000
#define BASE 0xffffffff82000000ull
#define TEXT 0xffffffff81000000ull

static char names[N][32];
static uint64_t addrs[N];

/* The memory the tables are read from, and how much of it was read. */
static struct mem {
	uint8_t buf[1 << 20];
	size_t len;
	size_t bytes_read;
} mem;

static bool mem_read(void *arg, uint64_t addr, void *out, size_t len)
{
	struct mem *m = arg;

	if (addr < BASE || addr - BASE > m->len || len > m->len - (addr - BASE))
		return false;
	memcpy(out, m->buf + (addr - BASE), len);
	m->bytes_read += len;
	return true;
}

static uint64_t here(void)
{
	return BASE + mem.len;
}

static void align_to(unsigned a)
{
	while (mem.len % a)
		mem.buf[mem.len++] = 0;
}

/* The image's integers in a big-endian kernel's order (s390x) when set. */
static bool big_image;

static void put_int(uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mem.buf[mem.len + (big_image ? n - 1 - i : i)] =
			(uint8_t)(v >> (8 * i));
	mem.len += n;
}

static void put(const void *p, size_t n)
{
	memcpy(mem.buf + mem.len, p, n);
	mem.len += n;
}

/* Symbols: addresses rising (two aliases, a name twice), names unsorted. */
static void make_symbols(void)
{
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%05u_%d",
			 (unsigned)((i * 7919u) % 100003u), i % 7);
		addrs[i] = TEXT + 0x20ull * i;
	}
	addrs[11] = addrs[10]; /* an alias: names[10] comes first */
	strcpy(names[10], "alias_first");
	strcpy(names[11], "alias_second");
	strcpy(names[500], "dup_name");
	strcpy(names[9000], "dup_name"); /* the lower address wins */
}

static int by_name(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b, c = strcmp(names[x], names[y]);

	if (c)
		return c;
	if (addrs[x] != addrs[y])
		return addrs[x] < addrs[y] ? -1 : 1;
	return x - y;
}

enum era { E64, E73, E62, E61 };

struct layout {
	struct idd_kallsyms_tables tab;
	struct idd_kallsyms_places at;
	char tokens[513];
	uint16_t index[256];
	uint64_t names_len, markers_at, seqs_at, token_index_at;
};

static void emit_offsets(struct layout *l, bool relative_base, unsigned align)
{
	align_to(align);
	l->tab.offsets_addr = here();
	for (int i = 0; i < N; i++) {
		int32_t off = relative_base
				      ? (int32_t)(uint32_t)(addrs[i] - TEXT)
				      : (int32_t)(int64_t)(addrs[i] -
							   (here()));
		put_int((uint32_t)off, 4);
	}
	if (relative_base) {
		uint64_t base = TEXT;

		align_to(align);
		l->at.relative_base = here();
		l->tab.relative_base = base;
		l->tab.has_relative_base = true;
		put_int(base, 8);
	}
}

static void emit_names(struct layout *l, unsigned align, unsigned width)
{
	uint64_t markers[(N + 255) / 256], count = N;
	uint64_t start;

	align_to(align);
	put_int(count, 4);
	align_to(align);
	l->at.names = start = here();
	for (int i = 0; i < N; i++) {
		size_t len = strlen(names[i]) + 1;

		if (!(i & 255))
			markers[i >> 8] = here() - start;
		mem.buf[mem.len++] = (uint8_t)len;
		mem.buf[mem.len++] = 'T';
		put(names[i], len - 1);
	}
	l->names_len = here() - start;
	align_to(align);
	l->markers_at = here();
	for (int k = 0; k < (N + 255) / 256; k++)
		put_int(markers[k], width);
}

static void emit_seqs(struct layout *l, unsigned align)
{
	static int order[N];

	for (int i = 0; i < N; i++)
		order[i] = i;
	qsort(order, N, sizeof(order[0]), by_name);
	align_to(align);
	l->seqs_at = here();
	for (int i = 0; i < N; i++) {
		uint8_t b[3] = { (uint8_t)(order[i] >> 16),
				 (uint8_t)(order[i] >> 8), (uint8_t)order[i] };

		put(b, 3);
	}
}

static void emit_tokens(struct layout *l, unsigned align)
{
	/*
	 * One token per character: token c is "c"; token 0, which no name
	 * uses, "@@" (scripts/kallsyms.c leaves no token empty); a byte no
	 * symbol's name has, which no name uses either, "~".
	 */
	memcpy(l->tokens, "@@", 3);
	for (int c = 1; c < 256; c++) {
		l->tokens[2 * c + 1] = c > ' ' && c < 0x7f ? (char)c : '~';
		l->index[c] = (uint16_t)(2 * c + 1);
	}
	align_to(align);
	l->at.token_table = here();
	put(l->tokens, sizeof(l->tokens));
	align_to(align);
	l->token_index_at = here();
	for (int c = 0; c < 256; c++)
		put_int(l->index[c], 2);
	l->tab.token_table = l->tokens;
	l->tab.token_table_len = sizeof(l->tokens);
	l->tab.token_index = l->index;
}

static void build(enum era era, unsigned width, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	memset(&mem, 0, sizeof(mem));
	l->tab.num_syms = N;
	switch (era) {
	case E64: /* 6.4 and later, before 7.0 */
	case E73: /* 7.3: labels aligned to 4, offsets place-relative */
		emit_names(l, era == E73 ? 4 : 8, width);
		emit_tokens(l, era == E73 ? 4 : 8);
		emit_offsets(l, era == E64, era == E73 ? 4 : 8);
		emit_seqs(l, era == E73 ? 4 : 8);
		break;
	case E62: /* 6.2, 6.3 */
	case E61: /* before */
		emit_offsets(l, true, 8);
		emit_names(l, 8, width);
		if (era == E62)
			emit_seqs(l, 8);
		emit_tokens(l, 8);
		break;
	}
}

static struct idd_kallsyms *open_lazy(struct layout *l)
{
	struct idd_kallsyms *ks = NULL;
	struct inodedump_error *err;

	l->tab.big_endian = big_image;
	err = idd_kallsyms_open_lazy(&l->tab, &l->at, mem_read, &mem, NULL, &ks);

	CHECKF(!err, "%s", err ? inodedump_error_message(err) : "");
	inodedump_error_free(err);
	return ks;
}

static void check_lookups(const char *what, struct idd_kallsyms *ks)
{
	static const int some[] = { 0, 1, 2, 255, 256, 257, 4095, 12345, N - 2, N - 1 };
	uint64_t a;
	char *n = NULL;
	int bad = 0;

	for (int i = 0; i < N; i += 97)
		if (i != 11 && i != 9000 &&
		    (!idd_kallsyms_address(ks, names[i], &a) || a != addrs[i]))
			bad++;
	for (size_t k = 0; k < sizeof(some) / sizeof(some[0]); k++)
		if (!idd_kallsyms_address(ks, names[some[k]], &a) ||
		    a != addrs[some[k]])
			bad++;
	CHECKF(!bad, "%s: %d names at the wrong address", what, bad);
	CHECKF(idd_kallsyms_address(ks, "dup_name", &a) && a == addrs[500],
	       "%s: a name twice: the lower address", what);
	CHECKF(!idd_kallsyms_address(ks, "no_such_symbol", &a) &&
	       !idd_kallsyms_address(ks, "", &a) &&
	       !idd_kallsyms_address(ks, "zzzz", &a), "%s: unknown names", what);
	bad = 0;
	for (int i = 0; i < N; i += 89) {
		if (i == 11)
			continue;
		if (idd_kallsyms_name(ks, addrs[i] + 3, &n) || !n ||
		    strncmp(n, names[i], strlen(names[i])) ||
		    strcmp(n + strlen(names[i]), "+0x3"))
			bad++;
		free(n);
		n = NULL;
	}
	CHECKF(!bad, "%s: %d addresses named wrong", what, bad);
	CHECKF(!idd_kallsyms_name(ks, addrs[11], &n) && n &&
	       !strcmp(n, "alias_first"), "%s: the first alias, got %s", what,
	       n ? n : "(none)");
	free(n);
	n = NULL;
	CHECKF(!idd_kallsyms_name(ks, TEXT - 1, &n) && !n, "%s: below all", what);
	CHECKF(!idd_kallsyms_name(ks, addrs[N - 1] + 0x20000, &n) && !n,
	       "%s: 64 KiB past the last", what);
}

static void test_era(const char *what, enum era era, unsigned width,
		     bool seqs)
{
	static struct layout l;
	struct idd_kallsyms *ks;
	uint64_t a;

	build(era, width, &l);
	ks = open_lazy(&l);
	if (!ks)
		return;
	CHECKF(idd_kallsyms_is_lazy(ks) && idd_kallsyms_count(ks) == N, "%s", what);
	CHECKF(idd_kallsyms_by_name(ks) == seqs, "%s: seqs_of_names %s", what,
	       seqs ? "found" : "absent");
	/* One name: a few blocks read, not the table (without seqs: all). */
	mem.bytes_read = 0;
	CHECKF(idd_kallsyms_address(ks, names[12345], &a) && a == addrs[12345],
	       "%s", what);
	CHECKF(seqs ? mem.bytes_read < l.names_len / 4
		    : mem.bytes_read >= l.names_len,
	       "%s: %zu bytes read for one name, of a %llu-byte table", what,
	       mem.bytes_read, (unsigned long long)l.names_len);
	check_lookups(what, ks);
	idd_kallsyms_free(ks);
}

static void test_damage(void)
{
	static struct layout l;
	struct idd_kallsyms *ks = NULL;
	struct inodedump_error *err;
	uint64_t a;
	uint32_t bad = 12345;

	/* A marker out of place: no layout fits, said. */
	build(E64, 4, &l);
	memcpy(mem.buf + (l.markers_at - BASE) + 4 * 3, &bad, 4);
	err = idd_kallsyms_open_lazy(&l.tab, &l.at, mem_read, &mem, NULL, &ks);
	CHECK(err && !ks && strstr(inodedump_error_message(err), "kallsyms_markers"));
	inodedump_error_free(err);

	/* A count no kernel has: refused before anything is read. */
	build(E64, 4, &l);
	for (int k = 0; k < 2; k++) {
		l.tab.num_syms = k ? 5u << 20 : 0;
		mem.bytes_read = 0;
		err = idd_kallsyms_open_lazy(&l.tab, &l.at, mem_read, &mem, NULL, &ks);
		CHECK(err && !ks && !mem.bytes_read &&
		      strstr(inodedump_error_message(err), "no kernel's count"));
		inodedump_error_free(err);
	}

	/* The last block's first name made longer: it runs into the markers. */
	build(E64, 4, &l);
	{
		uint32_t last;

		memcpy(&last, mem.buf + (l.markers_at - BASE) +
				      4 * ((N + 255) / 256 - 1), 4);
		mem.buf[l.at.names - BASE + last] = 0x7f;
	}
	err = idd_kallsyms_open_lazy(&l.tab, &l.at, mem_read, &mem, NULL, &ks);
	CHECK(err && !ks);
	inodedump_error_free(err);

	/* seqs_of_names naming no symbol: not used; names by a whole decode. */
	build(E64, 4, &l);
	memset(mem.buf + (l.seqs_at - BASE), 0xff, 3);
	ks = open_lazy(&l);
	if (ks) {
		CHECK(idd_kallsyms_is_lazy(ks) && !idd_kallsyms_by_name(ks));
		CHECK(idd_kallsyms_address(ks, names[77], &a) && a == addrs[77]);
		check_lookups("seqs_of_names damaged", ks);
	}
	idd_kallsyms_free(ks);

	/* seqs_of_names out of order (its last entry first): not used. */
	build(E64, 4, &l);
	memcpy(mem.buf + (l.seqs_at - BASE), mem.buf + (l.seqs_at - BASE) + 3 * (N - 1), 3);
	ks = open_lazy(&l);
	CHECK(ks && !idd_kallsyms_by_name(ks) &&
	      idd_kallsyms_address(ks, "dup_name", &a) && a == addrs[500]);
	idd_kallsyms_free(ks);

	/* Reads that fail after the open: names not found, no crash. */
	build(E64, 4, &l);
	ks = open_lazy(&l);
	if (ks) {
		char *n = NULL;

		mem.len = l.at.names - BASE + 64; /* the rest unreadable */
		CHECK(!idd_kallsyms_address(ks, names[12345], &a));
		CHECK(!idd_kallsyms_name(ks, addrs[12345], &n) && !n);
	}
	idd_kallsyms_free(ks);
}

/* The finder over the image: NULL when found (and *f filled). */
static struct inodedump_error *find(struct idd_ksym_anchor *a, size_t n,
				    struct idd_ksym_found *f)
{
	return idd_ksym_find(BASE, BASE + mem.len, BASE + mem.len, mem_read,
			     &mem, big_image, a, n, f);
}

static void test_find_era(const char *what, enum era era, unsigned width)
{
	static struct layout l;
	struct idd_ksym_anchor a[] = { { names[100], addrs[100] },
				       { names[15000], addrs[15000] },
				       { "not_in_kallsyms", TEXT } };
	struct idd_ksym_found f;
	struct inodedump_error *err;

	build(era, width, &l);
	err = find(a, 3, &f);
	CHECKF(!err, "%s: %s", what, err ? inodedump_error_message(err) : "");
	inodedump_error_free(err);
	if (err)
		return;
	CHECKF(f.names == l.at.names && f.token_table == l.at.token_table &&
	       f.token_index == l.token_index_at &&
	       f.markers == l.markers_at && f.offsets == l.tab.offsets_addr &&
	       f.relative_base == l.at.relative_base && f.count == N &&
	       f.num_syms == l.at.names - (era == E73 ? 4 : 8) &&
	       f.marker_width == width && f.seqs == (era == E62) &&
	       f.anchors_matched == 2,
	       "%s: names 0x%llx/0x%llx offsets 0x%llx/0x%llx base 0x%llx/0x%llx",
	       what, (unsigned long long)f.names,
	       (unsigned long long)l.at.names, (unsigned long long)f.offsets,
	       (unsigned long long)l.tab.offsets_addr,
	       (unsigned long long)f.relative_base,
	       (unsigned long long)l.at.relative_base);
}

static void test_find_refused(void)
{
	static struct layout l;
	struct idd_ksym_anchor a[] = { { names[100], addrs[100] } };
	struct idd_ksym_found f;
	struct inodedump_error *err;

	/* No tables at all: zeros, then text-like bytes. */
	memset(&mem, 0, sizeof(mem));
	mem.len = sizeof(mem.buf);
	err = find(a, 1, &f);
	CHECK(err && strstr(inodedump_error_message(err), "no kallsyms_token_index"));
	inodedump_error_free(err);
	for (size_t i = 0; i < mem.len; i++)
		mem.buf[i] = (uint8_t)("abc_def\0"[i % 8]);
	err = find(a, 1, &f);
	CHECK(err);
	inodedump_error_free(err);

	/* The tables, each damaged in turn: refused, never another place. */
	for (int k = 0; k < 6; k++) {
		build(E61, 4, &l);
		switch (k) {
		case 0: /* a token loses its NUL */
			mem.buf[l.at.token_table - BASE + 4] = 'x';
			break;
		case 1: /* the index no longer rising */
			memset(mem.buf + (l.token_index_at - BASE) + 100, 0, 4);
			break;
		case 2: { /* a marker moved */
			uint32_t v = 12345;

			memcpy(mem.buf + (l.markers_at - BASE) + 12, &v, 4);
			break;
		}
		case 3: /* num_syms one more than the names */
			mem.buf[l.at.names - BASE - 8] ^= 1;
			break;
		case 4: /* the first name's length */
			mem.buf[l.at.names - BASE] += 1;
			break;
		case 5: /* an offset out of order */
			memset(mem.buf + (l.tab.offsets_addr - BASE) + 4 * 7000, 0xee, 2);
			break;
		}
		err = find(a, 1, &f);
		CHECKF(err != NULL, "damage %d: refused", k);
		inodedump_error_free(err);
	}
	/* Token tables and indexes without the rest, many: given up on. */
	build(E61, 4, &l);
	{
		static uint8_t tokens[2048];
		size_t len = l.token_index_at + 512 - l.at.token_table;

		memcpy(tokens, mem.buf + (l.at.token_table - BASE), len);
		memset(&mem, 0, sizeof(mem));
		for (int k = 0; k < 40; k++) {
			align_to(8);
			put(tokens, len);
		}
		mem.bytes_read = 0;
		err = find(a, 1, &f);
		CHECKF(err && strstr(inodedump_error_message(err),
				     "more token tables than any kernel has"),
		       "%s", err ? inodedump_error_message(err) : "found");
		inodedump_error_free(err);
	}
	/* An anchor elsewhere than the tables say: refused. */
	build(E64, 4, &l);
	a[0].addr += 0x1000;
	err = find(a, 1, &f);
	CHECK(err && strstr(inodedump_error_message(err), "VMCOREINFO gives"));
	inodedump_error_free(err);
	/* No anchor the names hold: refused. */
	a[0].name = "not_in_kallsyms";
	err = find(a, 1, &f);
	CHECK(err && strstr(inodedump_error_message(err), "no symbol VMCOREINFO"));
	inodedump_error_free(err);
}

int main(void)
{
	make_symbols();
	test_era("6.4 and later", E64, 4, true);
	test_era("7.3 (aligned to 4, place-relative)", E73, 4, true);
	test_era("6.2, 6.3 (seqs_of_names before the tokens)", E62, 4, true);
	test_era("6.1 (no seqs_of_names)", E61, 4, false);
	test_era("older (8-byte markers)", E61, 8, false);
	test_damage();
	test_find_era("found: 6.4 and later", E64, 4);
	test_find_era("found: 7.3 (aligned to 4, place-relative)", E73, 4);
	test_find_era("found: 6.2, 6.3 (seqs_of_names before the tokens)", E62, 4);
	test_find_era("found: 5.10 (offsets first)", E61, 4);
	test_find_era("found: older (8-byte markers)", E61, 8);
	test_find_refused();
	/* A big-endian kernel's tables (s390x): read in the dump's order. */
	big_image = true;
	test_era("big-endian 6.4 and later", E64, 4, true);
	test_era("big-endian 6.1 (no seqs_of_names)", E61, 4, false);
	test_era("big-endian older (8-byte markers)", E61, 8, false);
	test_find_era("found big-endian: 6.4 and later", E64, 4);
	test_find_era("found big-endian: 5.10 (offsets first)", E61, 4);
	test_find_era("found big-endian: older (8-byte markers)", E61, 8);
	big_image = false;
	return check_summary("kallsyms read on demand, and found");
}
