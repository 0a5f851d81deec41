/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * types: what the files of BTF share among themselves (types.h is what
 * the rest of the library sees). By layer, each calling only the ones
 * above it in this list:
 *   btf_libbpf.c   libbpf, loaded on first use
 *   btf_index.c    the name index of BTF parsed whole, and its cache
 *   btf_read.c     pieces of the dump's BTF: header, records, checks
 *   btf_order.c    a big-endian kernel's BTF in the host's order (types.h)
 *   btf_scan.c     the dump's BTF in no order, read from its start
 *   btf_ondemand.c the dump's BTF read on demand, by record and name
 *   btf.c          one BTF: parsed whole, or read on demand; by id, name
 *   btf_lookup.c   members, pointees and enums in one BTF
 *   btf_modules.c  the loaded modules' BTF, split on vmlinux's
 *   btf_dump.c     the kernel's BTF found in the dump, and how to read it
 *   btf_find.c     the kernel's BTF found by its header, and checked
 *   btf_source.c   BTF as a session's type source (source.h)
 * Not installed.
 */
#ifndef IDD_TYPES_BTF_INTERNAL_H
#define IDD_TYPES_BTF_INTERNAL_H

#include <bpf/btf.h>
#include <linux/btf.h>
#include <stdbool.h>
#include <stdint.h>

#include "types/types.h"

#define BTF_MAX_SIZE (64u << 20)
#define STRUCT_MAX (1u << 20)
/* The whole BTF as the cache keeps it. */
#define BTF_CACHE_NAME "vmlinux.btf"
#define LAZY_STR_MAX 4096u
#define LAZY_BTF_READ 512u

/* ---- btf_libbpf.c: the libbpf functions used, by dlopen(3) ---- */
struct idd_bpf {
	__typeof__(btf__new) *new_;
	__typeof__(btf__free) *free_;
	__typeof__(btf__type_cnt) *type_cnt;
	__typeof__(btf__type_by_id) *type_by_id;
	__typeof__(btf__name_by_offset) *name_by_offset;
	__typeof__(btf__resolve_size) *resolve_size;
	__typeof__(btf__parse_raw_split) *parse_raw_split;
};
extern struct idd_bpf idd_bpf;
/* libbpf, loaded once; NULL, or why it cannot be. */
const char *idd_bpf_load(void);

/* ---- btf.c: one BTF ---- */
struct idd_btf {
	struct btf *btf;
	uint32_t ntypes;
	/* Named struct/union (class 0) and enum (class 1) ids, by name. */
	uint32_t *slots;
	uint32_t mask;
	uint32_t *enums; /* every enum's id, for enumerators by name */
	size_t nenums;
	size_t size;
	struct idd_cache_file index; /* slots and enums, when from the cache */
	uint32_t first_id; /* 1, or a module's first own id (split BTF) */
	char module[64];   /* a module's name */
	/*
	 * vmlinux BTF: the loaded modules' BTF, read on the first struct
	 * vmlinux's has not (btf_modules), through syms and target.
	 */
	struct idd_btf **mods;
	size_t nmods;
	bool mods_tried;
	size_t nmods_unread;  /* modules whose BTF could not be read, */
	char *mods_unread;    /* the first few, each with why (malloc'd) */
	struct idd_symbols *syms;
	struct idd_target *target;
	struct btf_lazy *lz; /* read on demand (sorted BTF), NULL: whole */
	bool big_endian; /* the kernel's byte order (its members' values) */
	struct inodedump_error *broken; /* why it could not be read whole */
};

/* Type id (NULL: none), the string at off ("": none), of any BTF. */
const struct btf_type *idd_btf_type(const struct idd_btf *b, uint32_t id);
const char *idd_btf_str(const struct idd_btf *b, uint32_t off);
static inline const char *idd_btf_name(const struct idd_btf *b,
				       const struct btf_type *t)
{
	return idd_btf_str(b, t->name_off);
}
/* The lookup class of a type: 0 struct or union, 1 enum, -1 neither. */
static inline int idd_btf_class(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return 1;
	default:
		return -1;
	}
}
/* The first id of a name and class, 0: none. */
uint32_t idd_btf_lookup(const struct idd_btf *b, const char *name, int class);
/*
 * The kernel's BTF at start (size bytes) read whole out of the dump and
 * parsed by libbpf; kept in cache_dir (NULL: not) once parsed.
 */
struct inodedump_error *idd_btf_read_whole(struct idd_target *t,
					   uint64_t start, size_t size,
					   const char *cache_dir,
					   struct idd_btf **out);
/*
 * After a lookup: if reading on demand failed, read the BTF whole from
 * then on; true when the lookup is to be made again.
 */
bool idd_btf_settle(struct idd_btf *b);
/* Read the BTF whole now (for what only whole BTF answers). */
void idd_btf_whole(struct idd_btf *b);

/* ---- btf_index.c: the name index of BTF parsed whole ---- */
struct inodedump_error *idd_btf_index_build(struct idd_btf *b);
uint32_t idd_btf_index_lookup(const struct idd_btf *b, const char *name,
			      int class);
bool idd_btf_index_from_cache(struct idd_btf *b, const char *dir);
void idd_btf_index_to_cache(const struct idd_btf *b, const char *dir);

/* ---- btf_read.c: the dump's BTF read a piece at a time ---- */
struct btf_lazy_map {
	struct btf_lazy_slot {
		uint32_t key;
		void *copy;
	} *slots;
	size_t n, used; /* n a power of two */
};

struct btf_lazy {
	struct idd_target *t;
	uint64_t start, stop; /* __start_BTF, __stop_BTF */
	struct idd_memo *memo; /* start..stop as earlier runs read it */
	struct idd_memo *index_memo; /* the kernel's index, less types_at */
	uint64_t types_at, types_end, strs_at;
	uint32_t strs_len;
	uint64_t index; /* btf_vmlinux->types */
	uint32_t named; /* btf_vmlinux->named_start_id */
	uint32_t nr;	/* btf_vmlinux->nr_types */
	uint64_t page;	/* the dump's page size */
	uint8_t *checked; /* a bit per page of the index: its entries checked */
	/*
	 * No usable index (a dump that left its pages out): the type
	 * records read whole, and the offset of each, by id.
	 */
	uint8_t *types_buf;
	uint32_t *offs;
	struct idd_cache_file types_cached; /* types_buf, when from the cache */
	struct btf_lazy_map recs, strs; /* copies, by id and by offset */
	bool failed; /* a read failed, or a record was not one */
	/*
	 * BTF in no order (scan): read from its start as far as the lookups
	 * need, into types_buf (types_have bytes of it, the records up to
	 * types_next given offsets, ids 1..scan_n - 1) and strs_buf
	 * (strs_have bytes). Both are allocated whole on opening, so a
	 * record or name handed out never moves.
	 */
	bool scan, bad; /* bad: the record at types_next is not one */
	size_t types_have, types_next;
	uint32_t scan_n;
	char *strs_buf;
	size_t strs_have;
	/*
	 * The cache (NULL: none), where what earlier runs read from the start
	 * of BTF in no order is kept (this much of each was taken from
	 * there), and the whole BTF once read whole.
	 */
	char *cache_dir;
	size_t cached_types, cached_strs;
	uint32_t ntypes; /* ids below this may be records: the BTF's */
	/*
	 * Sorted BTF: the first words of the kernel's struct btf, read to
	 * find its index (nwords of them), and where in them the index
	 * pointer and the type count were found: btf_dump.c checks both
	 * against struct btf as the BTF itself describes it.
	 */
	uint64_t words[LAZY_BTF_READ / 8];
	size_t nwords;
	int64_t off_types, off_nr;
};

/* len bytes at addr; false (and lz->failed) when the read fails. */
bool idd_lazy_read(struct btf_lazy *lz, uint64_t addr, void *buf, size_t len);
/* The same up to a NUL where reading len bytes fails. */
bool idd_lazy_read_upto_nul(struct btf_lazy *lz, uint64_t addr, char *buf,
			    size_t len);
/* Bytes of a record from its first 12 (btf_type), or 0 if no such kind. */
size_t idd_btf_record_size(const struct btf_type *t);
/* The record at addr, copied whole (malloc'd) and checked to lie in the types. */
struct btf_type *idd_lazy_record(struct btf_lazy *lz, uint64_t addr);
void *idd_lazy_map_get(const struct btf_lazy_map *m, uint32_t key);
/* Keep copy (malloc'd) under key; NULL when out of memory (copy freed). */
void *idd_lazy_map_put(struct btf_lazy_map *m, uint32_t key, void *copy);
/* lz set up for the BTF at start..stop, from its header; false: not BTF. */
bool idd_lazy_header(struct btf_lazy *lz, struct idd_target *t,
		     uint64_t start, uint64_t stop, struct btf_header *h);
/* Whether lz's BTF begins with an anonymous type, as sorted BTF does. */
bool idd_lazy_first_anonymous(struct btf_lazy *lz, struct btf_type *first);
/* Whether len bytes of data are the dump's at at, by eight samples. */
bool idd_lazy_same_as_dump(struct btf_lazy *lz, uint64_t at,
			   const uint8_t *data, size_t len);
/* The dump's KASLR offset (VMCOREINFO), 0 when it gives none. */
uint64_t idd_lazy_kaslr(struct idd_target *t);
/* lz's reads of its BTF through a memo in cache_dir (NULL: none). */
void idd_lazy_memo(struct btf_lazy *lz, const char *cache_dir);
/* Free lz, nothing kept in the cache (idd_lazy_free() keeps it). */
void idd_lazy_release(struct btf_lazy *lz);

/* ---- btf_scan.c: the dump's BTF in no order, read from its start ---- */
/*
 * lz to read the BTF at start..stop from its start, nothing read yet but
 * its header and what earlier runs kept in cache_dir (NULL: none).
 */
struct btf_lazy *idd_scan_open(struct idd_target *t, uint64_t start,
			       uint64_t stop, const char *cache_dir);
/* Offsets taken as far as id (true), or every record's (false: no id). */
bool idd_scan_to(struct btf_lazy *lz, uint32_t id);
/* The first id of name and class, as whole BTF's index has it; 0: none. */
uint32_t idd_scan_lookup(struct btf_lazy *lz, const char *name, int class);
/* What this run read, kept in the cache for the next. */
void idd_scan_save(const struct btf_lazy *lz);
/* Where BTF that earlier runs read and kept lay (moved by t's KASLR). */
bool idd_scan_cached_place(struct idd_target *t, const char *cache_dir,
			   uint64_t *start, uint64_t *stop);

/* ---- btf_ondemand.c: the dump's BTF read on demand ---- */
const struct btf_type *idd_lazy_type(struct btf_lazy *lz, uint32_t id);
const char *idd_lazy_str(struct btf_lazy *lz, uint32_t off);
uint32_t idd_lazy_lookup(struct btf_lazy *lz, const char *name, int class);
/* btf__resolve_size() for BTF read on demand. */
__s64 idd_lazy_size(struct btf_lazy *lz, uint32_t id);
/*
 * lz to read the BTF at start..stop on demand through the kernel's index
 * of it, found through the pointer at kbtf (btf_vmlinux's address; 0:
 * none), else through offsets of its own; NULL when the BTF is not
 * sorted. lz->words and the offsets found in them are still to be
 * checked against struct btf (btf_dump.c).
 */
struct btf_lazy *idd_lazy_open(struct idd_target *t, uint64_t kbtf,
			       uint64_t start, uint64_t stop,
			       const char *cache_dir);
void idd_lazy_free(struct btf_lazy *lz);

/* ---- btf_lookup.c: members, pointees and enums in one BTF ---- */
/* Strip typedefs and qualifiers. */
uint32_t idd_btf_peel(const struct idd_btf *b, uint32_t id);
/* A member's byte offset in struct agg, or -1. */
int64_t idd_btf_member_offset(struct idd_btf *b, uint32_t agg,
			      const char *name);
/* struct name of b itself (not its modules'); false: none, or too big. */
bool idd_btf_own_struct(struct idd_btf *b, const char *name,
			struct idd_struct *out);

/* ---- btf_modules.c: the loaded modules' BTF ---- */
void idd_btf_load_modules(struct idd_btf *b);

/* ---- btf_find.c: the kernel's BTF found by its header, and checked ---- */
/*
 * The one BTF header in the kernel's read-only data (_etext.._sinittext
 * by syms), or where the cache says an earlier run found it
 * (*from_cache): start..stop. None: *why says what was looked for
 * (malloc'd). Several: an error naming them.
 */
struct inodedump_error *idd_btf_find_in_image(struct idd_symbols *syms,
					      struct idd_target *t,
					      const char *cache_dir,
					      uint64_t *start, uint64_t *stop,
					      bool *from_cache, char **why);
/* Where the BTF was found, kept in cache_dir for the next run. */
void idd_btf_found_keep(struct idd_target *t, const char *cache_dir,
			uint64_t start, uint64_t stop);
/*
 * Whether the BTF found is this kernel's: it has struct inode (with
 * i_mode), and every SIZE()/OFFSET() VMCOREINFO gives of the structs it
 * names agrees (*agreed of them).
 */
struct inodedump_error *idd_btf_check_found(struct idd_btf *b,
					    struct idd_target *t,
					    size_t *agreed);

#endif
