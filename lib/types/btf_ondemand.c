// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dump's BTF read on demand: a record, a string, a name looked up, by
 * the kernel's own index of its records where it is sorted (else by
 * offsets taken here), or from its start (btf_scan.c) where it is not.
 */
#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "types/btf_internal.h"

/*
 * The dump's BTF read on demand, for kernels whose BTF is sorted: in
 * recent ones (resolve_btfids sorts it; 7.3's is, 6.12's is not) vmlinux's
 * BTF lists its anonymous types
 * first and then the named ones in name order, and the kernel, trusting
 * that, binary-searches it by name. The running kernel also keeps an
 * index of it: btf_vmlinux->types[id] is the address of record id. With
 * both, a decode reads a few hundred kilobytes of the BTF instead of
 * inflating all of its compressed pages (bench/RESULTS.md).
 *
 * The layout of struct btf is not assumed: the index is the pointer in
 * btf_vmlinux whose entries 1 and 2 are the addresses of the first two
 * records, the type count the word whose last entry ends the types; both
 * are then checked against struct btf as the BTF itself describes it,
 * with named_start_id (the kernel's mark of sorted BTF). Records and
 * strings are copied once, each checked against its section. A read that
 * fails or a record that is not one makes the BTF be read whole
 * (idd_btf_settle()), and libbpf then checks all of it.
 */
/* Kernel addresses are in the upper half (a filter: content decides). */
#define KERNEL_MIN (1ull << 63)

void idd_lazy_free(struct btf_lazy *lz)
{
	if (!lz)
		return;
	idd_scan_save(lz);
	idd_memo_close(lz->memo, true);
	lz->memo = NULL;
	idd_memo_close(lz->index_memo, true);
	lz->index_memo = NULL;
	idd_lazy_release(lz);
}

/* Record id, NULL: none (idd_btf_type() of btf.c, on lz alone). */
static const struct btf_type *rec(struct btf_lazy *lz, uint32_t id)
{
	if (!id || id >= lz->ntypes)
		return NULL;
	return idd_lazy_type(lz, id);
}

/*
 * The index is the kernel's memory, not the BTF, and is checked a page at
 * a time, the first time an entry of that page is used: every entry of
 * the page and the one on each side of it must lie in the types, rise
 * strictly, and entry 1 be the first record. With the check of each
 * entry used against the end of its predecessor's record (idd_lazy_type()),
 * damage within a page is seen, a run of entries moved to other records
 * included; what moves whole pages consistently with their neighbours is
 * not.
 */
static bool index_page_ok(struct btf_lazy *lz, uint32_t id)
{
	uint64_t first = lz->index & ~(lz->page - 1);
	uint64_t va = (lz->index + 8ull * id) & ~(lz->page - 1);
	uint64_t k = (va - first) / lz->page, lo, hi;
	uint64_t *e;
	bool ok = true;

	if (lz->checked[k / 8] & (1u << (k % 8)))
		return true;
	/* ids of this page's entries, and one on each side */
	lo = va > lz->index ? (va - lz->index) / 8 : 0;
	hi = (va + lz->page - lz->index) / 8; /* one past the page's last */
	lo = lo > 1 ? lo - 1 : 1;
	hi = hi < lz->nr ? hi + 1 : lz->nr;
	if (!(e = malloc(8 * (hi - lo)))) {
		lz->failed = true;
		return false;
	}
	if (!idd_lazy_read(lz, lz->index + 8 * lo, e, 8 * (hi - lo)))
		ok = false;
	for (uint64_t i = 0; ok && i < hi - lo; i++)
		ok = e[i] >= lz->types_at && e[i] < lz->types_end &&
		     (i == 0 || e[i] > e[i - 1]) &&
		     (lo + i != 1 || e[i] == lz->types_at);
	free(e);
	if (!ok) {
		lz->failed = true;
		return false;
	}
	lz->checked[k / 8] |= (uint8_t)(1u << (k % 8));
	return true;
}

const struct btf_type *idd_lazy_type(struct btf_lazy *lz, uint32_t id)
{
	struct btf_type *t = idd_lazy_map_get(&lz->recs, id), *prev;
	uint64_t addr[2];

	if (t || lz->failed)
		return t;
	if (lz->scan)
		return idd_scan_to(lz, id) ? (const struct btf_type *)(lz->types_buf +
								    lz->offs[id])
				       : NULL;
	if (lz->offs) /* every record checked as the offsets were taken */
		return (const struct btf_type *)(lz->types_buf + lz->offs[id]);
	/*
	 * The index is the kernel's memory, not the BTF: entry id must be
	 * where record id - 1 (read too, mostly from the same page) ends.
	 */
	if (!index_page_ok(lz, id) || !index_page_ok(lz, id - 1) ||
	    !idd_lazy_read(lz, lz->index + 8ull * (id - 1), addr, 16))
		return NULL;
	if (id == 1) {
		if (addr[1] != lz->types_at)
			lz->failed = true;
	} else if ((prev = idd_lazy_record(lz, addr[0]))) {
		if (addr[0] + idd_btf_record_size(prev) != addr[1])
			lz->failed = true;
		free(prev);
	} else {
		lz->failed = true;
	}
	if (lz->failed || !(t = idd_lazy_record(lz, addr[1]))) {
		lz->failed = true;
		return NULL;
	}
	if (!idd_lazy_map_put(&lz->recs, id, t))
		lz->failed = true;
	return idd_lazy_map_get(&lz->recs, id);
}

const char *idd_lazy_str(struct btf_lazy *lz, uint32_t off)
{
	char *s = idd_lazy_map_get(&lz->strs, off);
	size_t have = 0, cap = 64;

	if (s || lz->failed || off >= lz->strs_len)
		return s ? s : "";
	if (lz->scan && off < lz->strs_have &&
	    memchr(lz->strs_buf + off, 0, lz->strs_have - off))
		return lz->strs_buf + off;
	/*
	 * Read a little at a time (most names are short), never across a
	 * page boundary that the name does not cross.
	 */
	for (;;) {
		uint64_t at = lz->strs_at + off + have;
		size_t want = cap - have, left = lz->strs_len - off - have;
		size_t in_page = lz->page - (at & (lz->page - 1));
		char *grown;

		if (want > left)
			want = left;
		if (want > in_page)
			want = in_page;
		if (!want || !(grown = realloc(s, cap + 1)))
			break;
		s = grown;
		if (!idd_lazy_read_upto_nul(lz, at, s + have, want))
			break;
		if (memchr(s + have, 0, want))
			return idd_lazy_map_put(&lz->strs, off, s) ? s : "";
		have += want;
		if (cap >= LAZY_STR_MAX)
			break; /* no name is this long: not a string table */
		cap *= 2;
	}
	free(s);
	lz->failed = true;
	return "";
}

/*
 * Named types of a class by name: the lowest id of that name and class,
 * as the index of whole BTF has it (a name's records are adjacent).
 */
uint32_t idd_lazy_lookup(struct btf_lazy *lz, const char *name, int class)
{
	uint32_t lo = lz->named, hi = lz->ntypes;

	if (lz->scan)
		return idd_scan_lookup(lz, name, class);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct btf_type *t = rec(lz, mid);

		if (!t)
			return 0;
		if (strcmp(idd_lazy_str(lz, t->name_off), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t id = lo; id < lz->ntypes; id++) {
		const struct btf_type *t = rec(lz, id);

		if (!t || strcmp(idd_lazy_str(lz, t->name_off), name))
			return 0;
		if (idd_btf_class(t) == class)
			return id;
	}
	return 0;
}

/* btf__resolve_size() for BTF read on demand. */
__s64 idd_lazy_size(struct btf_lazy *lz, uint32_t id)
{
	uint64_t n = 1;

	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = rec(lz, id);

		if (!t)
			return -1;
		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT:
			return n * t->size > UINT32_MAX ? -1
							: (__s64)(n * t->size);
		case BTF_KIND_PTR:
			return n * 8 > UINT32_MAX ? -1 : (__s64)(n * 8);
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			n *= btf_array(t)->nelems;
			if (n > UINT32_MAX)
				return -1;
			id = btf_array(t)->type;
			break;
		default:
			return -1;
		}
	}
	return -1;
}

/*
 * Whether every page of the kernel's index was kept in the dump, as far
 * as its bitmap tells (no page is read): makedumpfile -d 31 is known to
 * drop the tail pages of a large kmalloc() allocation, which the index of
 * a 7.x kernel is (1 MB).
 */
static bool index_kept(struct idd_target *t, uint64_t index, uint32_t nr)
{
	uint64_t page = idd_target_page_size(t), end = index + 8ull * nr, pa;

	if (end < index)
		return false;
	if (!page)
		return true; /* a target with no pages (memory): nothing left out */
	for (uint64_t va = index & ~(page - 1); va < end; va += page) {
		if (!idd_target_walk(t, va, &pa))
			continue; /* our walk cannot tell: the reads will */
		switch (idd_target_pfn_state(t, pa / page)) {
		case IDD_PFN_NO_RAM:
		case IDD_PFN_EXCLUDED:
			return false;
		default:
			break;
		}
	}
	return true;
}

#define TYPES_CACHE_NAME "vmlinux.btf.types"

/*
 * The type records from the cache (cache_dir, NULL: none) when its copy
 * has their size and the dump's bytes where idd_lazy_same_as_dump()
 * samples them.
 */
static bool types_from_cache(struct btf_lazy *lz, const char *cache_dir,
			     size_t len)
{
	bool same;

	if (!cache_dir ||
	    !idd_cache_map(cache_dir, TYPES_CACHE_NAME, &lz->types_cached))
		return false;
	same = lz->types_cached.size == len &&
	       idd_lazy_same_as_dump(lz, lz->types_at, lz->types_cached.data, len);
	if (!same) {
		idd_cache_unmap(&lz->types_cached);
		lz->types_cached.data = NULL;
		return false;
	}
	lz->types_buf = lz->types_cached.data;
	return true;
}

/*
 * Without the kernel's index: the type records read whole (a third less
 * than the whole BTF, and no libbpf parse) and the offset of each taken,
 * each record's kind and size checked and the last ending the types;
 * names stay read on demand. The count of types, or 0.
 */
static uint32_t own_offsets(struct btf_lazy *lz, const char *cache_dir)
{
	size_t len = lz->types_end - lz->types_at, off = 0, cap = len / 12 + 2;
	uint32_t n = 1;

	lz->offs = malloc(cap * sizeof(*lz->offs));
	if (!lz->offs)
		return 0;
	if (!types_from_cache(lz, cache_dir, len)) {
		lz->failed = false;
		if (!(lz->types_buf = malloc(len)) ||
		    !idd_lazy_read(lz, lz->types_at, lz->types_buf, len))
			return 0;
		if (cache_dir) {
			struct idd_cache_part part = { lz->types_buf, len };

			idd_cache_store(cache_dir, TYPES_CACHE_NAME, &part, 1);
		}
	}
	lz->offs[0] = 0; /* void: never looked at (rec() stops at 0) */
	while (off < len) {
		const struct btf_type *r = (const void *)(lz->types_buf + off);
		size_t size = len - off >= 12 ? idd_btf_record_size(r) : 0;

		if (!size || size > len - off || n + 1 >= cap)
			return 0;
		lz->offs[n++] = (uint32_t)off;
		off += size;
	}
	return n;
}

/*
 * lz to read the BTF at start..stop on demand, when the kernel's own
 * index of it is found through the pointer at kbtf (btf_vmlinux's
 * address; 0: none), or when the BTF is sorted and offsets of its own
 * can be taken; NULL (then read whole) otherwise. Reads nothing more than
 * the BTF's first page for a BTF that is not sorted (its first type is
 * named). lz->words, in which the index and the count were found, are
 * still to be checked against struct btf as this BTF describes it
 * (btf_dump.c).
 */
struct btf_lazy *idd_lazy_open(struct idd_target *t, uint64_t kbtf,
			       uint64_t start, uint64_t stop,
			       const char *cache_dir)
{
	struct btf_lazy *lz = calloc(1, sizeof(*lz));
	struct btf_header h;
	struct btf_type first;
	uint64_t *words = lz ? lz->words : NULL, addr[2];
	size_t nwords;
	uint32_t nr = 0;
	int64_t off_types, off_nr;

	if (!lz)
		return NULL;
	if (!idd_lazy_header(lz, t, start, stop, &h) ||
	    (cache_dir && !(lz->cache_dir = strdup(cache_dir))))
		goto no;
	idd_lazy_memo(lz, cache_dir);
	/* Sorted BTF begins with its anonymous types. */
	if (!idd_lazy_first_anonymous(lz, &first))
		goto no;
	addr[0] = lz->types_at;
	addr[1] = lz->types_at + idd_btf_record_size(&first);
	if (!kbtf || !idd_lazy_read(lz, kbtf, &kbtf, 8) || kbtf < KERNEL_MIN)
		goto no;
	/*
	 * struct btf is a kmalloc() object (248 bytes on 7.3): what follows
	 * it on its page is read too, not what is on the next page, which a
	 * dump may have left out.
	 */
	memset(lz->words, 0, sizeof(lz->words));
	nwords = LAZY_BTF_READ / 8;
	{
		uint64_t page = idd_target_page_size(t);
		uint64_t to_end = page ? page - (kbtf & (page - 1)) : LAZY_BTF_READ;

		if (page && !(page & (page - 1)) && to_end >= 256 &&
		    to_end < LAZY_BTF_READ)
			nwords = (size_t)to_end / 8;
	}
	if (!idd_lazy_read(lz, kbtf, words, 8 * nwords))
		goto no;
	/* The index: the pointer whose entries 1 and 2 are those records. */
	off_types = -1;
	lz->failed = false; /* from here a failed read only rules a word out */
	for (size_t w = 0; w < nwords && off_types < 0; w++) {
		uint64_t e[2];

		if (words[w] >= KERNEL_MIN && words[w] % 8 == 0 &&
		    idd_lazy_read(lz, words[w] + 8, e, 16) &&
		    e[0] == addr[0] && e[1] == addr[1]) {
			lz->index = words[w];
			off_types = (int64_t)(8 * w);
		}
	}
	/* The count: the word whose last entry is the record ending the types. */
	off_nr = -1;
	for (size_t w = 0; w < 2 * nwords && off_types >= 0 && off_nr < 0; w++) {
		uint32_t n;
		uint64_t last;
		struct btf_type *r;

		memcpy(&n, (uint8_t *)words + 4 * w, 4);
		if (n < 3 || n > h.type_len / 12 + 1 ||
		    !idd_lazy_read(lz, lz->index + 8ull * (n - 1), &last, 8) ||
		    last < lz->types_at || last >= lz->types_end)
			continue;
		r = idd_lazy_record(lz, last);
		if (r && last + idd_btf_record_size(r) == lz->types_end) {
			nr = n;
			off_nr = (int64_t)(4 * w);
		}
		free(r);
	}
	lz->failed = false;
	if (off_types < 0 || off_nr < 0 || !index_kept(t, lz->index, nr)) {
		/* No index to use: the records' offsets taken here. */
		lz->index = 0;
		nr = own_offsets(lz, cache_dir);
		if (!nr || lz->failed)
			goto no;
	}
	lz->nr = nr;
	if (lz->index &&
	    !(lz->checked = calloc((8ull * nr / lz->page + 2) / 8 + 1, 1)))
		goto no;
	/* The index is where each record is: kept as offsets into the types. */
	if (lz->index)
		lz->index_memo = idd_memo_open_biased(t, cache_dir,
						      "vmlinux.btf.index.pages",
						      lz->index, 8ull * nr,
						      lz->types_at);
	lz->ntypes = nr;
	lz->nwords = nwords;
	lz->off_types = off_types;
	lz->off_nr = off_nr;
	/* The first named type: anonymous ones come first. */
	{
		uint32_t lo = 1, hi = nr;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			const struct btf_type *r = rec(lz, mid);

			if (!r)
				goto no;
			if (r->name_off)
				hi = mid;
			else
				lo = mid + 1;
		}
		lz->named = lo;
	}
	return lz;
no:
	idd_lazy_free(lz);
	return NULL;
}
