// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One BTF, the kernel's compact type format (CONFIG_DEBUG_INFO_BTF):
 * parsed whole by libbpf (btf__new(): a parser fuzzed upstream), or read
 * on demand out of the dump (btf_ondemand.c) until a read fails, and then
 * read whole; its types by id and its names, whichever way it is read.
 *
 * A session without vmlinux takes every type from the BTF the dump
 * carries (__start_BTF..__stop_BTF, found through kallsyms: btf_dump.c).
 * (A session with a DWARF vmlinux takes struct mount from BTF through our
 * own lazy parser, btf_lazy.c: see there why.) The files of BTF and how
 * they stand on each other: btf_internal.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/btf_internal.h"

const struct btf_type *idd_btf_type(const struct idd_btf *b, uint32_t id)
{
	if (!id || id >= b->ntypes)
		return NULL;
	return b->lz ? idd_lazy_type(b->lz, id)
		     : idd_bpf.type_by_id(b->btf, id);
}

const char *idd_btf_str(const struct idd_btf *b, uint32_t off)
{
	const char *n = b->lz ? idd_lazy_str(b->lz, off)
			      : idd_bpf.name_by_offset(b->btf, off);

	return n ? n : "";
}

uint32_t idd_btf_lookup(const struct idd_btf *b, const char *name, int class)
{
	if (b->lz)
		return idd_lazy_lookup(b->lz, name, class);
	return idd_btf_index_lookup(b, name, class);
}

void idd_btf_free(struct idd_btf *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nmods; i++)
		idd_btf_free(b->mods[i]);
	free(b->mods);
	free(b->mods_unread);
	if (b->btf)
		idd_bpf.free_(b->btf);
	idd_lazy_free(b->lz);
	inodedump_error_free(b->broken);
	if (b->index.data) {
		idd_cache_unmap(&b->index);
	} else {
		free(b->slots);
		free(b->enums);
	}
	free(b);
}

size_t idd_btf_size(const struct idd_btf *b)
{
	return b->size;
}

struct inodedump_error *idd_btf_parse(const void *data, size_t size,
				      const char *where, struct idd_btf **out)
{
	return idd_btf_parse_cached(data, size, where, NULL, out);
}

struct inodedump_error *idd_btf_parse_cached(const void *data, size_t size,
					     const char *where,
					     const char *cache_dir,
					     struct idd_btf **out)
{
	_cleanup_free_ struct idd_btf *b = NULL;
	const char *why = idd_bpf_load();
	struct inodedump_error *err;
	uint16_t magic = 0;

	*out = NULL;
	if (why)
		return idd_error(INODEDUMP_ERR_TYPE, "BTF %s: %s", where, why);
	if (size >= 2)
		memcpy(&magic, data, 2);
	if (size < 24 || magic != BTF_MAGIC)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s: no BTF header (magic 0x%x, %zu bytes)",
				 where, magic, size);
	if (size > BTF_MAX_SIZE)
		return idd_error(INODEDUMP_ERR_TYPE, "BTF %s: %zu bytes", where,
				 size);
	b = calloc(1, sizeof(*b));
	if (!b)
		return idd_nomem();
	b->btf = idd_bpf.new_(data, (uint32_t)size); /* copies the bytes */
	if (!b->btf) {
		return idd_error(INODEDUMP_ERR_TYPE,
				 "BTF %s is corrupt: libbpf cannot parse its "
				 "%zu bytes", where, size);
	}
	b->ntypes = idd_bpf.type_cnt(b->btf);
	b->first_id = 1;
	b->size = size;
	if (cache_dir && idd_btf_index_from_cache(b, cache_dir)) {
		*out = TAKE_PTR(b);
		return NULL;
	}
	if ((err = idd_btf_index_build(b))) {
		idd_btf_free(TAKE_PTR(b));
		return err;
	}
	if (cache_dir)
		idd_btf_index_to_cache(b, cache_dir);
	*out = TAKE_PTR(b);
	return NULL;
}

/*
 * The kernel's BTF at start (size bytes) read whole out of the dump and
 * parsed by libbpf; kept in cache_dir (NULL: not) once parsed.
 */
struct inodedump_error *idd_btf_read_whole(struct idd_target *t, uint64_t start,
					   size_t size, const char *cache_dir,
					   struct idd_btf **out)
{
	_cleanup_free_ uint8_t *copy = malloc(size);
	struct inodedump_error *err;

	*out = NULL;
	if (!copy)
		return idd_nomem();
	err = idd_target_read(t, start, copy, size);
	if (err)
		return idd_error_wrap(err, "the kernel's BTF (%zu bytes at 0x%" PRIx64 ")",
				      size, start);
	idd_btf_to_host(copy, size); /* libbpf says what is wrong with it */
	err = idd_btf_parse_cached(copy, size, "in the dump", cache_dir, out);
	if (!err && cache_dir) {
		struct idd_cache_part part = { copy, size };

		idd_cache_store(cache_dir, BTF_CACHE_NAME, &part, 1);
	}
	return err;
}

/*
 * After a lookup: if reading on demand failed, read the BTF whole from
 * then on (libbpf checks it, the messages say what is wrong); true when
 * the lookup is to be made again.
 */
bool idd_btf_settle(struct idd_btf *b)
{
	struct btf_lazy *lz = b->lz;
	struct idd_btf *whole = NULL;
	struct inodedump_error *err;

	if (!lz || !lz->failed)
		return false;
	b->lz = NULL;
	/* Kept, as any whole read is: the next run maps it instead. */
	err = idd_btf_read_whole(lz->t, lz->start, lz->stop - lz->start, lz->cache_dir,
			 &whole);
	idd_lazy_free(lz);
	b->ntypes = 0;
	if (err) {
		b->broken = err;
		return true;
	}
	b->btf = whole->btf;
	b->ntypes = whole->ntypes;
	b->slots = whole->slots;
	b->mask = whole->mask;
	b->enums = whole->enums;
	b->nenums = whole->nenums;
	free(whole);
	return true;
}

/* Read the BTF whole now (for what only whole BTF answers). */
void idd_btf_whole(struct idd_btf *b)
{
	if (b->lz) {
		b->lz->failed = true;
		idd_btf_settle(b);
	}
}
