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
 * in the per-kernel cache (cache.c). This file finds them through
 * VMCOREINFO and answers the lookups from whichever holds them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/kallsyms_internal.h"

void idd_kallsyms_free(struct idd_kallsyms *ks)
{
	if (!ks)
		return;
	idd_ksym_lazy_free(ks->lazy);
	idd_ksym_decoded_free(ks);
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

/* idd_target_read for the lazy tables. */
static bool target_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct inodedump_error *err = idd_target_read(arg, addr, buf, len);

	inodedump_error_free(err);
	return !err;
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
	_cleanup_free_ char *tokens = NULL;
	uint16_t index[256];
	uint32_t count;
	size_t tokens_len = 0;
	struct inodedump_error *err;
	struct idd_kallsyms *ks;

	*from_cache_out = false;
	if (cache_dir) {
		ks = calloc(1, sizeof(*ks));
		if (!ks)
			return idd_nomem();
		if (idd_ksym_from_cache(cache_dir, ks)) {
			*from_cache_out = true;
			*out = ks;
			return NULL;
		}
		free(ks);
	}
	if (!vmcoreinfo_symbol(t, "kallsyms_names", &names) ||
	    !vmcoreinfo_symbol(t, "kallsyms_num_syms", &num) ||
	    !vmcoreinfo_symbol(t, "kallsyms_token_table", &token_table) ||
	    !vmcoreinfo_symbol(t, "kallsyms_token_index", &token_index) ||
	    !vmcoreinfo_symbol(t, "kallsyms_offsets", &offsets))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's VMCOREINFO names no kallsyms tables "
				 "(SYMBOL(kallsyms_names) and the others: "
				 "kernels before 6.0 or without CONFIG_KALLSYMS)");
	tab.has_relative_base =
		vmcoreinfo_symbol(t, "kallsyms_relative_base", &base_at);
	if ((err = idd_target_read(t, num, &count, 4)))
		return idd_error_wrap(err, "kallsyms_num_syms");
	if (!count || count > MAX_SYMS)
		return idd_error_at(INODEDUMP_ERR_DUMP, num,
				    "kallsyms_num_syms is %" PRIu32, count);
	if (tab.has_relative_base &&
	    (err = idd_target_read_u64(t, base_at, &tab.relative_base)))
		return idd_error_wrap(err, "kallsyms_relative_base");
	if ((err = idd_target_read(t, token_index, index, sizeof(index))))
		return idd_error_wrap(err, "kallsyms_token_index");
	for (int i = 0; i < 256; i++)
		tokens_len = index[i] > tokens_len ? index[i] : tokens_len;
	tokens_len += 256; /* the last token and its NUL */
	tokens = malloc(tokens_len);
	if (!tokens)
		return idd_nomem();
	if ((err = idd_target_read(t, token_table, tokens, tokens_len)))
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

		err = idd_kallsyms_open_lazy(&tab, &at, target_read, t,
					     cache_dir, &ks);
		if (!err) {
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
	if ((err = read_names(t, names, count, &names_buf, &tab.names_len)))
		return err;
	tab.names = names_buf;
	tab.offsets = offs;
	if ((err = idd_kallsyms_from_tables(&tab, &ks)))
		return err;
	idd_ksym_store(cache_dir, ks);
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
