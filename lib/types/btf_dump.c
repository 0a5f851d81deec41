// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's BTF found in the dump (__start_BTF..__stop_BTF by kallsyms)
 * or in the cache, and how it is read: on demand through the kernel's own
 * index where it is sorted (7.3, not 6.12), from its start where it is
 * not, whole (INODEDUMP_BTF_WHOLE: always) when neither can be.
 *
 * Read so, a decode reads about a tenth of a sorted BTF and a quarter of
 * 6.12's, what was read from its start kept for the next run. Records
 * read so are checked one by one; anything amiss, or a name not found,
 * and the BTF is read whole and parsed by libbpf.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "types/btf_internal.h"

/*
 * b to read the BTF at start..stop on demand through the kernel's index
 * (or offsets of its own) when idd_lazy_open() finds it sorted and what
 * it found in the kernel's struct btf is where struct btf, as this BTF
 * describes it, has its index, its count and named_start_id; false
 * leaves b as it was.
 */
static bool by_index(struct idd_btf *b, struct idd_target *t, uint64_t kbtf,
		     uint64_t start, uint64_t stop, const char *cache_dir)
{
	struct btf_lazy *lz = idd_lazy_open(t, kbtf, start, stop, cache_dir);
	const uint64_t *words;
	size_t nwords;
	uint32_t nr, sbtf;
	int64_t off_types, off_nr, off_named;

	if (!lz)
		return false;
	words = lz->words;
	nwords = lz->nwords;
	nr = lz->nr;
	off_types = lz->off_types;
	off_nr = lz->off_nr;
	b->lz = lz;
	b->ntypes = nr;
	b->first_id = 1;
	/* Now check all of it against struct btf as this BTF describes it. */
	sbtf = idd_btf_lookup(b, "btf", 0);
	off_named = idd_btf_member_offset(b, sbtf, "named_start_id");
	if (!lz->index) {
		/* The count is then checked where struct btf keeps it. */
		off_nr = idd_btf_member_offset(b, sbtf, "nr_types");
		off_types = idd_btf_member_offset(b, sbtf, "types");
		if (off_nr < 0 || off_nr + 4 > (int64_t)(8 * nwords) ||
		    memcmp((uint8_t *)words + off_nr, &nr, 4))
			goto off;
	}
	if (lz->failed || !sbtf || off_named < 0 ||
	    off_named + 4 > (int64_t)(8 * nwords) ||
	    idd_btf_member_offset(b, sbtf, "types") != off_types ||
	    idd_btf_member_offset(b, sbtf, "nr_types") != off_nr ||
	    memcmp((uint8_t *)words + off_named, &lz->named, 4))
		goto off;
	b->size = stop - start;
	return true;
off:
	b->lz = NULL;
	b->ntypes = 0;
	b->first_id = 0;
	idd_lazy_free(lz);
	return false;
}

/*
 * b to read the BTF at start..stop from its start, as far as its lookups
 * need: any BTF, sorted or not. False leaves b as it was.
 */
static bool from_start(struct idd_btf *b, struct idd_target *t,
		       uint64_t start, uint64_t stop, const char *cache_dir)
{
	struct btf_lazy *lz = idd_scan_open(t, start, stop, cache_dir);

	if (!lz)
		return false;
	b->lz = lz;
	b->ntypes = lz->ntypes;
	b->first_id = 1;
	b->size = stop - start;
	return true;
}

struct idd_btf *idd_btf_open_on_demand(struct idd_target *t, uint64_t kbtf,
				       uint64_t start, uint64_t stop,
				       const char *cache_dir)
{
	struct idd_btf *b;

	if (stop <= start || stop - start > BTF_MAX_SIZE || idd_bpf_load())
		return NULL;
	b = calloc(1, sizeof(*b));
	if (b && !by_index(b, t, kbtf, start, stop, cache_dir) &&
	    !from_start(b, t, start, stop, cache_dir)) {
		free(b);
		b = NULL;
	}
	return b;
}

bool idd_btf_on_demand(const struct idd_btf *b)
{
	return b && b->lz;
}

bool idd_btf_own_offsets(const struct idd_btf *b)
{
	return b && b->lz && !b->lz->index && !b->lz->scan;
}

bool idd_btf_from_start(const struct idd_btf *b)
{
	return b && b->lz && b->lz->scan;
}

const char *idd_btf_reading(const struct idd_btf *b)
{
	if (!b || !b->lz)
		return "";
	if (b->lz->scan)
		return b->lz->cached_types
			       ? ", read on demand from its start: it is not "
				 "sorted; what earlier runs read, from the cache"
			       : ", read on demand from its start: it is not "
				 "sorted";
	if (b->lz->index)
		return ", read on demand";
	return b->lz->types_cached.data
		       ? ", read on demand, its types from the cache: the "
			 "kernel's index of them is not in the dump"
		       : ", read on demand, its types whole: the kernel's "
			 "index of them is not in the dump";
}

/* Whether the BTF at start..stop begins with an anonymous type (sorted). */
static bool first_anonymous(struct idd_target *t, uint64_t start,
			    uint64_t stop)
{
	struct btf_lazy lz = { 0 };
	struct btf_header h;
	struct btf_type first;

	return idd_lazy_header(&lz, t, start, stop, &h) &&
	       idd_lazy_first_anonymous(&lz, &first);
}

/*
 * BTF in no order that earlier runs read from its start and kept: where
 * the cache says it lies (moved by this dump's KASLR offset), when the
 * dump has it there (its header, and the kept bytes at a few places).
 * Saves the lookups of its place in kallsyms. NULL: not so.
 */
static struct idd_btf *start_cached(struct idd_target *t,
				    const char *cache_dir, uint64_t *at)
{
	uint64_t start, stop;
	struct idd_btf *b;

	if (!idd_scan_cached_place(t, cache_dir, &start, &stop) ||
	    idd_bpf_load() || !(b = calloc(1, sizeof(*b))))
		return NULL;
	if (!from_start(b, t, start, stop, cache_dir) ||
	    !b->lz->cached_types) {
		idd_btf_free(b);
		return NULL;
	}
	*at = start;
	return b;
}

/*
 * The BTF at start..stop opened: on demand (through the kernel's index
 * where it is sorted, else from its start), else read whole.
 */
static struct inodedump_error *open_at(struct idd_symbols *syms,
				       struct idd_target *t,
				       const char *cache_dir, uint64_t start,
				       uint64_t stop, struct idd_btf **out)
{
	if (stop - start > BTF_MAX_SIZE)
		return idd_error_at(INODEDUMP_ERR_DUMP, start,
				    "BTF at 0x%" PRIx64 ": %" PRIu64 " bytes",
				    start, stop - start);
	/* A big-endian kernel's is read whole, and put in the host's order. */
	if (!getenv("INODEDUMP_BTF_WHOLE") && !idd_target_big_endian(t)) {
		uint64_t kbtf = 0;

		/* The kernel's index is looked for only where it is sorted. */
		if (first_anonymous(t, start, stop))
			idd_symbols_address(syms, "btf_vmlinux", &kbtf);
		if ((*out = idd_btf_open_on_demand(t, kbtf, start, stop,
						   cache_dir)))
			return NULL;
	}
	return idd_btf_read_whole(t, start, stop - start, cache_dir, out);
}

/*
 * No __start_BTF in a kallsyms of text symbols only: the BTF found by its
 * header (btf_find.c), opened, and checked to be this kernel's before it
 * is taken; where it lay kept for the next run.
 */
static struct inodedump_error *by_header(struct idd_symbols *syms,
					 struct idd_target *t,
					 const char *cache_dir,
					 struct idd_btf **out,
					 struct idd_btf_whence *w)
{
	uint64_t start, stop;
	struct inodedump_error *err;

	err = idd_btf_find_in_image(syms, t, cache_dir, &start, &stop,
				    &w->place_cached, &w->none);
	if (err || w->none)
		return err;
	w->at = start;
	w->by_header = true;
	err = open_at(syms, t, cache_dir, start, stop, out);
	if (!err)
		err = idd_btf_check_found(*out, t, &w->agreed);
	if (err) {
		idd_btf_free(*out);
		*out = NULL;
		return idd_error_wrap(err,
				      "the BTF found by its header at 0x%" PRIx64
				      " (%" PRIu64 " bytes; kallsyms has no "
				      "__start_BTF) is not taken",
				      start, stop - start);
	}
	if (!w->place_cached)
		idd_btf_found_keep(t, cache_dir, start, stop);
	return NULL;
}

static struct inodedump_error *from_dump(struct idd_symbols *syms,
					 struct idd_target *t,
					 const char *cache_dir,
					 struct idd_btf **out,
					 struct idd_btf_whence *w)
{
	uint64_t start, stop;
	struct idd_cache_file f;
	struct inodedump_error *err;

	*out = NULL;
	memset(w, 0, sizeof(*w));
	/*
	 * The cache is the kernel's by build-id, and checked as it is
	 * parsed: taken before the two lookups by name that find the dump's
	 * copy (each a search of kallsyms in the dump's pages).
	 */
	if (idd_cache_map(cache_dir, BTF_CACHE_NAME, &f)) {
		err = idd_btf_parse_cached(f.data, f.size, "in the cache",
					   cache_dir, out);
		idd_cache_unmap(&f);
		if (!err) {
			w->cached = true;
			return NULL;
		}
		inodedump_error_free(err); /* read the dump's, then */
	}
	if (!getenv("INODEDUMP_BTF_WHOLE") && !idd_target_big_endian(t) &&
	    (*out = start_cached(t, cache_dir, &w->at)))
		return NULL;
	if (!idd_symbols_address(syms, "__start_BTF", &start) ||
	    !idd_symbols_address(syms, "__stop_BTF", &stop) || stop <= start) {
		/* kallsyms without data symbols may have left it out */
		if (idd_symbols_text_only(syms))
			return by_header(syms, t, cache_dir, out, w);
		w->none = idd_strdup_printf(
			"%s has no __start_BTF: its kernel was built without "
			"CONFIG_DEBUG_INFO_BTF",
			idd_symbols_kallsyms(syms) ? "kallsyms" : "vmlinux");
		return w->none ? NULL : idd_nomem();
	}
	w->at = start;
	return open_at(syms, t, cache_dir, start, stop, out);
}

struct inodedump_error *idd_btf_from_dump(struct idd_symbols *syms,
					  struct idd_target *t,
					  const char *cache_dir,
					  struct idd_btf **out,
					  struct idd_btf_whence *w)
{
	struct inodedump_error *err = from_dump(syms, t, cache_dir, out, w);

	/* in the host's order now; its members' values in the dump's */
	if (*out)
		(*out)->big_endian = idd_target_big_endian(t);
	return err;
}
