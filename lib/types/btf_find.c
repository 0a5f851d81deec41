// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's BTF found in its image by its header where kallsyms does
 * not place it, and checked to be this kernel's.
 *
 * A kernel built with CONFIG_KALLSYMS_ALL off (Debian's arm64 5.10 and
 * 6.1) keeps only text symbols in kallsyms: no __start_BTF, although its
 * BTF is in the image all the same, in the read-only data between the end
 * of its text (_etext) and its init text (_sinittext), two text symbols
 * kallsyms does keep. That range is read and every BTF header in it
 * (magic 0xeB9F, version 1, no flags, its type and string sections inside
 * the range) is a candidate: one is taken, several are refused by name.
 * What is taken is then checked before the session uses it: it parses,
 * it has struct inode, and each size and offset VMCOREINFO gives of the
 * kernel's structs is the one it says. Where the find lay (less the KASLR
 * offset) is kept in the cache, so the next run of that kernel reads only
 * the header there.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "target/target.h"
#include "types/btf_internal.h"

#define FOUND_CACHE_NAME "btf.found"
#define FOUND_MAGIC "IDDBTFF1"
#define FIND_CHUNK (256u << 10)
#define FIND_MAX (256u << 20) /* _etext.._sinittext longer: not an image */
#define FIND_NAMED 4	      /* candidates named in a refusal */
#define BTF_HDR_MAX 256u      /* a header longer than any kernel writes */

/*
 * The extent of the BTF whose header is at buf (avail bytes of it read)
 * when the header is one the kernel writes and its sections end by limit
 * bytes from it; 0 otherwise.
 */
static uint64_t header_extent(const uint8_t *buf, size_t avail, uint64_t limit)
{
	struct btf_header h;
	uint64_t types_end, strs_end, end;

	if (avail < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	/* the other byte order's (a big-endian kernel's): in the host's */
	if (h.magic == __builtin_bswap16(BTF_MAGIC)) {
		h.magic = BTF_MAGIC;
		h.hdr_len = __builtin_bswap32(h.hdr_len);
		h.type_off = __builtin_bswap32(h.type_off);
		h.type_len = __builtin_bswap32(h.type_len);
		h.str_off = __builtin_bswap32(h.str_off);
		h.str_len = __builtin_bswap32(h.str_len);
	}
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.flags ||
	    h.hdr_len < sizeof(h) || h.hdr_len > BTF_HDR_MAX ||
	    h.type_off % 4 || h.type_len < 24 || !h.str_len)
		return 0;
	types_end = (uint64_t)h.hdr_len + h.type_off + h.type_len;
	strs_end = (uint64_t)h.hdr_len + h.str_off + h.str_len;
	end = types_end > strs_end ? types_end : strs_end;
	return end <= limit && end <= BTF_MAX_SIZE ? end : 0;
}

struct found {
	uint64_t at[FIND_NAMED + 1], end[FIND_NAMED + 1];
	size_t n;
	uint64_t unread; /* bytes of the range not in the dump */
};

/* Each header in buf (len bytes at addr, read to avail) into f. */
static void scan_chunk(const uint8_t *buf, size_t len, size_t avail,
		       uint64_t addr, uint64_t hi, struct found *f)
{
	for (size_t off = 0; off + 8 <= len; off += 4) {
		uint64_t ext;

		/* either byte order's magic (header_extent() tells them) */
		if ((buf[off] != (uint8_t)BTF_MAGIC ||
		     buf[off + 1] != (uint8_t)(BTF_MAGIC >> 8)) &&
		    (buf[off] != (uint8_t)(BTF_MAGIC >> 8) ||
		     buf[off + 1] != (uint8_t)BTF_MAGIC))
			continue;
		ext = header_extent(buf + off, avail - off, hi - (addr + off));
		if (!ext)
			continue;
		if (f->n <= FIND_NAMED) {
			f->at[f->n] = addr + off;
			f->end[f->n] = addr + off + ext;
		}
		f->n++;
	}
}

/*
 * Every BTF header in lo..hi (4-byte aligned, as the linker places .BTF),
 * read a chunk at a time, a page at a time where a chunk is not all in
 * the dump.
 */
static struct inodedump_error *scan_range(struct idd_target *t, uint64_t lo,
					  uint64_t hi, struct found *f)
{
	uint64_t page = idd_target_page_size(t);
	_cleanup_free_ uint8_t *buf = malloc(FIND_CHUNK + BTF_HDR_MAX);

	if (!buf)
		return idd_nomem();
	if (!page || page & (page - 1) || page > FIND_CHUNK)
		page = 4096;
	for (uint64_t at = lo; at < hi;) {
		size_t len = hi - at < FIND_CHUNK ? hi - at : FIND_CHUNK;
		size_t avail = hi - at < FIND_CHUNK + sizeof(struct btf_header)
				       ? hi - at
				       : len + sizeof(struct btf_header);
		struct inodedump_error *err =
			idd_target_read_unexplained(t, at, buf, avail);

		if (!err) {
			scan_chunk(buf, len, avail, at, hi, f);
			at += len;
			continue;
		}
		inodedump_error_free(err);
		/* A page at a time; a header across a missing page is lost. */
		for (uint64_t p = at; p < at + len;) {
			uint64_t next = (p & ~(page - 1)) + page;
			size_t n = (next < at + len ? next : at + len) - p;

			err = idd_target_read_unexplained(t, p, buf, n);
			if (err) {
				inodedump_error_free(err);
				f->unread += n;
			} else {
				scan_chunk(buf, n, n, p, hi, f);
			}
			p += n;
		}
		at += len;
	}
	return NULL;
}

/*
 * The cache's record of a find, less the KASLR offset: where the BTF lay
 * (start..stop), or, start and stop 0, that the range lo..hi held none
 * when it was all read (a kernel image is the same in every dump of it).
 */
struct found_record {
	uint64_t start, stop, lo, hi;
};

static void keep(struct idd_target *t, const char *cache_dir,
		 struct found_record r)
{
	uint64_t kaslr = idd_lazy_kaslr(t);
	struct idd_cache_part parts[2] = { { FOUND_MAGIC, 8 },
					   { &r, sizeof(r) } };

	if (!cache_dir)
		return;
	if (r.start) {
		r.start -= kaslr;
		r.stop -= kaslr;
	}
	r.lo -= kaslr;
	r.hi -= kaslr;
	idd_cache_store(cache_dir, FOUND_CACHE_NAME, parts, 2);
}

/*
 * What an earlier run found, as this dump's addresses: true with r->start
 * 0 for none; a place only when the dump has that BTF's header there.
 */
static bool found_cached(struct idd_target *t, const char *cache_dir,
			 struct found_record *r)
{
	struct idd_cache_file f;
	uint64_t kaslr = idd_lazy_kaslr(t);
	uint8_t head[BTF_HDR_MAX];
	bool ok;

	if (!cache_dir || !idd_cache_map(cache_dir, FOUND_CACHE_NAME, &f))
		return false;
	ok = f.size == 8 + sizeof(*r) && !memcmp(f.data, FOUND_MAGIC, 8);
	if (ok)
		memcpy(r, (const uint8_t *)f.data + 8, sizeof(*r));
	idd_cache_unmap(&f);
	if (!ok || r->hi <= r->lo)
		return false;
	r->lo += kaslr;
	r->hi += kaslr;
	if (!r->start && !r->stop)
		return true;
	if (r->stop <= r->start || r->stop - r->start > BTF_MAX_SIZE)
		return false;
	r->start += kaslr;
	r->stop += kaslr;
	ok = idd_target_read_unexplained(t, r->start, head, sizeof(head)) ==
	     NULL;
	return ok && header_extent(head, sizeof(head), r->stop - r->start) ==
			     r->stop - r->start;
}

void idd_btf_found_keep(struct idd_target *t, const char *cache_dir,
			uint64_t start, uint64_t stop)
{
	keep(t, cache_dir,
	     (struct found_record){ start, stop, start, stop });
}

/* Why none was found in lo..hi (unread bytes of it not in the dump). */
static char *none_found(uint64_t lo, uint64_t hi, uint64_t unread,
			bool cached)
{
	char more[96] = ", all read";

	if (unread)
		snprintf(more, sizeof(more), ", %" PRIu64 " of them not in "
			 "the dump", unread);
	else if (cached)
		snprintf(more, sizeof(more), ", all read by an earlier run of "
			 "this kernel");
	return idd_strdup_printf(
		"kallsyms has no __start_BTF (it keeps only text symbols: "
		"CONFIG_KALLSYMS_ALL is off), and no BTF header (magic "
		"0xeB9F, version 1, its sections inside the range) is in the "
		"kernel's read-only data between _etext and _sinittext "
		"(0x%" PRIx64 "..0x%" PRIx64 ", %" PRIu64 " bytes%s)",
		lo, hi, hi - lo, more);
}

struct inodedump_error *idd_btf_find_in_image(struct idd_symbols *syms,
					      struct idd_target *t,
					      const char *cache_dir,
					      uint64_t *start, uint64_t *stop,
					      bool *from_cache, char **why)
{
	uint64_t lo, hi;
	struct found f = { 0 };
	struct inodedump_error *err;

	*why = NULL;
	*from_cache = false;
	struct found_record r;

	if (found_cached(t, cache_dir, &r)) {
		*start = r.start;
		*stop = r.stop;
		*from_cache = r.start != 0;
		if (r.start)
			return NULL;
		*why = none_found(r.lo, r.hi, 0, true);
		return *why ? NULL : idd_nomem();
	}
	if (!idd_symbols_address(syms, "_etext", &lo) ||
	    !idd_symbols_address(syms, "_sinittext", &hi)) {
		*why = idd_strdup_printf(
			"kallsyms has no __start_BTF (it keeps only text "
			"symbols: CONFIG_KALLSYMS_ALL is off), nor %s, which "
			"bounds the read-only data BTF lies in",
			idd_symbols_address(syms, "_etext", &lo)
				? "_sinittext"
				: "_etext");
		return *why ? NULL : idd_nomem();
	}
	lo = (lo + 3) & ~(uint64_t)3;
	if (hi <= lo || hi - lo > FIND_MAX) {
		*why = idd_strdup_printf(
			"kallsyms has no __start_BTF (it keeps only text "
			"symbols: CONFIG_KALLSYMS_ALL is off), and its _etext "
			"(0x%" PRIx64 ") and _sinittext (0x%" PRIx64 ") bound "
			"no read-only data to look for BTF in", lo, hi);
		return *why ? NULL : idd_nomem();
	}
	err = scan_range(t, lo, hi, &f);
	if (err)
		return err;
	if (f.n == 1) {
		*start = f.at[0];
		*stop = f.end[0];
		return NULL;
	}
	if (f.n > 1) {
		char list[FIND_NAMED * 48] = "";
		size_t used = 0;

		for (size_t i = 0; i < f.n && i < FIND_NAMED; i++)
			used += (size_t)snprintf(
				list + used, sizeof(list) - used,
				"%s0x%" PRIx64 " (%" PRIu64 " bytes)",
				i ? ", " : "", f.at[i], f.end[i] - f.at[i]);
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%zu BTF headers in the kernel's read-only "
				 "data between _etext and _sinittext (kallsyms "
				 "has no __start_BTF to say which is the "
				 "kernel's): %s%s; none is taken",
				 f.n, list, f.n > FIND_NAMED ? ", ..." : "");
	}
	if (!f.unread)
		keep(t, cache_dir, (struct found_record){ 0, 0, lo, hi });
	*why = none_found(lo, hi, f.unread, false);
	return *why ? NULL : idd_nomem();
}

/*
 * The sizes and offsets VMCOREINFO gives (SIZE(s), OFFSET(s.m)) that a
 * BTF found by its header must agree with: the kernel wrote them from its
 * own types.
 */
static const struct {
	const char *s, *m; /* m NULL: SIZE(s) */
} VMCOREINFO_TYPES[] = {
	{ "page", NULL },	     { "page", "flags" },
	{ "page", "_refcount" },     { "page", "mapping" },
	{ "page", "lru" },	     { "page", "_mapcount" },
	{ "page", "private" },	     { "pglist_data", NULL },
	{ "zone", NULL },	     { "free_area", NULL },
	{ "list_head", NULL },	     { "list_head", "next" },
	{ "list_head", "prev" },     { "pglist_data", "node_zones" },
	{ "zone", "free_area" },     { "free_area", "free_list" },
	{ "mem_section", NULL },     { "mem_section", "section_mem_map" },
	{ "vmap_area", "va_start" }, { "vmap_area", "list" },
	{ "printk_ringbuffer", NULL },
};

struct inodedump_error *idd_btf_check_found(struct idd_btf *b,
					    struct idd_target *t,
					    size_t *agreed)
{
	struct idd_struct s;
	struct idd_member m;
	struct inodedump_error *err;
	char key[96];

	*agreed = 0;
	err = idd_btf_struct(b, "inode", &s);
	if (err)
		return idd_error_wrap(err, "the BTF found has no struct inode");
	idd_btf_types_member(b, &s, "i_mode", &m);
	if (!m.present || !s.size)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "the BTF found has a struct inode without "
				 "i_mode");
	for (size_t i = 0;
	     i < sizeof(VMCOREINFO_TYPES) / sizeof(*VMCOREINFO_TYPES); i++) {
		const char *st = VMCOREINFO_TYPES[i].s, *mb = VMCOREINFO_TYPES[i].m;
		const char *v;
		uint64_t want, have;

		if (mb)
			snprintf(key, sizeof(key), "OFFSET(%s.%s)", st, mb);
		else
			snprintf(key, sizeof(key), "SIZE(%s)", st);
		if (!(v = idd_target_vmcoreinfo(t, key)))
			continue;
		want = strtoull(v, NULL, 10);
		err = idd_btf_struct(b, st, &s);
		if (err)
			return idd_error_wrap(err,
					      "VMCOREINFO has %s=%s, the BTF "
					      "found no struct %s", key, v, st);
		if (mb) {
			idd_btf_types_member(b, &s, mb, &m);
			if (!m.present)
				return idd_error(INODEDUMP_ERR_DUMP,
						 "VMCOREINFO has %s=%s, the "
						 "BTF found no member %s of "
						 "struct %s", key, v, mb, st);
			have = m.offset;
		} else {
			have = s.size;
		}
		if (have != want)
			return idd_error(INODEDUMP_ERR_DUMP,
					 "VMCOREINFO has %s=%s, the BTF found "
					 "says %" PRIu64 ": it is not this "
					 "kernel's", key, v, have);
		(*agreed)++;
	}
	return NULL;
}
