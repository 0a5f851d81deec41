// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmlinux's symbols from the dump itself: the kernel's kallsyms tables,
 * which VMCOREINFO names (SYMBOL(kallsyms_names), _num_syms,
 * _token_table, _token_index, _offsets, and before 7.0
 * _relative_base). Each name is a run of token indexes (scripts/kallsyms.c
 * compresses them), its first character the symbol's type letter; each
 * address is an int in kallsyms_offsets:
 *
 *  - 7.0 and later (no kallsyms_relative_base in VMCOREINFO):
 *    place-relative, &kallsyms_offsets[i] + kallsyms_offsets[i];
 *  - before, with CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86-64 SMP before
 *    6.15): an offset >= 0 is the per-CPU symbol's own value, a negative
 *    one is relative_base - 1 - offset;
 *  - before, without it: relative_base + (u32)offset.
 *
 * Whether absolute per-CPU is in effect is not in the dump: an offset
 * below zero is impossible without it (the image is not 2 GiB long) and
 * certain with it (every non-per-CPU symbol is stored that way).
 *
 * They are read on demand (kallsyms_lazy.c); tables decoded whole
 * (kernels before 6.2, or a layout not found: kallsyms_decode.c) are kept
 * in the per-kernel cache (cache.c), taken from there only while the
 * symbols VMCOREINFO names are where the cache has them (another boot of
 * the kernel, at another KASLR offset, is read again). This file finds
 * the tables through VMCOREINFO, or where it names none (before 6.0) by
 * their shapes in the kernel image (kallsyms_find.c), and answers the
 * lookups from whichever holds them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cleanup.h"
#include "target/target.h"
#include "types/kallsyms_internal.h"

void idd_kallsyms_free(struct idd_kallsyms *ks)
{
	if (!ks)
		return;
	idd_ksym_lazy_free(ks->lazy);
	idd_memo_close(ks->memo, true);
	ks->memo = NULL;
	free(ks->whence);
	ks->whence = NULL;
	idd_ksym_decoded_free(ks);
}

const char *idd_kallsyms_whence(const struct idd_kallsyms *ks)
{
	return ks->whence;
}

size_t idd_kallsyms_count(const struct idd_kallsyms *ks)
{
	return ks->n;
}

struct inodedump_error *
idd_kallsyms_open_lazy(const struct idd_kallsyms_tables *tab,
		       const struct idd_kallsyms_places *at,
		       idd_kallsyms_read_fn read, void *arg,
		       const char *cache_dir, struct idd_kallsyms **out)
{
	struct idd_kallsyms *ks;
	struct inodedump_error *err;

	*out = NULL;
	if (!tab->num_syms || tab->num_syms > MAX_SYMS)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kallsyms: %" PRIu32 " symbols is no kernel's "
				 "count", tab->num_syms);
	if (!(ks = calloc(1, sizeof(*ks))))
		return idd_nomem();
	err = idd_ksym_lazy_open(tab, at, read, arg, cache_dir, &ks->lazy);
	if (err) {
		free(ks);
		return err;
	}
	ks->n = tab->num_syms;
	*out = ks;
	return NULL;
}

bool idd_kallsyms_by_name(const struct idd_kallsyms *ks)
{
	return !ks->lazy || idd_ksym_lazy_by_name(ks->lazy);
}

bool idd_kallsyms_is_lazy(const struct idd_kallsyms *ks)
{
	return ks->lazy != NULL;
}

static bool vmcoreinfo_symbol(struct idd_target *t, const char *name,
			      uint64_t *addr)
{
	char key[64];
	const char *v;
	char *end;

	snprintf(key, sizeof(key), "SYMBOL(%s)", name);
	v = idd_target_vmcoreinfo(t, key);
	if (!v || !*v)
		return false;
	*addr = strtoull(v, &end, 16);
	return *end == '\0' || *end == '\n';
}

/* Read the names table, whose length nothing states: chunk by chunk. */
static struct inodedump_error *read_names(struct idd_target *t, uint64_t at,
					  uint32_t num_syms, uint8_t **out,
					  size_t *len)
{
	enum { CHUNK = 64 * 1024 };
	_cleanup_free_ uint8_t *buf = NULL;
	size_t have = 0, off = 0;

	for (uint32_t i = 0; i < num_syms; i++) {
		size_t need;

		for (;;) {
			need = off + 2;
			if (need <= have) {
				size_t l = buf[off];

				if (l & 0x80)
					l = (l & 0x7f) | ((size_t)buf[off + 1] << 7);
				need = off + 1 + (buf[off] & 0x80 ? 1 : 0) + l;
				if (need <= have)
					break;
			}
			if (have >= MAX_NAMES)
				return idd_error_at(INODEDUMP_ERR_DUMP, at,
						    "kallsyms_names: longer "
						    "than %u bytes", MAX_NAMES);
			uint8_t *grown = realloc(buf, have + CHUNK);
			struct inodedump_error *err;

			if (!grown)
				return idd_nomem();
			buf = grown;
			err = idd_target_read(t, at + have, buf + have, CHUNK);
			if (err)
				return idd_error_wrap(err, "kallsyms_names");
			have += CHUNK;
		}
		off = need;
	}
	*len = off;
	*out = TAKE_PTR(buf);
	return NULL;
}

/*
 * Symbols VMCOREINFO names with their addresses (each in the kernel
 * image, where kallsyms has it too; some only with CONFIG_KALLSYMS_ALL).
 * Its SYMBOL(mem_section) and SYMBOL(vmemmap) are values, not places.
 */
static const char *const anchor_names[] = {
	"_stext", "init_uts_ns", "node_online_map", "swapper_pg_dir",
	"init_top_pgt", "vmap_area_list", "prb", "printk_rb_static",
	"clear_seq", "node_data", "log_buf", "log_buf_len", "log_first_idx",
	"clear_idx", "log_next_idx", "contig_page_data", "high_memory",
	"mem_map",
};
#define NANCHORS (sizeof(anchor_names) / sizeof(anchor_names[0]))
/* The kernel image's mapping is at most this long (x86-64: 1 GiB). */
#define IMAGE_MAX (1ull << 30)
#define PAGE 4096ull

/*
 * The anchors in the kernel image: every SYMBOL() of the list within
 * IMAGE_MAX above _stext; without _stext, within IMAGE_MAX of
 * init_uts_ns (which every VMCOREINFO names).
 */
static size_t image_anchors(struct idd_target *t, struct idd_ksym_anchor *a)
{
	uint64_t base;
	bool stext = vmcoreinfo_symbol(t, "_stext", &base);
	size_t n = 0;

	if (!stext && !vmcoreinfo_symbol(t, "init_uts_ns", &base))
		return 0;
	for (size_t i = 0; i < NANCHORS; i++) {
		uint64_t v;

		if (!vmcoreinfo_symbol(t, anchor_names[i], &v))
			continue;
		if (stext ? v < base || v - base >= IMAGE_MAX
			  : (v < base ? base - v : v - base) >= IMAGE_MAX)
			continue;
		a[n].name = anchor_names[i];
		a[n++].addr = v;
	}
	return n;
}

/* The decoded tables from the cache still fit this dump's boot. */
static bool cache_fits(struct idd_target *t, const struct idd_kallsyms *ks)
{
	struct idd_ksym_anchor a[NANCHORS];
	size_t n = image_anchors(t, a);

	for (size_t i = 0; i < n; i++) {
		uint64_t got;

		if (idd_ksym_decoded_address(ks, a[i].name, &got) &&
		    got != a[i].addr)
			return false;
	}
	return true;
}

/* idd_target_read for the lazy tables. */
static bool target_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct inodedump_error *err = idd_target_read_unexplained(arg, addr,
								  buf, len);

	inodedump_error_free(err);
	return !err;
}

/*
 * The memo of the tables (NULL: none): from the lowest of them to past
 * the highest, seqs_of_names (3 bytes a symbol) allowed for after it;
 * kallsyms_relative_base (base_at, 0: none), the address of _text that
 * KASLR's relocation sets at boot, left out.
 */
static struct idd_memo *tables_memo(struct idd_target *t, const char *cache_dir,
				    const uint64_t *at, size_t n, uint32_t count,
				    uint64_t base_at)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < n; i++) {
		if (!at[i])
			continue;
		lo = at[i] < lo ? at[i] : lo;
		hi = at[i] > hi ? at[i] : hi;
	}
	if (hi < lo)
		return NULL;
	/* the highest table: offsets (4 bytes a symbol) at most */
	hi += 4 * (uint64_t)count + 3 * (uint64_t)count + 4096;
	return idd_memo_open(t, cache_dir, "kallsyms.pages", lo, hi - lo, base_at,
			     base_at ? 8 : 0);
}

static void memo_closep(struct idd_memo **m)
{
	idd_memo_close(*m, true);
}

/* len bytes at addr, through memo (NULL: none): the dump's error if any. */
static struct inodedump_error *tables_read(struct idd_target *t,
					   struct idd_memo *memo, uint64_t addr,
					   void *buf, size_t len)
{
	if (memo && idd_memo_read(memo, addr, buf, len))
		return NULL;
	return idd_target_read(t, addr, buf, len);
}

/* Where the tables are (VMCOREINFO names none): searched for. */
static struct inodedump_error *find_tables(struct idd_target *t,
					   struct idd_ksym_found *found,
					   char **whence)
{
	struct idd_ksym_anchor a[NANCHORS];
	size_t n = image_anchors(t, a);
	uint64_t stext = 0, lo = UINT64_MAX, hi = 0, first = UINT64_MAX;
	struct inodedump_error *err;
	char base[64];

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(a[i].name, "_stext"))
			stext = a[i].addr;
		lo = a[i].addr < lo ? a[i].addr : lo;
		hi = a[i].addr > hi ? a[i].addr : hi;
	}
	if (!n)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's VMCOREINFO names no kallsyms tables "
				 "(SYMBOL(kallsyms_names) and the others: kernels "
				 "before 6.0 or without CONFIG_KALLSYMS), and no "
				 "symbol that places the kernel image to search "
				 "for them");
	/* The tables are read-only data: below the first data symbol. */
	for (size_t i = 0; i < n; i++)
		if (a[i].addr != stext && a[i].addr < first)
			first = a[i].addr;
	lo &= ~(PAGE - 1);
	if (!stext) /* no start: as far below as the mapping may reach */
		lo = lo > IMAGE_MAX / 4 ? lo - IMAGE_MAX / 4 : 0;
	if (first == UINT64_MAX)
		first = hi = lo + IMAGE_MAX / 4;
	hi = (hi + PAGE) & ~(PAGE - 1);
	err = idd_ksym_find(lo, hi, first, target_read, t,
			    idd_target_big_endian(t), a, n, found);
	if (err)
		return idd_error_wrap(err,
				      "the dump's VMCOREINFO names no kallsyms "
				      "tables (kernels before 6.0), and they "
				      "were not found in the kernel image");
	if (found->relative_base)
		snprintf(base, sizeof(base),
			 "kallsyms_relative_base at 0x%" PRIx64,
			 found->relative_base);
	else
		snprintf(base, sizeof(base), "offsets place-relative");
	*whence = idd_strdup_printf(
		"found by scanning the kernel image: kallsyms_token_table at "
		"0x%" PRIx64 ", kallsyms_token_index at 0x%" PRIx64
		", kallsyms_markers at 0x%" PRIx64 ", kallsyms_names at 0x%" PRIx64
		", kallsyms_num_syms at 0x%" PRIx64 ", kallsyms_offsets at 0x%" PRIx64
		", %s; %zu of VMCOREINFO's symbols at its addresses; %" PRIu64
		" KiB read",
		found->token_table, found->token_index, found->markers,
		found->names, found->num_syms, found->offsets, base,
		found->anchors_matched, found->bytes_read >> 10);
	return *whence ? NULL : idd_nomem();
}

struct inodedump_error *idd_kallsyms_load(struct idd_target *t,
					  const char *cache_dir,
					  struct idd_kallsyms **out,
					  bool *from_cache_out)
{
	uint64_t names, num, token_table, token_index, offsets, base_at = 0;
	struct idd_kallsyms_tables tab = { 0 };
	_cleanup_free_ uint8_t *names_buf = NULL;
	_cleanup_free_ int32_t *offs = NULL;
	_cleanup_free_ char *tokens = NULL, *whence = NULL;
	uint16_t index[256];
	uint8_t base_bytes[8];
	uint32_t count;
	size_t tokens_len = 0;
	struct inodedump_error *err;
	struct idd_kallsyms *ks;
	_cleanup_(memo_closep) struct idd_memo *memo = NULL;

	*from_cache_out = false;
	if (cache_dir) {
		ks = calloc(1, sizeof(*ks));
		if (!ks)
			return idd_nomem();
		if (idd_ksym_from_cache(cache_dir, ks) && cache_fits(t, ks)) {
			*from_cache_out = true;
			*out = ks;
			return NULL;
		}
		idd_kallsyms_free(ks);
	}
	if (!vmcoreinfo_symbol(t, "kallsyms_names", &names) ||
	    !vmcoreinfo_symbol(t, "kallsyms_num_syms", &num) ||
	    !vmcoreinfo_symbol(t, "kallsyms_token_table", &token_table) ||
	    !vmcoreinfo_symbol(t, "kallsyms_token_index", &token_index) ||
	    !vmcoreinfo_symbol(t, "kallsyms_offsets", &offsets)) {
		struct idd_ksym_found found;

		if ((err = find_tables(t, &found, &whence)))
			return err;
		names = found.names;
		num = found.num_syms;
		token_table = found.token_table;
		token_index = found.token_index;
		offsets = found.offsets;
		base_at = found.relative_base;
		tab.has_relative_base = base_at != 0;
	} else {
		tab.has_relative_base =
			vmcoreinfo_symbol(t, "kallsyms_relative_base", &base_at);
	}
	tab.big_endian = idd_target_big_endian(t);
	if ((err = idd_target_read(t, num, &count, 4)))
		return idd_error_wrap(err, "kallsyms_num_syms");
	idd_words32_to_host(&count, 1, tab.big_endian);
	if (!count || count > MAX_SYMS)
		return idd_error_at(INODEDUMP_ERR_DUMP, num,
				    "kallsyms_num_syms is %" PRIu32, count);
	memo = tables_memo(t, cache_dir,
			   (const uint64_t[]){ names, num, token_table,
					       token_index, offsets, base_at },
			   6, count, base_at);
	if (tab.has_relative_base &&
	    (err = tables_read(t, memo, base_at, base_bytes, 8)))
		return idd_error_wrap(err, "kallsyms_relative_base");
	if (tab.has_relative_base)
		tab.relative_base = idd_load(base_bytes, 8, tab.big_endian);
	if ((err = tables_read(t, memo, token_index, index, sizeof(index))))
		return idd_error_wrap(err, "kallsyms_token_index");
	idd_words16_to_host(index, 256, tab.big_endian);
	for (int i = 0; i < 256; i++)
		tokens_len = index[i] > tokens_len ? index[i] : tokens_len;
	tokens_len += 256; /* the last token and its NUL */
	tokens = malloc(tokens_len);
	if (!tokens)
		return idd_nomem();
	if ((err = tables_read(t, memo, token_table, tokens, tokens_len)))
		return idd_error_wrap(err, "kallsyms_token_table");
	tab.num_syms = count;
	tab.token_table = tokens;
	tab.token_table_len = tokens_len;
	tab.token_index = index;
	tab.offsets_addr = offsets;
	/* Read on demand where the layout is found; else decoded whole. */
	{
		const struct idd_kallsyms_places at = {
			.names = names,
			.token_table = token_table,
			.relative_base = base_at,
		};

		err = memo ? idd_kallsyms_open_lazy(&tab, &at, idd_memo_read,
						    memo, cache_dir, &ks)
			   : idd_kallsyms_open_lazy(&tab, &at, target_read, t,
						    cache_dir, &ks);
		if (!err) {
			ks->memo = TAKE_PTR(memo);
			ks->whence = TAKE_PTR(whence);
			*out = ks;
			return NULL;
		}
		if (idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
	}
	if (!(offs = malloc((size_t)count * 4)))
		return idd_nomem();
	if ((err = idd_target_read(t, offsets, offs, (size_t)count * 4)))
		return idd_error_wrap(err, "kallsyms_offsets");
	idd_words32_to_host(offs, count, tab.big_endian);
	if ((err = read_names(t, names, count, &names_buf, &tab.names_len)))
		return err;
	tab.names = names_buf;
	tab.offsets = offs;
	if ((err = idd_kallsyms_from_tables(&tab, &ks)))
		return err;
	idd_ksym_store(cache_dir, ks);
	ks->whence = TAKE_PTR(whence);
	*out = ks;
	return NULL;
}

bool idd_kallsyms_address(const struct idd_kallsyms *ks, const char *name,
			  uint64_t *addr)
{
	if (ks->lazy)
		return idd_ksym_lazy_address(ks->lazy, name, addr);
	return idd_ksym_decoded_address(ks, name, addr);
}

/*
 * The symbol covering addr: the first of those at the greatest address
 * not above it (kallsyms' own order puts the best alias first), covering
 * up to the next symbol's address; the last covers 64 KiB.
 */
struct inodedump_error *idd_kallsyms_name(const struct idd_kallsyms *ks,
					  uint64_t addr, char **out)
{
	*out = NULL;
	if (ks->lazy)
		return idd_ksym_lazy_name(ks->lazy, addr, out);
	return idd_ksym_decoded_name(ks, addr, out);
}
