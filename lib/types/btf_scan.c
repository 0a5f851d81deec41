// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dump's BTF in no order (6.12's), read from its start as far as a
 * lookup by name needs, and what a run read kept in the cache for the
 * next run of that kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "types/btf_internal.h"

/*
 * BTF in no order: the kernel's before it sorted its BTF (6.12's) has no
 * order a lookup by name could search, and libbpf would parse all of it
 * (on the stock 6.12 dump, 1,202 compressed pages). Read from its start
 * instead, as far as a lookup must: the strings until the name (each name
 * is there once: the BTF's strings are deduplicated), then the records
 * until the first of that name and class. Types used by the decode come
 * early in the BTF of the kernels measured (bench/RESULTS.md). Each
 * record's kind and size are checked as its offset is taken, and the last
 * must end the types; nothing of the kernel's own memory is used. A miss
 * (no such name, or a name whose offset no record has) reads the BTF
 * whole, which answers with authority.
 */
#define SCAN_TYPES_CHUNK (256u << 10) /* 64 pages: inflated on two threads */
#define SCAN_STRS_CHUNK (64u << 10)

/*
 * Up to chunk more bytes of the section at at (len bytes, have of them in
 * buf), ending on a page boundary of the dump.
 */
static bool scan_read(struct btf_lazy *lz, uint64_t at, size_t len, void *buf,
		      size_t *have, size_t chunk)
{
	uint64_t from = at + *have, to = (from + chunk) & ~(lz->page - 1);

	if (to <= from)
		to = from + chunk;
	if (to - at > len)
		to = at + len;
	if (!idd_lazy_read(lz, from, (uint8_t *)buf + *have, (size_t)(to - from)))
		return false;
	*have = (size_t)(to - at);
	return true;
}

/* Offsets taken as far as id (true), or every record's (false: no id). */
bool idd_scan_to(struct btf_lazy *lz, uint32_t id)
{
	const size_t len = lz->types_end - lz->types_at;

	while (id >= lz->scan_n && !lz->failed) {
		/* Every record read whole, up to one that is not a record. */
		size_t next = lz->types_next, have = lz->types_have;
		uint32_t n = lz->scan_n, *offs = lz->offs;

		while (!lz->bad && have - next >= 12) {
			size_t size = idd_btf_record_size(
				(const void *)(lz->types_buf + next));

			if (!size || size > len - next)
				lz->bad = true;
			else if (size > have - next)
				break;
			else {
				offs[n++] = (uint32_t)next;
				next += size;
			}
		}
		lz->types_next = next;
		lz->scan_n = n;
		if (id < lz->scan_n)
			break;
		if (lz->bad) {
			lz->failed = true; /* what follows id is no record */
			return false;
		}
		if (lz->types_have == len) {
			if (lz->types_next != len)
				lz->failed = true; /* the last record runs over */
			return false;
		}
		if (!scan_read(lz, lz->types_at, len, lz->types_buf,
			       &lz->types_have, SCAN_TYPES_CHUNK))
			return false;
	}
	return id < lz->scan_n && !lz->failed;
}

/* The offset of the string name in the strings, 0: none. */
static uint32_t scan_string(struct btf_lazy *lz, const char *name)
{
	size_t n = strlen(name), from = 0;
	char pat[LAZY_STR_MAX + 2];

	if (!n || n > LAZY_STR_MAX)
		return 0;
	pat[0] = 0;
	memcpy(pat + 1, name, n);
	pat[n + 1] = 0;
	for (;;) {
		const char *at = lz->strs_have >= from + n + 2
					 ? memmem(lz->strs_buf + from,
						  lz->strs_have - from, pat, n + 2)
					 : NULL;

		if (at)
			return (uint32_t)(at + 1 - lz->strs_buf);
		if (lz->strs_have == lz->strs_len)
			return 0;
		/* the next search takes in what this one could not match */
		from = lz->strs_have > n + 1 ? lz->strs_have - n - 1 : 0;
		if (!scan_read(lz, lz->strs_at, lz->strs_len, lz->strs_buf,
			       &lz->strs_have, SCAN_STRS_CHUNK))
			return 0;
	}
}

/* The first id of name and class, as whole BTF's index has it; 0: none. */
uint32_t idd_scan_lookup(struct btf_lazy *lz, const char *name, int class)
{
	uint32_t off = scan_string(lz, name);

	for (uint32_t id = 1; off && (id < lz->scan_n || idd_scan_to(lz, id));
	     id++) {
		const struct btf_type *t =
			(const void *)(lz->types_buf + lz->offs[id]);

		if (t->name_off == off && idd_btf_class(t) == class)
			return id;
	}
	lz->failed = true; /* not here: the BTF read whole answers */
	return 0;
}

/*
 * What a run read from the start of BTF in no order, kept for the next
 * run of that kernel: the types and the strings read so far, behind a
 * header that gives the BTF's size and the sections' lengths.
 */
#define START_CACHE_NAME "vmlinux.btf.start"
#define START_MAGIC "IDDBTFS1"
#define START_HEADER (8 + 7 * 8)

/* h: the header of the kept file f, when it is one (magic, size). */
static bool start_header(const struct idd_cache_file *f, uint64_t h[7])
{
	if (f->size < START_HEADER || memcmp(f->data, START_MAGIC, 8))
		return false;
	memcpy(h, (const uint8_t *)f->data + 8, 7 * sizeof(*h));
	return true;
}

void idd_scan_save(const struct btf_lazy *lz)
{
	uint8_t head[START_HEADER];
	uint64_t kaslr, h[7];
	struct idd_cache_part parts[] = {
		{ head, sizeof(head) },
		{ lz->types_buf, lz->types_have },
		{ lz->strs_buf, lz->strs_have },
	};

	if (!lz->scan || !lz->cache_dir || lz->failed ||
	    (lz->types_have <= lz->cached_types &&
	     lz->strs_have <= lz->cached_strs))
		return;
	kaslr = idd_lazy_kaslr(lz->t);
	h[0] = lz->stop - lz->start;
	h[1] = lz->types_end - lz->types_at;
	h[2] = lz->strs_len;
	h[3] = lz->types_have;
	h[4] = lz->strs_have;
	h[5] = lz->start - kaslr;
	h[6] = lz->stop - kaslr;
	memcpy(head, START_MAGIC, 8);
	memcpy(head + 8, h, sizeof(h));
	idd_cache_store(lz->cache_dir, START_CACHE_NAME, parts, 3);
}

/*
 * What earlier runs read, from the cache: taken when its header matches
 * this BTF's and its bytes the dump's at a few places of each section
 * (see idd_lazy_same_as_dump()); else read again from the dump.
 */
static void start_from_cache(struct btf_lazy *lz)
{
	struct idd_cache_file f;
	uint64_t h[7];
	const uint8_t *types, *strs;
	bool ok;

	if (!lz->cache_dir ||
	    !idd_cache_map(lz->cache_dir, START_CACHE_NAME, &f))
		return;
	ok = start_header(&f, h);
	if (ok) {
		ok = h[0] == lz->stop - lz->start &&
		     h[1] == lz->types_end - lz->types_at &&
		     h[2] == lz->strs_len && h[3] <= h[1] && h[4] <= h[2] &&
		     f.size == START_HEADER + h[3] + h[4];
	}
	types = (const uint8_t *)f.data + START_HEADER;
	strs = ok ? types + h[3] : NULL;
	if (ok && idd_lazy_same_as_dump(lz, lz->types_at, types, h[3]) &&
	    idd_lazy_same_as_dump(lz, lz->strs_at, strs, h[4])) {
		memcpy(lz->types_buf, types, h[3]);
		memcpy(lz->strs_buf, strs, h[4]);
		lz->types_have = lz->cached_types = h[3];
		lz->strs_have = lz->cached_strs = h[4];
	}
	lz->failed = false; /* a sample not read: the dump's own, then */
	idd_cache_unmap(&f);
}

/*
 * lz to read the BTF at start..stop from its start, as far as its
 * lookups need: any BTF, sorted or not, and nothing read yet but its
 * header. NULL: not BTF, or out of memory.
 */
struct btf_lazy *idd_scan_open(struct idd_target *t, uint64_t start,
			       uint64_t stop, const char *cache_dir)
{
	struct btf_lazy *lz = calloc(1, sizeof(*lz));
	struct btf_header h;

	if (!lz)
		return NULL;
	if (!idd_lazy_header(lz, t, start, stop, &h) ||
	    !(lz->types_buf = malloc(h.type_len)) ||
	    !(lz->offs = malloc((h.type_len / 12 + 2) * sizeof(*lz->offs))) ||
	    !(lz->strs_buf = malloc(h.str_len))) {
		idd_lazy_release(lz);
		return NULL;
	}
	lz->scan = true;
	lz->scan_n = 1; /* id 0, void, has no record */
	lz->offs[0] = 0;
	if (cache_dir && !(lz->cache_dir = strdup(cache_dir))) {
		idd_lazy_release(lz);
		return NULL;
	}
	idd_lazy_memo(lz, cache_dir);
	start_from_cache(lz);
	lz->ntypes = h.type_len / 12 + 2; /* no more than this: taken as read */
	return lz;
}

/*
 * Where BTF in no order that earlier runs read from its start and kept
 * lay, moved by this dump's KASLR offset: saves the lookups of its place
 * in kallsyms (the caller still checks the dump has it there). False:
 * nothing kept, or not of a size BTF can have.
 */
bool idd_scan_cached_place(struct idd_target *t, const char *cache_dir,
			   uint64_t *start, uint64_t *stop)
{
	struct idd_cache_file f;
	uint64_t h[7], kaslr = idd_lazy_kaslr(t);
	bool ok;

	if (!cache_dir || !idd_cache_map(cache_dir, START_CACHE_NAME, &f))
		return false;
	ok = start_header(&f, h);
	idd_cache_unmap(&f);
	if (!ok || h[6] <= h[5] || h[6] - h[5] != h[0] || h[0] > BTF_MAX_SIZE)
		return false;
	*start = h[5] + kaslr;
	*stop = h[6] + kaslr;
	return true;
}
