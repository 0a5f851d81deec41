// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The types layer without vmlinux, on tables built here: kallsyms in each
 * of the kernel's three address encodings (7.0's place-relative offsets,
 * before it relative to kallsyms_relative_base with and without absolute
 * per-CPU symbols), and BTF through libbpf (struct, anonymous union,
 * bitfield, enum, typedef and const, a pointer to a forward declaration),
 * each also damaged.
 */
#include <bpf/btf.h>
#include <linux/btf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "types/types.h"

/* ------------------------------------------------------------ kallsyms -- */

/*
 * One token per character: token c is the string "c", each right after
 * the one before as scripts/kallsyms.c writes them; a code no name uses
 * (0, the bytes no symbol's name has) stands for "~".
 */
static char token_table[256 * 2];
static uint16_t token_index[256];

static void make_tokens(void)
{
	for (int c = 0; c < 256; c++) {
		token_table[2 * c] = c > ' ' && c < 0x7f ? (char)c : '~';
		token_table[2 * c + 1] = '\0';
		token_index[c] = (uint16_t)(2 * c);
	}
}

/* Append "T" + name to a names table: a length byte (two if long). */
static size_t add_name(uint8_t *names, size_t off, char type, const char *name)
{
	size_t len = strlen(name) + 1;

	if (len > 127) {
		names[off++] = (uint8_t)(0x80 | (len & 0x7f));
		names[off++] = (uint8_t)(len >> 7);
	} else {
		names[off++] = (uint8_t)len;
	}
	names[off++] = (uint8_t)type;
	memcpy(names + off, name, len - 1);
	return off + len - 1;
}

static char long_name[201];

static const struct {
	char type;
	const char *name;
} syms[] = {
	{ 'D', "fixed_percpu_data" }, /* per-CPU, at 0 (absolute mode) */
	{ 'T', "_text" },
	{ 'T', "start_kernel" },
	{ 'R', "ops_alias_first" },
	{ 'R', "ops_alias_second" },
	{ 'd', NULL /* long_name */ },
	{ 'B', "_end" },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

/* Addresses the tables must decode to, in each mode. */
static const uint64_t text = 0xffffffff81000000ull;
static const uint64_t rel_want[NSYMS] = {
	0xffffffff81000000ull, 0xffffffff81000000ull, 0xffffffff81000100ull,
	0xffffffff82000000ull, 0xffffffff82000000ull, 0xffffffff82000040ull,
	0xffffffff83000000ull,
};

static void check_decoded(const char *mode, struct idd_kallsyms *ks,
			  const uint64_t *want)
{
	uint64_t a;
	char *n;

	CHECKF(idd_kallsyms_count(ks) == NSYMS, "%s: %zu symbols", mode,
	       idd_kallsyms_count(ks));
	for (size_t i = 1; i < NSYMS; i++) {
		const char *name = syms[i].name ? syms[i].name : long_name;

		CHECKF(idd_kallsyms_address(ks, name, &a) && a == want[i],
		       "%s: %s at 0x%llx, want 0x%llx", mode, name,
		       (unsigned long long)a, (unsigned long long)want[i]);
	}
	CHECKF(!idd_kallsyms_address(ks, "no_such_symbol", &a), "%s", mode);
	/* The first of two aliases names the address, as the kernel's. */
	CHECK(!idd_kallsyms_name(ks, want[3], &n) && n &&
	      !strcmp(n, "ops_alias_first"));
	free(n);
	CHECK(!idd_kallsyms_name(ks, want[3] + 0x18, &n) && n &&
	      !strcmp(n, "ops_alias_first+0x18"));
	free(n);
	CHECK(!idd_kallsyms_name(ks, want[5] + 1, &n) && n &&
	      !strncmp(n, long_name, 200) && !strcmp(n + 200, "+0x1"));
	free(n);
	/* Past the last symbol by 64 KiB: nobody's. */
	CHECK(!idd_kallsyms_name(ks, want[6] + 0x20000, &n) && !n);
	CHECK(!idd_kallsyms_name(ks, want[6] + 0x100, &n) && n &&
	      !strcmp(n, "_end+0x100"));
	free(n);
}

static void test_kallsyms(void)
{
	uint8_t names[4096];
	int32_t offs[NSYMS];
	size_t len = 0;
	struct idd_kallsyms_tables t = {
		.num_syms = NSYMS, .names = names,
		.token_table = token_table, .token_table_len = sizeof(token_table),
		.token_index = token_index, .offsets = offs,
	};
	struct idd_kallsyms *ks = NULL;
	struct inodedump_error *err;
	uint64_t want[NSYMS];

	make_tokens();
	memset(long_name, 'x', 200);
	for (size_t i = 0; i < NSYMS; i++)
		len = add_name(names, len, syms[i].type,
			       syms[i].name ? syms[i].name : long_name);
	t.names_len = len;

	/* Relative to kallsyms_relative_base, no absolute per-CPU. */
	t.has_relative_base = true;
	t.relative_base = text;
	for (size_t i = 0; i < NSYMS; i++)
		offs[i] = (int32_t)(uint32_t)(rel_want[i] - text);
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECKF(!err, "%s", err ? inodedump_error_message(err) : "");
	if (ks)
		check_decoded("relative", ks, rel_want);
	idd_kallsyms_free(ks);
	ks = NULL;

	/* Absolute per-CPU: >= 0 is the value, < 0 is base - 1 - offset. */
	memcpy(want, rel_want, sizeof(want));
	want[0] = 0;
	offs[0] = 0;
	for (size_t i = 1; i < NSYMS; i++)
		offs[i] = (int32_t)-(int64_t)(rel_want[i] - text) - 1;
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECK(!err);
	if (ks) {
		uint64_t a;

		check_decoded("absolute per-CPU", ks, want);
		CHECK(idd_kallsyms_address(ks, "fixed_percpu_data", &a) && a == 0);
	}
	idd_kallsyms_free(ks);
	ks = NULL;

	/* 7.0: place-relative, &kallsyms_offsets[i] + kallsyms_offsets[i]. */
	t.has_relative_base = false;
	t.offsets_addr = 0xffffffff82800000ull;
	for (size_t i = 0; i < NSYMS; i++)
		offs[i] = (int32_t)(int64_t)(rel_want[i] -
					     (t.offsets_addr + 4 * i));
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECK(!err);
	if (ks)
		check_decoded("place-relative", ks, rel_want);
	idd_kallsyms_free(ks);
	ks = NULL;

	/* A names table cut short, a count no kernel has: errors. */
	t.names_len = len - 3;
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECK(err && !ks &&
	      strstr(inodedump_error_message(err), "runs past the table"));
	inodedump_error_free(err);
	t.names_len = len;
	/* A token out of place (issue 41): names it makes are not the kernel's. */
	token_index['s'] += 1;
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECK(err && !ks && strstr(inodedump_error_message(err),
				   "kallsyms_token_index"));
	inodedump_error_free(err);
	token_index['s'] -= 1;
	/* A byte no name has in a token: the same. */
	token_table[2 * 'q'] = '\n';
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECK(err && !ks);
	inodedump_error_free(err);
	token_table[2 * 'q'] = 'q';
	t.num_syms = 0;
	err = idd_kallsyms_from_tables(&t, &ks);
	CHECK(err && !ks);
	inodedump_error_free(err);
}

/* ----------------------------------------------------------------- BTF -- */

struct blob {
	uint8_t types[1024];
	size_t ntypes_len;
	char strings[512];
	size_t strings_len;
};

static uint32_t str(struct blob *b, const char *s)
{
	uint32_t off = (uint32_t)b->strings_len;

	if (!*s)
		return 0;
	memcpy(b->strings + off, s, strlen(s) + 1);
	b->strings_len += strlen(s) + 1;
	return off;
}

static void u32s(struct blob *b, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		uint32_t v = va_arg(ap, uint32_t);

		memcpy(b->types + b->ntypes_len, &v, 4);
		b->ntypes_len += 4;
	}
	va_end(ap);
}

#define INFO(kind, vlen, kflag) \
	((uint32_t)(kind) << 24 | (uint32_t)(vlen) | (uint32_t)(kflag) << 31)

/* The BTF bytes: header, types, strings; *size their length. */
static uint8_t *make_btf(size_t *size)
{
	static struct blob b;
	uint8_t *out;
	uint32_t hdr[6];

	memset(&b, 0, sizeof(b));
	b.strings_len = 1; /* "" at 0 */
	/* 1: int, 2: unsigned int */
	u32s(&b, 4, str(&b, "int"), INFO(BTF_KIND_INT, 0, 0), 4u,
	     (uint32_t)BTF_INT_SIGNED << 24 | 32);
	u32s(&b, 4, str(&b, "unsigned int"), INFO(BTF_KIND_INT, 0, 0), 4u, 32u);
	/* 3: struct inner * */
	u32s(&b, 3, 0u, INFO(BTF_KIND_PTR, 0, 0), 4u);
	/* 4: struct inner { int a; unsigned int b; } */
	u32s(&b, 3, str(&b, "inner"), INFO(BTF_KIND_STRUCT, 2, 0), 8u);
	u32s(&b, 3, str(&b, "a"), 1u, 0u);
	u32s(&b, 3, str(&b, "b"), 2u, 32u);
	/* 5: struct outer (kflag: bitfield sizes in the offsets) */
	u32s(&b, 3, str(&b, "outer"), INFO(BTF_KIND_STRUCT, 7, 1), 40u);
	u32s(&b, 3, str(&b, "x"), 1u, 0u);
	u32s(&b, 3, 0u, 6u, 32u); /* anonymous union */
	u32s(&b, 3, str(&b, "p"), 3u, 64u);
	u32s(&b, 3, str(&b, "bits"), 2u, 3u << 24 | 133u);
	u32s(&b, 3, str(&b, "e"), 7u, 160u);
	u32s(&b, 3, str(&b, "td"), 8u, 192u);
	u32s(&b, 3, str(&b, "fp"), 11u, 256u);
	/* 6: union { int u1; unsigned int u2; } */
	u32s(&b, 3, 0u, INFO(BTF_KIND_UNION, 2, 0), 4u);
	u32s(&b, 3, str(&b, "u1"), 1u, 0u);
	u32s(&b, 3, str(&b, "u2"), 2u, 0u);
	/* 7: enum color { RED = 1, BIG = 0x80000000 } (unsigned) */
	u32s(&b, 3, str(&b, "color"), INFO(BTF_KIND_ENUM, 2, 0), 4u);
	u32s(&b, 2, str(&b, "RED"), 1u);
	u32s(&b, 2, str(&b, "BIG"), 0x80000000u);
	/* 8: typedef const int myint; 9: const int */
	u32s(&b, 3, str(&b, "myint"), INFO(BTF_KIND_TYPEDEF, 0, 0), 9u);
	u32s(&b, 3, 0u, INFO(BTF_KIND_CONST, 0, 0), 1u);
	/* 10: struct inner; (forward) 11: pointer to it */
	u32s(&b, 3, str(&b, "inner"), INFO(BTF_KIND_FWD, 0, 0), 0u);
	u32s(&b, 3, 0u, INFO(BTF_KIND_PTR, 0, 0), 10u);
	/* 12: a struct whose member lies outside it; 13: one too big */
	u32s(&b, 3, str(&b, "liar"), INFO(BTF_KIND_STRUCT, 1, 0), 4u);
	u32s(&b, 3, str(&b, "far"), 1u, 800u);
	u32s(&b, 3, str(&b, "huge"), INFO(BTF_KIND_STRUCT, 0, 0), 0x7fffffffu);

	hdr[0] = BTF_MAGIC | 1u << 16; /* magic, version 1, flags 0 */
	hdr[1] = 24;
	hdr[2] = 0;
	hdr[3] = (uint32_t)b.ntypes_len;
	hdr[4] = (uint32_t)b.ntypes_len;
	hdr[5] = (uint32_t)b.strings_len;
	*size = 24 + b.ntypes_len + b.strings_len;
	out = malloc(*size);
	memcpy(out, hdr, 24);
	memcpy(out + 24, b.types, b.ntypes_len);
	memcpy(out + 24 + b.ntypes_len, b.strings, b.strings_len);
	return out;
}

struct seen {
	int64_t red, big;
	int n;
};

static void collect(const char *name, int64_t value, void *arg)
{
	struct seen *s = arg;

	s->n++;
	if (!strcmp(name, "RED"))
		s->red = value;
	if (!strcmp(name, "BIG"))
		s->big = value;
}

static void test_btf(void)
{
	size_t size;
	uint8_t *data = make_btf(&size);
	struct idd_btf *btf = NULL;
	struct inodedump_error *err;
	struct idd_struct outer, inner;
	struct idd_member m;
	struct seen seen = { 0 };
	int64_t v;

	err = idd_btf_parse(data, size, "built by the test", &btf);
	CHECKF(!err, "%s", err ? inodedump_error_message(err) : "");
	if (!btf)
		return;
	CHECK(!idd_btf_struct(btf, "outer", &outer) && outer.size == 40);
	idd_btf_types_member(btf, &outer, "x", &m);
	CHECK(m.present && m.offset == 0 && m.size == 4 && m.is_signed &&
	      m.kind == IDD_KIND_INT);
	idd_btf_types_member(btf, &outer, "u2", &m); /* in the anonymous union */
	CHECK(m.present && m.offset == 4 && !m.is_signed);
	idd_btf_types_member(btf, &outer, "bits", &m);
	CHECKF(m.present && m.offset == 16 && m.bit_offset == 5 &&
	       m.bit_size == 3 && m.size == 1,
	       "offset %llu bit %u size %u", (unsigned long long)m.offset,
	       m.bit_offset, m.bit_size);
	idd_btf_types_member(btf, &outer, "td", &m); /* typedef const int */
	CHECK(m.present && m.offset == 24 && m.is_signed && m.size == 4);
	idd_btf_types_member(btf, &outer, "p", &m);
	CHECK(m.present && m.kind == IDD_KIND_PTR && m.size == 8 &&
	      m.offset == 8);
	CHECK(!idd_btf_pointee(btf, &m, &inner) && inner.size == 8);
	idd_btf_types_member(btf, &inner, "b", &m);
	CHECK(m.present && m.offset == 4);
	idd_btf_types_member(btf, &outer, "p.b", &m); /* not through pointers */
	CHECK(!m.present);
	idd_btf_types_member(btf, &outer, "fp", &m); /* to a forward decl */
	CHECK(m.present && !idd_btf_pointee(btf, &m, &inner) && inner.size == 8);
	idd_btf_types_member(btf, &outer, "e", &m);
	CHECK(m.present && m.kind == IDD_KIND_INT &&
	      idd_btf_member_enum(&m, collect, &seen));
	CHECKF(seen.n == 2 && seen.red == 1 && seen.big == 0x80000000ll,
	       "%d enumerators, BIG %lld", seen.n, (long long)seen.big);
	CHECK(idd_btf_enumerator(btf, "BIG", &v) && v == 0x80000000ll);
	CHECK(!idd_btf_enumerator(btf, "GREEN", &v));
	seen.n = 0;
	CHECK(idd_btf_enum(btf, "color", collect, &seen) && seen.n == 2);
	idd_btf_types_member(btf, &outer, "nope", &m);
	CHECK(!m.present);
	/* The dump is untrusted: a member outside its struct is none. */
	CHECK(!idd_btf_struct(btf, "liar", &inner) && inner.size == 4);
	idd_btf_types_member(btf, &inner, "far", &m);
	CHECK(!m.present);
	err = idd_btf_struct(btf, "huge", &inner);
	CHECK(err && strstr(inodedump_error_message(err), "claims"));
	inodedump_error_free(err);
	err = idd_btf_struct(btf, "no_such", &inner);
	CHECK(err && inodedump_error_code(err) == INODEDUMP_ERR_TYPE);
	inodedump_error_free(err);
	idd_btf_free(btf);
	btf = NULL;

	/* Damaged: cut inside the types, a wrong magic, a wild type id. */
	uint8_t *bad = malloc(size);

	memcpy(bad, data, size);
	err = idd_btf_parse(bad, size - 40, "cut short", &btf);
	CHECK(err && !btf);
	inodedump_error_free(err);
	bad[0] ^= 0xff;
	err = idd_btf_parse(bad, size, "bad magic", &btf);
	CHECK(err && !btf && strstr(inodedump_error_message(err), "no BTF header"));
	inodedump_error_free(err);
	memcpy(bad, data, size);
	/* struct inner's member b: type id 0x7777 */
	for (size_t off = 24; off + 12 <= size; off += 4) {
		uint32_t v32;

		memcpy(&v32, bad + off + 4, 4);
		if (v32 == 2u && !memcmp(bad + off + 8, &(uint32_t){ 32 }, 4)) {
			memcpy(bad + off + 4, &(uint32_t){ 0x7777 }, 4);
			break;
		}
	}
	/* libbpf 1.1 takes it (newer ones refuse it): no such member, then. */
	err = idd_btf_parse(bad, size, "wild type id", &btf);
	if (btf) {
		CHECK(!idd_btf_struct(btf, "inner", &inner));
		idd_btf_types_member(btf, &inner, "b", &m);
		CHECK(!m.present);
		idd_btf_types_member(btf, &inner, "a", &m);
		CHECK(m.present && m.offset == 0);
		idd_btf_free(btf);
	} else {
		CHECK(err);
	}
	inodedump_error_free(err);
	free(bad);
	free(data);
}

/*
 * A big-endian kernel's BTF (s390x): the same blob with its header words
 * and every word of its type section in big-endian order. Put in the
 * host's order it is the little-endian blob byte for byte; members read
 * out of a big-endian struct's bytes, a bitfield numbered from the top.
 */
static void test_btf_big_endian(void)
{
	size_t size;
	uint8_t *le = make_btf(&size), *be = malloc(size);
	uint32_t types_len;
	struct idd_btf *btf = NULL;
	struct idd_struct outer;
	struct idd_member m;
	struct inodedump_error *err;
	uint8_t bytes[40] = { 0 };

	memcpy(be, le, size);
	memcpy(&types_len, le + 12, 4);
	be[0] = le[1]; /* the magic 0xeB9F, big-endian */
	be[1] = le[0];
	for (size_t off = 4; off < 24 + types_len; off += 4)
		for (int i = 0; i < 4; i++)
			be[off + i] = le[off + 3 - i];
	CHECK(memcmp(be, le, size) != 0);
	CHECK(idd_btf_to_host(be, size) == 1 && !memcmp(be, le, size));
	CHECK(idd_btf_to_host(be, size) == 0 && !memcmp(be, le, size));
	be[0] ^= 0xff;
	CHECK(idd_btf_to_host(be, size) == -1);
	/* a type section past the blob: refused, left as it was */
	memcpy(be, le, size);
	be[0] = le[1];
	be[1] = le[0];
	be[12] = 0x7f;
	CHECK(idd_btf_to_host(be, size) == -1 && be[12] == 0x7f);

	err = idd_btf_parse(le, size, "built by the test", &btf);
	CHECK(!err && btf);
	if (btf && !idd_btf_struct(btf, "outer", &outer)) {
		idd_btf_types_member(btf, &outer, "x", &m);
		m.big_endian = true;
		bytes[2] = 0x01, bytes[3] = 0x02;
		CHECK(idd_member_uval(&m, bytes) == 0x102);
		CHECK(idd_member_sval(&m, (uint8_t[4]){ 0xff, 0xff, 0xff, 0xfe }) ==
		      -2);
		/* bits: 3 bits at bit 133: byte 16's bits 5..7 from the top */
		idd_btf_types_member(btf, &outer, "bits", &m);
		m.big_endian = true;
		bytes[16] = 0x04;
		CHECK(idd_member_uval(&m, bytes) == 4);
		bytes[16] = 0xf8; /* the other five bits: not the field's */
		CHECK(idd_member_uval(&m, bytes) == 0);
		m.big_endian = false; /* little-endian: bits 5..7 from the low */
		bytes[16] = 0x80;
		CHECK(idd_member_uval(&m, bytes) == 4);
	} else {
		CHECK(false);
	}
	idd_btf_free(btf);
	free(be);
	free(le);
}

int main(void)
{
	test_kallsyms();
	test_btf();
	test_btf_big_endian();
	return check_summary("types without vmlinux (kallsyms, BTF)");
}
