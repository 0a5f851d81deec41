/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* types: struct layouts (DWARF, BTF) and symbols (vmlinux, modules). */
#ifndef IDD_TYPES_TYPES_H
#define IDD_TYPES_TYPES_H

#include <elfutils/libdw.h>

#include "core/error.h"

struct idd_target;

/*
 * ---- types (types.c): struct layouts from the session's type source,
 * chosen at open (source.h): vmlinux DWARF (dwarf.c) or BTF (btf_*.c) ----
 */
struct idd_types;

/* debug_root: where a dwz supplementary file is looked for (NULL: /). */
struct inodedump_error *idd_types_open(const char *vmlinux,
				       const char *debug_root,
				       struct idd_types **out);
void idd_types_close(struct idd_types *types);
/*
 * The dump's byte order, which every member found from now on carries
 * (idd_member_uval() loads in it); little-endian until said.
 */
void idd_types_set_big_endian(struct idd_types *types, bool big);
/* The ELF handle of vmlinux (for its symbol table and notes). */
struct Elf *idd_types_elf(struct idd_types *types);
int idd_types_fd(struct idd_types *types); /* vmlinux, open for reading */
/* The dwz supplementary file vmlinux's DWARF is read with, or NULL. */
const char *idd_types_dwz(struct idd_types *types);
/* vmlinux's ELF machine (EM_*; 0: unreadable), *is64 its class. */
unsigned idd_elf_machine(struct Elf *elf, bool *is64);

struct idd_btf;

/*
 * A whole BTF blob (its header and type section) put in the host's byte
 * order in place (btf_order.c): 0 it was, 1 it was swapped (the kernel's
 * order is the other), -1 no BTF header (left as it was).
 */
int idd_btf_to_host(uint8_t *data, size_t size);

/*
 * A session without vmlinux: every type from BTF (takes btf, also on
 * failure). idd_types_elf() is then NULL and idd_types_fd() -1.
 */
struct inodedump_error *idd_types_open_btf(struct idd_btf *btf,
					   struct idd_types **out);
/* The BTF every type comes from, or NULL (types from DWARF). */
struct idd_btf *idd_types_btf(struct idd_types *types);

/* A complete struct/union definition. */
struct idd_dwarf;
struct idd_struct {
	uint64_t die;	      /* DWARF: the DIE's reference (dwarf.c) */
	struct idd_dwarf *dwarf; /* DWARF: the source it is of */
	uint32_t btf_id;      /* BTF: the id, */
	struct idd_btf *btf;  /* in this BTF (a module's), NULL: the types' */
	uint64_t size;
};

/* Find the complete definition of "struct name" (or union). */
struct inodedump_error *idd_types_struct(struct idd_types *types,
					 const char *name,
					 struct idd_struct *out);

/* Same, looking first in the CU whose file name ends with cu_hint. */
struct inodedump_error *idd_types_struct_in(struct idd_types *types,
					    const char *name,
					    const char *cu_hint,
					    struct idd_struct *out);
/*
 * Same, looking only in that CU where the source has units (DWARF): a
 * struct of a module is in no unit of vmlinux, and a search of every unit
 * costs ~0.5 s. INODEDUMP_ERR_TYPE when the unit has none.
 */
struct inodedump_error *idd_types_struct_only_in(struct idd_types *types,
						 const char *name,
						 const char *cu_hint,
						 struct idd_struct *out);
/*
 * Tell the type search which unit is cu_hint's: the one whose code covers
 * code_addr (a link-time address of a function defined in that file), as
 * .debug_aranges says. Saves a walk over every unit's name.
 */
void idd_types_anchor(struct idd_types *types, const char *cu_hint,
		      uint64_t code_addr);
/* Whether idd_types_anchor() placed cu_hint's unit (false: no units). */
bool idd_types_anchored(struct idd_types *types, const char *cu_hint);
/*
 * Whether the CU cu_hint defines (or inlines) function name: true only
 * where the types say so (DWARF); false where they do not, or cannot tell
 * (BTF has no inlined functions).
 */
bool idd_types_function(struct idd_types *types, const char *cu_hint,
			const char *name);
/*
 * The value of enumerator name, from the enums of the CU cu_hint; from
 * BTF, first from the enum named enum_hint (NULL: none), which spares a
 * BTF read on demand the walk of every enum.
 */
bool idd_types_enumerator(struct idd_types *types, const char *cu_hint,
			  const char *enum_hint, const char *name,
			  int64_t *value);

/*
 * Every enumerator of "enum enum_name" as the CU cu_hint defines it;
 * false when that unit has no such enum.
 */
typedef void (*idd_enumerator_fn)(const char *name, int64_t value, void *arg);
bool idd_types_enum(struct idd_types *types, const char *cu_hint,
		    const char *enum_name, idd_enumerator_fn fn, void *arg);

enum idd_kind {
	IDD_KIND_OTHER,
	IDD_KIND_INT,	 /* base types, enums, bool */
	IDD_KIND_PTR,
	IDD_KIND_STRUCT, /* struct or union */
	IDD_KIND_ARRAY,
};

struct idd_member {
	bool present;
	uint64_t offset;  /* bytes from the start of the outer struct */
	uint64_t size;	  /* bytes of the member's type */
	unsigned bit_size; /* 0 unless a bitfield */
	/*
	 * From offset: the least significant bit's (little-endian), the
	 * most significant's (big-endian), as the bit numbering of the
	 * kernel's byte order goes.
	 */
	unsigned bit_offset;
	bool is_signed;
	/* Its value's byte order, the dump's (idd_types_set_big_endian()). */
	bool big_endian;
	enum idd_kind kind;
	/* DWARF: its type's DIE reference, peeled of typedefs and qualifiers */
	uint64_t type;
	struct idd_dwarf *dwarf;
	struct idd_btf *btf; /* the same from BTF: its type id */
	uint32_t btf_type;
};

/* The struct or union that is a member's type (m->kind IDD_KIND_STRUCT). */
struct idd_struct idd_member_struct(const struct idd_member *m);

/*
 * Member by a dotted path ("i_count.counter", "i_data.a_ops"), looking
 * through anonymous structs and unions. out->present is false when this
 * kernel's struct has no such member.
 */
void idd_types_member(struct idd_types *types, const struct idd_struct *s,
		      const char *path, struct idd_member *out);
/* The struct a pointer member points to (complete definition). */
struct inodedump_error *idd_types_pointee_struct(struct idd_types *types,
						 const struct idd_member *m,
						 struct idd_struct *out);
/*
 * Enumerators of the enum that is a member's type, or of the enum named
 * name. Calls fn for each; returns false if no such enum.
 */
bool idd_types_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			   void *arg);

/* Extract a member's integer value from a struct's bytes. */
uint64_t idd_member_uval(const struct idd_member *m, const uint8_t *buf);
int64_t idd_member_sval(const struct idd_member *m, const uint8_t *buf);

/* ---- symbols (symbols.c): address <-> name with KASLR applied ---- */
struct idd_symbols;

struct inodedump_error *idd_symbols_open(struct Elf *elf, int fd,
					 uint64_t kaslr_offset,
					 struct idd_symbols **out);
void idd_symbols_close(struct idd_symbols *syms);
void idd_symbols_set_kaslr(struct idd_symbols *syms, uint64_t kaslr_offset);
/*
 * Whether the types are vmlinux DWARF whose answers are kept per kernel in
 * the cache (dwarf_index.c): then a type looked for once is read from them
 * on every later run at less cost than any parse of BTF.
 */
bool idd_types_answers_kept(struct idd_types *types);
/* Those answers (NULL: none), for the symbols to keep theirs in too. */
struct idd_dwx;
struct idd_dwx *idd_types_answers(struct idd_types *types);
void idd_symbols_answers(struct idd_symbols *syms, struct idd_dwx *answers);
/*
 * *name: "name" or "name+0x10" for a runtime address, NULL when no symbol
 * covers it; malloc'd, the caller frees it.
 */
struct inodedump_error *idd_symbols_name(struct idd_symbols *syms,
					 uint64_t addr, char **name);
/* Many lookups ahead (a sweep): index the data symbols now. */
void idd_symbols_expect_many(struct idd_symbols *syms);
/*
 * The same for n <= 8 addresses at once: out[i] as *name above, the
 * caller frees each; on error every out[i] is NULL.
 */
struct inodedump_error *idd_symbols_names(struct idd_symbols *syms,
					  const uint64_t *addrs, size_t n,
					  char **out);
/*
 * Look these names up in one pass over the symbol table (vmlinux's), so
 * that idd_symbols_address() answers them without one each.
 */
void idd_symbols_prefetch(struct idd_symbols *syms, const char *const *names,
			  size_t n);
/* The runtime address of a symbol; false when vmlinux has none so named. */
bool idd_symbols_address(struct idd_symbols *syms, const char *name,
			 uint64_t *addr);
/*
 * Point the type search at cu_hint's unit through the first of functions
 * (each defined in that file) that vmlinux has, at its link-time address
 * (idd_types_anchor). Only makes later lookups faster.
 */
void idd_anchor(struct idd_types *types, struct idd_symbols *syms,
		const char *cu_hint, const char *const *functions);
/*
 * *hex: the GNU build-id note of vmlinux as lowercase hex, NULL when it
 * has none; malloc'd, the caller frees it.
 */
struct inodedump_error *idd_elf_build_id(struct Elf *elf, char **hex);
/* The first section of that name, or NULL. */
Elf_Scn *idd_elf_section(struct Elf *elf, const char *name);

struct idd_modules;
struct idd_kallsyms;

/*
 * symbols.c over the dump's kallsyms instead of vmlinux's symbol table
 * (takes ks, also on failure); addresses are the running kernel's.
 */
struct inodedump_error *idd_symbols_open_kallsyms(struct idd_kallsyms *ks,
						  struct idd_symbols **out);
/* The kallsyms the symbols come from, or NULL (vmlinux's .symtab). */
const struct idd_kallsyms *idd_symbols_kallsyms(const struct idd_symbols *s);
/*
 * Whether the symbols are a kallsyms of text symbols only (its kernel
 * built with CONFIG_KALLSYMS_ALL off: no data symbol in it). Such a
 * kallsyms names no address outside the text it keeps.
 */
bool idd_symbols_text_only(struct idd_symbols *syms);

/*
 * ---- kallsyms*.c: vmlinux's symbols from the dump's kallsyms tables
 * (kallsyms_internal.h) ----
 */

/* The tables as the kernel lays them out (the dump's, or a test's). */
struct idd_kallsyms_tables {
	uint32_t num_syms;
	const uint8_t *names;	  /* kallsyms_names */
	size_t names_len;
	const char *token_table;  /* kallsyms_token_table */
	size_t token_table_len;
	const uint16_t *token_index; /* kallsyms_token_index[256] */
	const int32_t *offsets;	  /* kallsyms_offsets[num_syms] */
	uint64_t offsets_addr;	  /* its address (7.0+: place-relative) */
	bool has_relative_base;	  /* before 7.0 */
	uint64_t relative_base;	  /* kallsyms_relative_base's value */
	/*
	 * The dump's byte order, for what is read on demand: the tables
	 * given here are in the host's.
	 */
	bool big_endian;
};
struct inodedump_error *
idd_kallsyms_from_tables(const struct idd_kallsyms_tables *tables,
			 struct idd_kallsyms **out);
/* Where the tables VMCOREINFO names are (relative_base: 0, none). */
struct idd_kallsyms_places {
	uint64_t names, token_table, relative_base;
};
/* Bytes at a kernel address, all or false. */
typedef bool (*idd_kallsyms_read_fn)(void *arg, uint64_t addr, void *buf,
				     size_t len);
/*
 * The tables read through read on demand (tab without names and offsets:
 * kallsyms_markers and kallsyms_seqs_of_names are found by their layout);
 * INODEDUMP_ERR_DUMP when the layout is not found. A table decoded whole
 * for a lookup by name (kernels without seqs_of_names) is stored in
 * cache_dir.
 */
struct inodedump_error *
idd_kallsyms_open_lazy(const struct idd_kallsyms_tables *tab,
		       const struct idd_kallsyms_places *at,
		       idd_kallsyms_read_fn read, void *arg,
		       const char *cache_dir, struct idd_kallsyms **out);
/* Read on demand; and names found without decoding the whole table. */
bool idd_kallsyms_is_lazy(const struct idd_kallsyms *ks);
bool idd_kallsyms_by_name(const struct idd_kallsyms *ks);
/*
 * The dump's tables through VMCOREINFO (where it names none, found in the
 * kernel image: kallsyms_find.c): the copy decoded earlier in
 * cache_dir (NULL: none), else read on demand, else decoded whole (and
 * stored in cache_dir); *from_cache says whether the cache answered.
 */
struct inodedump_error *idd_kallsyms_load(struct idd_target *t,
					  const char *cache_dir,
					  struct idd_kallsyms **out,
					  bool *from_cache);
void idd_kallsyms_free(struct idd_kallsyms *ks);
/*
 * How the tables were found when VMCOREINFO did not name them ("found by
 * scanning the kernel image: ..."); NULL when it did, or from the cache.
 */
const char *idd_kallsyms_whence(const struct idd_kallsyms *ks);
size_t idd_kallsyms_count(const struct idd_kallsyms *ks);
bool idd_kallsyms_address(const struct idd_kallsyms *ks, const char *name,
			  uint64_t *addr);
/* *out "name" or "name+0x10", malloc'd; NULL when no symbol covers addr. */
struct inodedump_error *idd_kallsyms_name(const struct idd_kallsyms *ks,
					  uint64_t addr, char **out);

/* ---- cache.c: per-kernel files under $XDG_CACHE_HOME/inodedump ---- */
struct idd_cache_file {
	void *data;
	size_t size;
};
struct idd_cache_part {
	const void *data;
	size_t size;
};
/* The cache directory of a build-id (malloc'd), NULL when none is usable. */
char *idd_cache_dir(const char *build_id);
bool idd_cache_map(const char *dir, const char *name,
		   struct idd_cache_file *out);
void idd_cache_unmap(struct idd_cache_file *f);
bool idd_cache_store(const char *dir, const char *name,
		     const struct idd_cache_part *parts, size_t nparts);
/*
 * A file written in place of dir/name: created (mode 0600, directories
 * 0700) under a temporary name put in tmp, then renamed by commit (which
 * removes it when that fails). -1 or false with errno set.
 */
int idd_cache_create(const char *dir, const char *name, char *tmp,
		     size_t tmp_size);
bool idd_cache_commit(const char *dir, const char *name, const char *tmp);

/*
 * ---- memo.c: bytes the kernel's build fixes (its BTF, its kallsyms
 * tables), the region start..start+len of this dump, kept in cache_dir's
 * file name as they are read ----
 */
struct idd_memo;
/*
 * NULL (read the dump directly) when there is no cache or no memory.
 * hole..hole+hole_len (hole_len 0: none): bytes the boot sets, always
 * read from the dump.
 */
struct idd_memo *idd_memo_open(struct idd_target *t, const char *cache_dir,
			       const char *name, uint64_t start, uint64_t len,
			       uint64_t hole, uint64_t hole_len);
/*
 * A memo of addresses (8-byte words, start and len multiples of 8) kept
 * less bias, so that another boot, bias moved as they are, finds them.
 */
struct idd_memo *idd_memo_open_biased(struct idd_target *t,
				      const char *cache_dir, const char *name,
				      uint64_t start, uint64_t len, uint64_t bias);
/* An idd_kallsyms_read_fn (arg: the memo): false when the dump fails it. */
bool idd_memo_read(void *memo, uint64_t addr, void *buf, size_t len);
/* m freed, what this run read kept in the cache first if keep. */
void idd_memo_close(struct idd_memo *m, bool keep);

/*
 * ---- btf*.c: BTF, parsed by libbpf or read on demand (btf_internal.h
 * says which file does what) ----
 */

/* Parse BTF bytes (copied); where names them in messages. */
void idd_btf_free(struct idd_btf *btf);
struct inodedump_error *idd_btf_parse(const void *data, size_t size,
				      const char *where, struct idd_btf **out);
/* The same, its name index kept in (and taken from) cache_dir. */
struct inodedump_error *idd_btf_parse_cached(const void *data, size_t size,
					     const char *where,
					     const char *cache_dir,
					     struct idd_btf **out);
size_t idd_btf_size(const struct idd_btf *btf);
/*
 * Where the modules' BTF is read when a struct is not vmlinux's: the
 * kernel's btf_modules list, through syms and t (both outlive btf).
 */
void idd_btf_set_source(struct idd_btf *btf, struct idd_symbols *syms,
			struct idd_target *t);
/* Whether a read of this BTF failed (it answers nothing since). */
bool idd_btf_broken(const struct idd_btf *btf);
/* The module a struct's BTF belongs to (s->btf), NULL for vmlinux. */
const char *idd_btf_module(const struct idd_btf *btf);
/* How idd_btf_from_dump() found the kernel's BTF, or why it found none. */
struct idd_btf_whence {
	bool cached;	/* the whole BTF from the cache */
	uint64_t at;	/* its address in the dump */
	bool by_header; /* found by its header: kallsyms has no __start_BTF */
	bool place_cached; /* ... where an earlier run found it */
	size_t agreed;	/* VMCOREINFO's sizes and offsets it agrees with */
	char *none;	/* no BTF: what was looked for (malloc'd), or NULL */
};
/*
 * The kernel's BTF in the dump (__start_BTF..__stop_BTF by syms; where
 * syms is a kallsyms of text symbols only, found by its header in the
 * kernel's read-only data and checked: btf_find.c), or the copy in
 * cache_dir. *out NULL, no error, when there is none: w->none then says
 * what was looked for (free it).
 */
struct inodedump_error *idd_btf_from_dump(struct idd_symbols *syms,
					  struct idd_target *t,
					  const char *cache_dir,
					  struct idd_btf **out,
					  struct idd_btf_whence *w);
/* The BTF side of the idd_types_* lookups above. */
struct inodedump_error *idd_btf_struct(struct idd_btf *btf, const char *name,
				       struct idd_struct *out);
void idd_btf_types_member(struct idd_btf *btf, const struct idd_struct *s,
			  const char *path, struct idd_member *out);
struct inodedump_error *idd_btf_pointee(struct idd_btf *btf,
					const struct idd_member *m,
					struct idd_struct *out);
bool idd_btf_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			 void *arg);
bool idd_btf_enum(struct idd_btf *btf, const char *enum_name,
		  idd_enumerator_fn fn, void *arg);
bool idd_btf_enumerator(struct idd_btf *btf, const char *name, int64_t *value);
/* The same, looking first in the enum named enum_name (NULL: none). */
bool idd_btf_enumerator_in(struct idd_btf *btf, const char *enum_name,
			   const char *name, int64_t *value);
/*
 * Read on demand rather than whole: through the kernel's index where its
 * BTF is sorted, else from its start as far as lookups need;
 * INODEDUMP_BTF_WHOLE set in the environment turns it off.
 */
bool idd_btf_on_demand(const struct idd_btf *btf);
/* On demand, but without the kernel's index (its type records read whole). */
bool idd_btf_own_offsets(const struct idd_btf *btf);
/* Read on demand from its start, as far as its lookups need (not sorted). */
bool idd_btf_from_start(const struct idd_btf *btf);
/* How the BTF is read, for messages: "" (whole), ", read on demand", ... */
const char *idd_btf_reading(const struct idd_btf *btf);
/*
 * The BTF at start..stop read on demand through t: by the kernel's index
 * of it, found from the pointer at btf_vmlinux (its address), where it is
 * sorted; else from its start. NULL when its header is not BTF's (then
 * read it whole). For the fuzzer; idd_btf_from_dump() tries it first.
 */
struct idd_btf *idd_btf_open_on_demand(struct idd_target *t,
				       uint64_t btf_vmlinux, uint64_t start,
				       uint64_t stop, const char *cache_dir);

/*
 * btf_lazy.c: struct mount for a DWARF session, from vmlinux's .BTF, else
 * from the dump's memory (between the symbols __start_BTF and __stop_BTF,
 * read through t). *out is NULL when neither has any; an error says why
 * BTF that is there could not be read (a fault names its address). Free
 * with idd_btfl_free().
 */
struct idd_btfl;
struct inodedump_error *idd_btfl_load(struct idd_types *types,
				      struct idd_symbols *syms,
				      struct idd_target *t,
				      struct idd_btfl **out);
void idd_btfl_free(struct idd_btfl *btf);
/*
 * A member's offset by dotted path, like idd_types_member(); false when
 * the BTF has no such struct or member (a pure lookup: it cannot fail).
 */
bool idd_btfl_member(struct idd_btfl *btf, const char *structname,
		     const char *path, struct idd_member *out);
/*
 * Structs about to be looked up (at most 8): the scan that finds the
 * first of them notes the others it passes, so each is not a scan of its
 * own (BTF in no order is read from its start for every new name).
 */
void idd_btfl_want(struct idd_btfl *btf, const char *const *names, size_t n);

/*
 * module_debug.c: a loaded module's names from its debug file (its ELF
 * symbol table alone), each symbol placed at its section's run-time
 * address (secs: the dump's sect_attrs).
 */
struct idd_module_section {
	char name[64];
	uint64_t addr;
};
/* Fetch a module's debug file by build-id (debuginfod): a path or NULL. */
typedef char *(*idd_module_fetch_fn)(const char *build_id, const char *module,
				     void *arg, char **why);
struct idd_module_debug_query {
	const char *debug_root; /* NULL: / */
	const char *release;	/* lib/modules/RELEASE, NULL: not known */
	const char *module;
	const char *build_id; /* hex from the dump's notes; NULL: unknown */
	const struct idd_module_section *secs;
	size_t nsecs;
	idd_module_fetch_fn fetch; /* NULL: no debuginfod */
	void *fetch_arg;
};
struct idd_module_debug;
/*
 * The first file that is the module's (by its build-id, when known):
 * DEBUG_ROOT/usr/lib/debug/.build-id/xx/yyyy.debug, M.ko or M.ko.debug
 * below DEBUG_ROOT/usr/lib/debug/lib/modules/R and DEBUG_ROOT/lib/modules/R,
 * then q->fetch. What its symbol table gives is kept in the cache of the
 * build-id, and taken from there first. NULL with *why (malloc'd): none
 * found, or each refused.
 */
struct idd_module_debug *
idd_module_debug_open(const struct idd_module_debug_query *q, char **why);
void idd_module_debug_free(struct idd_module_debug *d);
const char *idd_module_debug_path(const struct idd_module_debug *d);
/*
 * Whether its symbols came from the cache (kept per build-id, the file
 * read once), not from the file itself.
 */
bool idd_module_debug_cached(const struct idd_module_debug *d);
/* The symbol covering addr (*name stays d's) and addr's offset in it. */
bool idd_module_debug_name(const struct idd_module_debug *d, uint64_t addr,
			   const char **name, uint64_t *offset);

/* Where a module's debug file is looked for (idd_module_symbol()). */
struct idd_module_where {
	const char *debug_root;
	const char *release;
	idd_module_fetch_fn fetch;
	void *fetch_arg;
	/* Said once per module: which debug file named its data, or why none. */
	void (*note)(void *arg, const char *text);
	void *note_arg;
	/*
	 * A loaded module's struct module (the inode's filesystem's: its
	 * s_type->owner), 0: none; where no symbol names the kernel's
	 * "modules" list (kallsyms of text only), the list is walked from it.
	 */
	uint64_t (*seed)(void *arg);
};

/*
 * modules.c: the symbol of a loaded module that covers addr
 * ("ext4_sops", "ext4_sops+0x8") and its module's name, both malloc'd
 * (the caller frees them), or both NULL when no module symbol covers it.
 * The modules' symbol tables are read through t on the first call and
 * kept in *cache (free it with idd_modules_free()); modules whose
 * symbols cannot be read are passed over, and an address no module read
 * covers then returns the first such error: unknown, not nameless.
 * An address inside a module's memory that its kallsyms do not name is
 * named from the module's debug file (where: how it is found); without
 * one it is "MODULE+0xOFFSET" (from the base of the module memory that
 * holds it) and *note (malloc'd) says why it has no name.
 */
struct inodedump_error *idd_module_symbol(struct idd_modules **cache,
					  struct idd_target *t,
					  struct idd_types *types,
					  struct idd_symbols *syms,
					  const struct idd_module_where *where,
					  uint64_t addr, char **name,
					  char **module, char **note);
void idd_modules_free(struct idd_modules *mods);

#endif
