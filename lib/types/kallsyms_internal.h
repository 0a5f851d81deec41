/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * types: what the files of kallsyms share among themselves (types.h is
 * what the rest of the library sees). By layer, each calling only the
 * ones above it in this list:
 *   kallsyms_decode.c the tables decoded whole (and kept in the cache),
 *                     and symbols looked up in them
 *   kallsyms_lazy.c   the dump's tables read on demand
 *   kallsyms_find.c   the tables found in the kernel image by their
 *                     shapes, where VMCOREINFO names none
 *   kallsyms.c        the tables found through VMCOREINFO (else the
 *                     finder); lookups
 * Not installed.
 */
#ifndef IDD_TYPES_KALLSYMS_INTERNAL_H
#define IDD_TYPES_KALLSYMS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "types/types.h"

#define MAX_SYMS (4u << 20)
#define MAX_NAMES (64u << 20)
#define KSYM_NAME_LEN 512

struct kallsyms_lazy;

struct idd_kallsyms {
	size_t n;
	const uint64_t *addr; /* sorted */
	const uint32_t *name; /* offsets in strings */
	const char *type;
	const char *strings;
	size_t strings_len;
	const uint32_t *slots; /* by name: index + 1, open addressing */
	uint32_t mask;
	void *owned;		   /* one allocation holding the above */
	struct idd_cache_file map; /* or the cache file, mapped */
	struct kallsyms_lazy *lazy; /* or the dump's tables, read on demand */
	struct idd_memo *memo;	    /* the tables as earlier runs read them */
	char *whence; /* how the tables were found; NULL: VMCOREINFO, cache */
};

/* ---- kallsyms_decode.c ---- */

/* Each of the 256 tokens, found once: where it starts, how long it is. */
struct kallsyms_tokens {
	const char *at[256];
	uint8_t len[256];
};

/* What a token table idd_ksym_find_tokens() refuses is. */
#define IDD_KSYM_TOKENS_BAD                                                  \
	"kallsyms: kallsyms_token_index and kallsyms_token_table do not "    \
	"agree (a token out of place, past the table, or of bytes no name "  \
	"has): damaged"
/*
 * Each token found in k; false when one is not where scripts/kallsyms.c
 * puts it (right after the one before), runs past the table, or holds a
 * byte no symbol's name has.
 */
bool idd_ksym_find_tokens(const struct idd_kallsyms_tables *t,
			  struct kallsyms_tokens *k);
/* Past the name at *off, without expanding it. */
bool idd_ksym_skip_name(const struct idd_kallsyms_tables *t, size_t *off);
/*
 * Expand name at *off of the names table (advancing *off) into out
 * (KSYM_NAME_LEN); *type its type letter. False when the table is cut
 * short.
 */
bool idd_ksym_expand(const struct idd_kallsyms_tables *t,
		     const struct kallsyms_tokens *k, size_t *off, char *type,
		     char *out, size_t *outlen);
/* The address offset entry i (whose value is off) stands for. */
uint64_t idd_ksym_address_value(const struct idd_kallsyms_tables *t,
				bool absolute_percpu, size_t i, int32_t off);
/*
 * "name" or "name+0x10" for addr in the symbol at base (malloc'd into
 * *out); nothing for an empty name.
 */
struct inodedump_error *idd_ksym_format_hit(const char *name, uint64_t base,
					    uint64_t addr, char **out);
/* The tables decoded earlier, from the cache (ks filled); false: none. */
bool idd_ksym_from_cache(const char *dir, struct idd_kallsyms *ks);
/* Decoded tables into the cache (cache_dir NULL: none). */
void idd_ksym_store(const char *cache_dir, const struct idd_kallsyms *ks);
/* Lookups in decoded tables: idd_kallsyms_address(), idd_kallsyms_name(). */
bool idd_ksym_decoded_address(const struct idd_kallsyms *ks, const char *name,
			      uint64_t *addr);
struct inodedump_error *idd_ksym_decoded_name(const struct idd_kallsyms *ks,
					      uint64_t addr, char **out);
/* Free decoded tables (no lazy part). */
void idd_ksym_decoded_free(struct idd_kallsyms *ks);

/* ---- kallsyms_lazy.c ---- */

/*
 * The tables read on demand (idd_kallsyms_open_lazy(), whose count of
 * symbols the caller has checked); INODEDUMP_ERR_DUMP when the layout is
 * not found.
 */
struct inodedump_error *
idd_ksym_lazy_open(const struct idd_kallsyms_tables *tab,
		   const struct idd_kallsyms_places *at,
		   idd_kallsyms_read_fn read, void *arg, const char *cache_dir,
		   struct kallsyms_lazy **out);
void idd_ksym_lazy_free(struct kallsyms_lazy *z);
/* Whether names are found without decoding the whole table. */
bool idd_ksym_lazy_by_name(const struct kallsyms_lazy *z);
bool idd_ksym_lazy_address(struct kallsyms_lazy *z, const char *name,
			   uint64_t *addr);
struct inodedump_error *idd_ksym_lazy_name(struct kallsyms_lazy *z,
					   uint64_t addr, char **out);

/* ---- kallsyms_find.c ---- */

/* A symbol whose address the dump gives elsewhere (VMCOREINFO). */
struct idd_ksym_anchor {
	const char *name;
	uint64_t addr;
};

/* The tables found, and how. */
struct idd_ksym_found {
	uint64_t names, num_syms, token_table, token_index, markers, offsets;
	uint64_t relative_base; /* its place; 0: none (place-relative) */
	uint32_t count;
	unsigned align, marker_width;
	bool offsets_first; /* offsets before num_syms: before 6.4 */
	bool seqs;	    /* kallsyms_seqs_of_names between markers, tokens */
	size_t anchors_matched;
	uint64_t bytes_read;
};

/*
 * The kallsyms tables in the kernel image [lo, hi), searched downwards
 * from first, then upwards from it; every table checked against the
 * others and anchors[] (at least one of them named by the tables, every
 * one named at its address), its integers in byte order big (the
 * dump's). INODEDUMP_ERR_DUMP, saying what failed, when
 * no place fits.
 */
struct inodedump_error *idd_ksym_find(uint64_t lo, uint64_t hi, uint64_t first,
				      idd_kallsyms_read_fn read, void *arg,
				      bool big, struct idd_ksym_anchor *anchors,
				      size_t nanchors, struct idd_ksym_found *out);

#endif
