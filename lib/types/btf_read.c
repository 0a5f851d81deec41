// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dump's BTF read a piece at a time, for btf_scan.c and
 * btf_ondemand.c: its header, a record copied and checked against its
 * section, a name, bytes compared with the cache's copy; copies kept by
 * id or offset.
 */
#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "types/btf_internal.h"

static void map_free(struct btf_lazy_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->slots[i].copy);
	free(m->slots);
}

void idd_lazy_release(struct btf_lazy *lz)
{
	if (!lz)
		return;
	idd_memo_close(lz->memo, false);
	idd_memo_close(lz->index_memo, false);
	free(lz->cache_dir);
	map_free(&lz->recs);
	map_free(&lz->strs);
	free(lz->checked);
	free(lz->strs_buf);
	if (lz->types_cached.data)
		idd_cache_unmap(&lz->types_cached);
	else
		free(lz->types_buf);
	free(lz->offs);
	free(lz);
}

static struct btf_lazy_slot *map_slot(const struct btf_lazy_map *m, uint32_t key)
{
	uint32_t h = key * 2654435761u;

	for (size_t i = 0; i < m->n; i++) {
		struct btf_lazy_slot *s = &m->slots[(h + i) & (m->n - 1)];

		if (!s->copy || s->key == key)
			return s;
	}
	return NULL;
}

void *idd_lazy_map_get(const struct btf_lazy_map *m, uint32_t key)
{
	struct btf_lazy_slot *s = m->n ? map_slot(m, key) : NULL;

	return s ? s->copy : NULL;
}

/* Keep copy (malloc'd) under key; NULL when out of memory (copy freed). */
void *idd_lazy_map_put(struct btf_lazy_map *m, uint32_t key, void *copy)
{
	if (2 * (m->used + 1) > m->n) {
		struct btf_lazy_map grown = { calloc(m->n ? 2 * m->n : 256,
						 sizeof(struct btf_lazy_slot)),
					  m->n ? 2 * m->n : 256, m->used };

		if (!grown.slots) {
			free(copy);
			return NULL;
		}
		for (size_t i = 0; i < m->n; i++)
			if (m->slots[i].copy)
				*map_slot(&grown, m->slots[i].key) = m->slots[i];
		free(m->slots);
		*m = grown;
	}
	*map_slot(m, key) = (struct btf_lazy_slot){ key, copy };
	m->used++;
	return copy;
}

/* len bytes at addr, through the memo where there is one. */
static bool read_quiet(struct btf_lazy *lz, uint64_t addr, void *buf,
		       size_t len)
{
	struct inodedump_error *err;

	if (lz->index_memo && addr >= lz->index &&
	    addr - lz->index < 8ull * lz->nr)
		return idd_memo_read(lz->index_memo, addr, buf, len);
	if (lz->memo)
		return idd_memo_read(lz->memo, addr, buf, len);
	err = idd_target_read_unexplained(lz->t, addr, buf, len);
	inodedump_error_free(err);
	return !err;
}

bool idd_lazy_read(struct btf_lazy *lz, uint64_t addr, void *buf, size_t len)
{
	if (!read_quiet(lz, addr, buf, len)) {
		lz->failed = true;
		return false;
	}
	return true;
}

void idd_lazy_memo(struct btf_lazy *lz, const char *cache_dir)
{
	lz->memo = idd_memo_open(lz->t, cache_dir, "vmlinux.btf.pages",
				 lz->start, lz->stop - lz->start, 0, 0);
}

/*
 * Bytes of a record from its first 12 (btf_type), or 0 if no such kind:
 * the head, then what each kind has after it, once or per vlen entry
 * (the vlen of an int, a func or a var is not a count).
 */
size_t idd_btf_record_size(const struct btf_type *t)
{
	static const uint8_t once[BTF_KIND_ENUM64 + 1] = {
		[BTF_KIND_INT] = 4,
		[BTF_KIND_VAR] = 4,
		[BTF_KIND_DECL_TAG] = 4,
		[BTF_KIND_ARRAY] = sizeof(struct btf_array),
	};
	static const uint8_t each[BTF_KIND_ENUM64 + 1] = {
		[BTF_KIND_STRUCT] = sizeof(struct btf_member),
		[BTF_KIND_UNION] = sizeof(struct btf_member),
		[BTF_KIND_ENUM] = sizeof(struct btf_enum),
		[BTF_KIND_ENUM64] = sizeof(struct btf_enum64),
		[BTF_KIND_FUNC_PROTO] = sizeof(struct btf_param),
		[BTF_KIND_DATASEC] = sizeof(struct btf_var_secinfo),
	};
	unsigned kind = btf_kind(t);

	if (kind == BTF_KIND_UNKN || kind > BTF_KIND_ENUM64)
		return 0;
	return 12 + once[kind] + (size_t)each[kind] * btf_vlen(t);
}

/* The record at addr, copied whole and checked to lie in the types. */
struct btf_type *idd_lazy_record(struct btf_lazy *lz, uint64_t addr)
{
	struct btf_type head;
	size_t size;
	void *copy;

	if (addr < lz->types_at || addr % 4 || lz->types_end - addr < 12 ||
	    !idd_lazy_read(lz, addr, &head, 12))
		return NULL;
	size = idd_btf_record_size(&head);
	if (!size || size > lz->types_end - addr || !(copy = malloc(size)))
		return NULL;
	memcpy(copy, &head, 12);
	if (size > 12 &&
	    !idd_lazy_read(lz, addr + 12, (uint8_t *)copy + 12, size - 12)) {
		free(copy);
		return NULL;
	}
	return copy;
}

/*
 * len bytes at addr into buf; where that read fails, byte by byte up to a
 * NUL (a name may end just before memory that is not there).
 */
bool idd_lazy_read_upto_nul(struct btf_lazy *lz, uint64_t addr, char *buf,
			    size_t len)
{
	if (read_quiet(lz, addr, buf, len))
		return true;
	for (size_t i = 0; i < len; i++) {
		if (!idd_lazy_read(lz, addr + i, buf + i, 1))
			return false;
		if (!buf[i]) {
			memset(buf + i, 0, len - i);
			return true;
		}
	}
	return true;
}

/*
 * Whether data (len bytes from the cache) has the dump's bytes at at, as
 * far as eight samples of 256 bytes along it tell, the first and the
 * last included (a few pages read against a whole section's).
 */
bool idd_lazy_same_as_dump(struct btf_lazy *lz, uint64_t at, const uint8_t *data,
			   size_t len)
{
	uint8_t sample[256];
	size_t n = len < sizeof(sample) ? len : sizeof(sample);
	bool same = true;

	for (size_t k = 0; same && n && k < 8; k++) {
		size_t off = (len - n) / 7 * k;

		if (k == 7)
			off = len - n;
		same = idd_lazy_read(lz, at + off, sample, n) &&
		       !memcmp(data + off, sample, n);
	}
	return same;
}

/* The dump's KASLR offset (VMCOREINFO), 0 when it gives none. */
uint64_t idd_lazy_kaslr(struct idd_target *t)
{
	const char *v = idd_target_vmcoreinfo(t, "KERNELOFFSET");

	return v ? strtoull(v, NULL, 16) : 0;
}

/* Whether lz's BTF begins with an anonymous type, as sorted BTF does. */
bool idd_lazy_first_anonymous(struct btf_lazy *lz, struct btf_type *first)
{
	return idd_lazy_read(lz, lz->types_at, first, 12) && !first->name_off &&
	       idd_btf_record_size(first);
}

/* lz set up for the BTF at start..stop, from its header; false: not BTF. */
bool idd_lazy_header(struct btf_lazy *lz, struct idd_target *t, uint64_t start,
		     uint64_t stop, struct btf_header *h)
{
	lz->t = t;
	lz->start = start;
	lz->stop = stop;
	if (!idd_lazy_read(lz, start, h, sizeof(*h)) || h->magic != BTF_MAGIC ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > stop - start ||
	    h->type_off % 4 || h->type_len < 24 || !h->str_len ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > stop - start ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > stop - start)
		return false;
	lz->types_at = start + h->hdr_len + h->type_off;
	lz->types_end = lz->types_at + h->type_len;
	lz->strs_at = start + h->hdr_len + h->str_off;
	lz->strs_len = h->str_len;
	lz->page = idd_target_page_size(t);
	if (!lz->page || (lz->page & (lz->page - 1)))
		lz->page = 4096; /* the unit the index is checked by */
	return true;
}
