/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * inodedump: complete the kernel's dump_inode() on the host side.
 *
 * Open a vmcore with the vmlinux of the kernel that wrote it, then decode a
 * struct inode at a kernel address: every member this kernel has, named as
 * the kernel names it, with the VFS invariants it breaks.
 *
 * Conventions of the whole API:
 * - Every fallible call returns a struct inodedump_error * (NULL on
 *   success). The caller owns it and frees it with inodedump_error_free();
 *   on an error, no out parameter has been set.
 * - Handles (struct inodedump, struct inodedump_inode, struct
 *   inodedump_log) are opaque; each has one destructor, which accepts NULL.
 * - A const char * the library returns belongs to the object it came
 *   from and lives as long as it, unless the function says otherwise.
 * - Options are structs whose first member sz is their size (declare them
 *   with INODEDUMP_OPTS()). A library older than the caller's header
 *   refuses options it does not know that are set (non-zero) with
 *   INODEDUMP_ERR_USAGE; a library newer than it uses its defaults for
 *   the fields the caller's struct does not have.
 * - Only the functions marked INODEDUMP_API are exported, each with the
 *   symbol version INODEDUMP_0.1 (lib/libinodedump.map).
 */
#ifndef INODEDUMP_H
#define INODEDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define INODEDUMP_API __attribute__((visibility("default")))
#else
#define INODEDUMP_API
#endif

#define INODEDUMP_JSON_SCHEMA 1

/* What went wrong, coarsely; the message says the rest. */
enum inodedump_error_code {
	INODEDUMP_ERR_NOMEM = 1,
	INODEDUMP_ERR_USAGE,	 /* bad argument from the caller */
	INODEDUMP_ERR_DUMP,	 /* the dump cannot be opened or is corrupt */
	INODEDUMP_ERR_VMLINUX,	 /* vmlinux unreadable, or without DWARF */
	INODEDUMP_ERR_MISMATCH,	 /* vmlinux is not the dump's kernel */
	INODEDUMP_ERR_TYPE,	 /* a type or member this work needs is absent */
	INODEDUMP_ERR_FAULT,	 /* address not in the dump / not mapped */
	INODEDUMP_ERR_FILTERED,	 /* page excluded from the dump by its writer */
	INODEDUMP_ERR_NOT_INODE, /* the address fails the inode plausibility checks */
};

struct inodedump_error;

/* The error's code (never 0). */
INODEDUMP_API enum inodedump_error_code
inodedump_error_code(const struct inodedump_error *err);
/*
 * What went wrong, for a person: one line, no trailing newline. Owned by
 * err; valid until inodedump_error_free(err).
 */
INODEDUMP_API const char *
inodedump_error_message(const struct inodedump_error *err);
/*
 * The kernel address whose read failed (FAULT, FILTERED, NOT_INODE): true
 * and *address set; false when no address applies.
 */
INODEDUMP_API bool inodedump_error_address(const struct inodedump_error *err,
					   uint64_t *address);
/* Free an error; NULL is allowed. */
INODEDUMP_API void inodedump_error_free(struct inodedump_error *err);

/*
 * Options for inodedump_open(). Declare with INODEDUMP_OPTS() so that sz is
 * set and every other byte zero, then set the fields you need: fields added
 * later stay zero for old callers. NULL options mean every default.
 */
struct inodedump_open_opts {
	size_t sz;
	/*
	 * vmlinux with DWARF. NULL: found by the dump's release under
	 * /usr/lib/debug/boot, /usr/lib/debug/lib/modules/R, /boot,
	 * /lib/modules/R/build (each below debug_root when set).
	 */
	const char *vmlinux;
	/* Open even if VMCOREINFO's BUILD-ID differs from vmlinux's. */
	bool ignore_build_id;
	/*
	 * A directory laid out like / to look for vmlinux in (NULL: /), and
	 * the dwz supplementary file (.gnu_debugaltlink: Red Hat's
	 * /usr/lib/debug/.dwz/…) of a vmlinux compressed by dwz -m.
	 */
	const char *debug_root;
	/*
	 * Open even when neither a vmlinux nor the dump's BTF gives the
	 * kernel's types (a kernel built without CONFIG_DEBUG_INFO_BTF and
	 * no debuginfo at hand): then only what needs no types works —
	 * inodedump_read_log() with the ring's layout VMCOREINFO exports,
	 * inodedump_fact() and inodedump_facts_print() — and every decode,
	 * sweep and inodedump_what() returns the error the open would have
	 * (INODEDUMP_FACT_NO_TYPES says why). false: such an open fails.
	 */
	bool types_optional;
};

/*
 * Declare options of struct TYPE named NAME: sz set, every other member
 * (and the padding, which the library checks with the rest) zero.
 */
#define INODEDUMP_OPTS(TYPE, NAME) struct TYPE NAME = { .sz = sizeof(struct TYPE) }

/*
 * A caller's memory (a drgn or crash session, a test): read count bytes at
 * address into buf. address is a kernel virtual address, or a physical one
 * when physical is true. Return 0 when every byte was read, else the
 * reason: INODEDUMP_ERR_FAULT (not in memory or not mapped) or
 * INODEDUMP_ERR_FILTERED (left out of the dump by its writer).
 */
typedef int (*inodedump_read_fn)(void *buf, uint64_t address, size_t count,
				 bool physical, void *arg);

/*
 * A caller's symbols, asked for addresses vmlinux does not name (module
 * code and data the host has loaded; drgn and crash know them). When a
 * symbol covers address: write its name into name (at most name_size
 * bytes, NUL included), the module that defines it into module ("" for
 * the kernel itself; at most module_size bytes), address minus the
 * symbol's start into *offset, and return true. Return false otherwise;
 * the library then looks in the dump's own module list.
 */
typedef bool (*inodedump_symbol_fn)(uint64_t address, char *name,
				    size_t name_size, char *module,
				    size_t module_size, uint64_t *offset,
				    void *arg);

/*
 * Options for inodedump_open_reader(): the session reads memory through
 * the caller instead of a dump file. Declare with INODEDUMP_OPTS().
 */
struct inodedump_reader_opts {
	size_t sz;
	/* Required: reads kernel virtual memory (physical is always false). */
	inodedump_read_fn read;
	/* Passed to read and symbol as is. */
	void *arg;
	/*
	 * The kernel's VMCOREINFO text ("KEY=value" lines), or NULL. It gives
	 * OSRELEASE (the flag tables by version), KERNELOFFSET (KASLR),
	 * BUILD-ID and SYMBOL()s (checked against vmlinux) and SYMBOL(prb)
	 * (the log). Copied: need not outlive the call.
	 */
	const char *vmcoreinfo;
	/* Required for now: vmlinux with DWARF, the kernel that is read. */
	const char *vmlinux;
	/* Open even if vmcoreinfo's BUILD-ID or symbols disagree with vmlinux. */
	bool ignore_build_id;
	/* Optional: names addresses vmlinux does not (module symbols). */
	inodedump_symbol_fn symbol;
};

/*
 * A session: one dump (or memory source) with its kernel's vmlinux. It
 * caches layouts, symbols and modules as it goes; one thread at a time.
 */
struct inodedump;

/*
 * Open vmcore (a dump file in any format libkdumpfile reads, or
 * "/proc/kcore" for the running kernel) with its vmlinux (opts->vmlinux,
 * or found by the dump's release). Refuses a vmlinux that is not the
 * dump's kernel (INODEDUMP_ERR_MISMATCH) unless opts->ignore_build_id.
 * On success *out is a session the caller closes with inodedump_close().
 */
INODEDUMP_API struct inodedump_error *
inodedump_open(const char *vmcore, const struct inodedump_open_opts *opts,
	       struct inodedump **out);
/*
 * Open a session over a caller's memory (a drgn or crash session, a
 * test): every read goes through opts->read. The same steps as
 * inodedump_open() follow (types, KASLR from VMCOREINFO, build-id, the
 * vmlinux match check when VMCOREINFO has something to check). The
 * session calls opts->read and opts->symbol until inodedump_close(); arg
 * must live as long. *out is closed with inodedump_close().
 */
INODEDUMP_API struct inodedump_error *
inodedump_open_reader(const struct inodedump_reader_opts *opts,
		      struct inodedump **out);
/* Close a session and free what it holds; NULL is allowed. */
INODEDUMP_API void inodedump_close(struct inodedump *id);
/*
 * Forget what the session remembers of the memory it read (the pages and
 * file blocks its readers keep, the last superblock's rows, symbol names
 * by address, the loaded modules, the task walks of holders and mount
 * namespaces), keeping what the kernel's types and vmlinux say. On a live
 * kernel (/proc/kcore) the next decode reads memory as it is then:
 * vmcore-inode --live --follow calls it before each. An error when a
 * reader could not let go (it then reads from what it kept).
 */
INODEDUMP_API struct inodedump_error *inodedump_forget(struct inodedump *id);
/*
 * Look up now what every decode needs of the kernel's types (the inode's
 * members and the path walk's), which the first decode would otherwise
 * do: --follow calls it before it says it is following, so the first
 * report is decoded as fast as the next. An error when the inode's
 * layout cannot be had (no decode could work).
 */
INODEDUMP_API struct inodedump_error *inodedump_prepare(struct inodedump *id);

/*
 * Keys of inodedump_fact(): what the session knows about the dump and
 * where it came from. Each value is text.
 */
/*
 * The kernel release ("6.12.118"): VMCOREINFO OSRELEASE, else the dump
 * header's utsname, else init_uts_ns in memory (a note says so); NULL
 * when none gives it.
 */
#define INODEDUMP_FACT_OSRELEASE "osrelease"
/* Whence the release came: "VMCOREINFO OSRELEASE", "the dump header's
 * utsname", "init_uts_ns in the dump's memory". */
#define INODEDUMP_FACT_OSRELEASE_SOURCE "osrelease_source"
/* VMCOREINFO BUILD-ID: the build-id of the kernel that wrote the dump. */
#define INODEDUMP_FACT_BUILD_ID "build_id"
/* The GNU build-id note of vmlinux, lowercase hex. */
#define INODEDUMP_FACT_VMLINUX_BUILD_ID "vmlinux_build_id"
/* The dump's format ("diskdump", "elf", "flattened diskdump", "memory",
 * "reader", ...). */
#define INODEDUMP_FACT_FORMAT "format"
/* Who reads the memory: "inodedump" (our reader), "libkdumpfile",
 * "caller" (inodedump_open_reader()). */
#define INODEDUMP_FACT_READER "reader"
/* Who translates kernel virtual addresses ("inodedump (x86-64, 4-level
 * page tables)", "/proc/kcore's program headers (kernel virtual
 * addresses)" (our /proc/kcore reader), "libkdumpfile (libaddrxlat)",
 * "caller"). */
#define INODEDUMP_FACT_TRANSLATION "translation"
/* The KASLR offset applied to vmlinux's addresses, "0x..." hex. */
#define INODEDUMP_FACT_KASLR_OFFSET "kaslr_offset"
/* The path of the vmlinux in use; NULL when there is none (types and
 * symbols from the dump itself). */
#define INODEDUMP_FACT_VMLINUX "vmlinux"
/* How that vmlinux was chosen ("given with -k", "found by the dump's
 * build-id B", "found by the dump's release R", "fetched by build-id B
 * from debuginfod (URLS)", "given by the caller"), or "none (tried ...)". */
#define INODEDUMP_FACT_VMLINUX_SOURCE "vmlinux_source"
/* Where the types come from: "vmlinux PATH (DWARF)" or "the dump's BTF
 * (N bytes at 0x...[, cached in DIR])". */
#define INODEDUMP_FACT_TYPES "types"
/* Where vmlinux's symbols come from: "vmlinux PATH (.symtab), ..." or
 * "the dump's kallsyms (N symbols[, cached in DIR | , read on demand][;
 * found by scanning the kernel image: ...])" (the last where VMCOREINFO
 * names no kallsyms tables: kernels before 6.0). */
#define INODEDUMP_FACT_SYMBOLS "symbols"
/* makedumpfile's dump level (-d), decimal; NULL when the format has none. */
#define INODEDUMP_FACT_DUMP_LEVEL "dump_level"
/* The dump's architecture as libkdumpfile names it ("x86_64"). */
#define INODEDUMP_FACT_ARCH "arch"
/* The kernel's page size in bytes, decimal. */
#define INODEDUMP_FACT_PAGE_SIZE "page_size"
/* Whence the page size came: "dump header", or "VMCOREINFO PAGESIZE"
 * (an ELF core of a machine with several page sizes; a diskdump whose
 * blocks are larger than the kernel's pages, as QEMU writes for arm64). */
#define INODEDUMP_FACT_PAGE_SIZE_SOURCE "page_size_source"
/* The pages' compression as the header says ("zlib", "lzo", "zstd",
 * "snappy", "none"). */
#define INODEDUMP_FACT_COMPRESSION "compression"
/* What the dump's header shows of the program that wrote it (no format
 * names its writer's version). */
#define INODEDUMP_FACT_WRITER "writer"
/* Pages the writer left out, from the dump's bitmaps: "N of M pages". */
#define INODEDUMP_FACT_EXCLUDED_PAGES "excluded_pages"
/* Those pages by what their struct page says they were, with the
 * dump-level bit that excludes each kind. */
#define INODEDUMP_FACT_EXCLUDED_BY_KIND "excluded_by_kind"

/* The slab allocator as this kernel's types show it, what --what and the
 * sweep's slab walk read ("SLUB, struct slab, freelists hardened, ..."),
 * or why it cannot be read. */
#define INODEDUMP_FACT_SLAB "slab"
/* Why the session has no types (opened with types_optional), or NULL
 * when it has them. */
#define INODEDUMP_FACT_NO_TYPES "no_types"

/*
 * One fact about the open dump by its key (INODEDUMP_FACT_*). Returns
 * NULL when the key is unknown or the fact is not known for this dump.
 * The string belongs to the session: valid until inodedump_close(id).
 */
INODEDUMP_API const char *inodedump_fact(struct inodedump *id,
					 const char *name);

/*
 * What the session could not trust about the dump, one line each: a
 * VMCOREINFO that breaks its grammar (a line that is no KEY=value, a key
 * written twice, a byte that is no text), a release or KASLR offset it
 * lacks and where they were taken from instead; and, as decodes find them,
 * modules' symbols that could not be read and checks whose input could
 * not be (once per check). Note i, or NULL past the last; notes are only
 * ever added, and the same text is never noted twice. The runs of
 * vmcore-inode say each on stderr and end partial (exit 4). Valid until
 * inodedump_close().
 */
INODEDUMP_API const char *inodedump_note(const struct inodedump *id, size_t i);
/*
 * Whether note i only informs — which debug file named a loaded module's
 * data, or why none did — and so does not make a run partial (false past
 * the last note).
 */
INODEDUMP_API bool inodedump_note_informs(const struct inodedump *id,
					  size_t i);

struct inodedump_inode;

enum inodedump_decode_flags {
	/* Decode even when the plausibility checks say this is no inode. */
	INODEDUMP_DECODE_FORCE = 1 << 0,
	/* Also find the tasks that hold it (a walk of every task's files). */
	INODEDUMP_DECODE_HOLDERS = 1 << 1,
	/* Skip the path walk ("paths" is then null). */
	INODEDUMP_DECODE_NO_PATHS = 1 << 2,
	/*
	 * Skip the filesystem's own rows (the object embedding the inode:
	 * xfs_inode, btrfs_inode, ovl_inode, ...; "fs" is then null).
	 */
	INODEDUMP_DECODE_NO_FS = 1 << 3,
};

/*
 * Decode the struct inode at address (a kernel virtual address), flags
 * from enum inodedump_decode_flags. Fails only when nothing useful can be
 * said: the inode's bytes are unreadable (INODEDUMP_ERR_FAULT or
 * _FILTERED, with the address), or it is no inode and FORCE is not set
 * (INODEDUMP_ERR_NOT_INODE). Parts that cannot be read are recorded in the
 * result's errors. *out holds copies of everything it shows: it may
 * outlive the session; free it with inodedump_inode_free().
 */
INODEDUMP_API struct inodedump_error *
inodedump_decode(struct inodedump *id, uint64_t address, unsigned int flags,
		 struct inodedump_inode **out);
/* Free a decoded inode; NULL is allowed. */
INODEDUMP_API void inodedump_inode_free(struct inodedump_inode *inode);

/* Number of broken invariants found in the inode. */
INODEDUMP_API size_t
inodedump_inode_violations(const struct inodedump_inode *inode);

/*
 * The parts of a decode: the walks beyond the inode's own bytes, each
 * done when asked (its names unless INODEDUMP_DECODE_NO_PATHS, its
 * holders with INODEDUMP_DECODE_HOLDERS), and the fields, always: the
 * members' values and what they lead to (the superblock's and the
 * mapping's rows, a symlink's target, the first dentry's flags).
 */
enum inodedump_part {
	INODEDUMP_PART_PATHS = 1 << 0,	 /* aliases, dentry chains, mounts */
	INODEDUMP_PART_HOLDERS = 1 << 1, /* the task list, tasks' files */
	INODEDUMP_PART_FIELDS = 1 << 2,	 /* a value marked unreadable */
};

/*
 * The parts asked of this decode that could not be read in full, an OR of
 * INODEDUMP_PART_*; 0 when every part asked was read. The result then
 * shows what could be read ("paths" may be [] or shorter, "holders" may
 * lack some, a field is marked unreadable), and its errors say what
 * failed (JSON "errors": fields "i_dentry" and "paths" for the paths,
 * "holders" for the holders, the member's name for a field). A
 * part that does not exist is not incomplete: no dentry names an unlinked
 * inode, paths []. Neither is a walk this kernel's types do not allow (a
 * skipped note, "skipped_checks").
 */
INODEDUMP_API unsigned int
inodedump_inode_incomplete(const struct inodedump_inode *inode);

/*
 * Why one part (an INODEDUMP_PART_* value) is incomplete: the first of
 * its errors, e.g. "dentry 0xffff...: page 0x1234 was filtered out of the
 * dump (...)". NULL when that part is complete. Valid until the inode is
 * freed.
 */
INODEDUMP_API const char *
inodedump_inode_incomplete_reason(const struct inodedump_inode *inode,
				  unsigned int part);

/*
 * One numeric member by its JSON key ("ino", "mode", "opflags", "linklen",
 * ...). Returns false when the key is unknown, this kernel lacks the
 * member, or it could not be read.
 */
INODEDUMP_API bool inodedump_inode_number(const struct inodedump_inode *inode,
					  const char *key, int64_t *value);

/* A person's view of the inode, several lines, written to out. */
INODEDUMP_API void inodedump_inode_print_text(const struct inodedump_inode *inode,
					      FILE *out);
/* One JSON object (the schema in README.md), without a trailing newline. */
INODEDUMP_API void inodedump_inode_print_json(const struct inodedump_inode *inode,
					      FILE *out);
/* The same object on one line (JSON Lines). */
INODEDUMP_API void
inodedump_inode_print_jsonl(const struct inodedump_inode *inode, FILE *out);

/* The file type of an inode, from the S_IFMT bits of i_mode. */
enum inodedump_inode_type {
	INODEDUMP_INODE_REGULAR,
	INODEDUMP_INODE_DIRECTORY,
	INODEDUMP_INODE_SYMLINK,
	INODEDUMP_INODE_FIFO,
	INODEDUMP_INODE_CHARDEV,
	INODEDUMP_INODE_BLOCKDEV,
	INODEDUMP_INODE_SOCKET,
	INODEDUMP_INODE_INVALID, /* none of the seven (may_open() would BUG) */
};
#define INODEDUMP_INODE_TYPES 8 /* how many values the enum has */

/* The inode's type (INODEDUMP_INODE_INVALID if i_mode was unreadable). */
INODEDUMP_API enum inodedump_inode_type
inodedump_inode_type(const struct inodedump_inode *inode);
/*
 * The type's name as JSON, text and the sweep's types filter spell it:
 * "regular", "directory", "symlink", "fifo", "chardev", "blockdev",
 * "socket", "invalid". A static string; NULL for a value outside the enum.
 */
INODEDUMP_API const char *
inodedump_inode_type_name(enum inodedump_inode_type type);

/* ---- what an address is: the slab allocator (SLUB) ---- */

/* Whether a slab object is in use, as far as the dump lets one tell. */
enum inodedump_slab_state {
	INODEDUMP_SLAB_ALLOCATED,
	INODEDUMP_SLAB_FREE,	/* on a freelist or in a sheaf */
	INODEDUMP_SLAB_UNKNOWN, /* a freelist could not be read in full */
};

/* What an address is: a slab object, or other memory. */
struct inodedump_what;

/*
 * What address is: the slab cache and the object holding it, whether that
 * object is allocated or free, and for a cache of inodes where the inode
 * is in the object; or, outside any slab, what the memory is. Fails only
 * for no memory: what the dump does not let one tell is said in the
 * result. Free it with inodedump_what_free().
 */
INODEDUMP_API struct inodedump_error *
inodedump_what(struct inodedump *id, uint64_t address,
	       struct inodedump_what **out);
INODEDUMP_API void inodedump_what_free(struct inodedump_what *what);

/* A slab object, as inodedump_what_slab() fills it. */
struct inodedump_slab_object {
	size_t sz;		/* sizeof(struct inodedump_slab_object) */
	const char *cache;	/* the kmem_cache's name */
	uint64_t cache_address; /* struct kmem_cache * */
	uint64_t object_size;	/* its object_size */
	uint64_t stride;	/* its size: object plus metadata */
	uint64_t slab;		/* struct slab * (struct page * before 5.17) */
	uint64_t object;	/* the object's first byte */
	uint64_t offset;	/* address - object */
	bool in_object;		/* false: in the slab's padding */
	enum inodedump_slab_state state;
	const char *free_where;	 /* FREE: which freelist or sheaf */
	const char *unknown_why; /* what could not be read, or NULL */
	const char *inode_fs;	 /* a cache of inodes: the filesystem, or NULL */
	const char *inode_type;	 /* ... the struct embedding the inode */
	int64_t inode_offset;	 /* ... where the inode is; -1 not known */
};

/*
 * The slab object holding the address: fills *out (out->sz set by the
 * caller; the strings are the what's) and returns true, or false when the
 * address is in no slab object.
 */
INODEDUMP_API bool inodedump_what_slab(const struct inodedump_what *what,
				       struct inodedump_slab_object *out);
/*
 * What the dump did not let one read for this answer (a freelist, the
 * cache's name, the struct page itself), or NULL: the answer is whole.
 */
INODEDUMP_API const char *
inodedump_what_unread(const struct inodedump_what *what);
/* Outside any slab: what the memory is ("kernel image: init_task", ...). */
INODEDUMP_API const char *
inodedump_what_memory(const struct inodedump_what *what);
/* A person's view: a few lines. */
INODEDUMP_API void inodedump_what_print_text(const struct inodedump_what *what,
					     FILE *out);
/* One JSON object, without a trailing newline. */
INODEDUMP_API void inodedump_what_print_json(const struct inodedump_what *what,
					     FILE *out);
/* The same object on one line. */
INODEDUMP_API void inodedump_what_print_jsonl(const struct inodedump_what *what,
					      FILE *out);

/* ---- every inode of every superblock ---- */

/* Options for inodedump_sweep(); declare with INODEDUMP_OPTS(). */
struct inodedump_sweep_opts {
	size_t sz;
	const char *fs;	       /* only superblocks whose s_type->name is this */
	uint64_t sb;	       /* only this superblock (0: every one) */
	const char *types;     /* "symlink,regular,...": only these types */
	unsigned int flags;    /* INODEDUMP_DECODE_* for each inode */
	/*
	 * Only these types: bit (1u << INODEDUMP_INODE_*) set for each; adds
	 * to types. 0 and no types: every type.
	 */
	unsigned int type_mask;
	/*
	 * 0 or 1: one thread. 2: the walk and the decoding run on a second
	 * thread while on_inode and on_sb run on the caller's, in the same
	 * order with the same arguments as with one; the callbacks must not
	 * use the session meanwhile. More than 2 is taken as 2.
	 */
	unsigned int threads;
};

/* One superblock as the sweep saw it. */
struct inodedump_sweep_sb {
	uint64_t address;
	const char *fs_type;
	const char *s_id;
	size_t inodes;	      /* read from s_inodes (before filters) */
	size_t matched;	      /* passed the filters and were decoded */
	size_t by_type[INODEDUMP_INODE_TYPES]; /* by enum inodedump_inode_type */
	size_t violations;
	size_t unreadable;    /* list entries that could not be read */
	const char *error;    /* why the walk of s_inodes stopped early */
	/*
	 * Why s_type->name is not known (fs_type is then "?"), or NULL. With
	 * a --fs filter (opts->fs) such a superblock is handed over unwalked:
	 * it may be the one asked for.
	 */
	const char *fs_type_error;
	/*
	 * When a list broke on a page the dump lacks (a superblock's own
	 * bytes, an inode on s_inodes, super_blocks itself), the sweep walks
	 * the inode caches' slabs after the lists, and a superblock with
	 * inodes found only there gets a second event, from_slabs set:
	 * inodes, matched, by_type, violations count those inodes alone.
	 */
	bool from_slabs;
	/*
	 * In that event: allocated inode objects of this superblock on none
	 * of its lists (an evicted inode awaiting reclaim, XFS's; sockets and
	 * pipes are never on s_inodes): counted, not decoded.
	 */
	size_t off_list;
};

typedef void (*inodedump_sweep_inode_fn)(const struct inodedump_sweep_sb *sb,
					 const struct inodedump_inode *inode,
					 void *arg);
typedef void (*inodedump_sweep_sb_fn)(const struct inodedump_sweep_sb *sb,
				      void *arg);

/*
 * Walk super_blocks and each superblock's s_inodes, decode and check
 * every inode, call on_inode for each that passes the filters and on_sb
 * when a superblock that passes them is done (either may be NULL). A
 * corrupt list ends that superblock's walk (on_sb gets the reason in
 * error) and the sweep goes on. The inode and the sb struct with its
 * strings are valid during the call only (the inode is freed after it).
 * Returns an error when the sweep cannot start (options, no super_blocks)
 * or the list of superblocks itself cannot be read; opts may be NULL.
 */
INODEDUMP_API struct inodedump_error *
inodedump_sweep(struct inodedump *id, const struct inodedump_sweep_opts *opts,
		inodedump_sweep_inode_fn on_inode, inodedump_sweep_sb_fn on_sb,
		void *arg);

/* ---- the kernel log inside the dump ---- */

/* One printk record, as the kernel's ring buffer holds it. */
struct inodedump_record {
	uint64_t seq;
	uint64_t ts_nsec;
	uint8_t level;		/* or INODEDUMP_LEVEL_UNKNOWN */
	uint8_t facility;	/* or INODEDUMP_LEVEL_UNKNOWN */
	bool continuation;	/* LOG_CONT (false when level is unknown) */
	uint32_t caller_id;	/* task id, or CPU with bit 31 set, or
				 * INODEDUMP_CALLER_UNKNOWN: the log did not say
				 * (/dev/kmsg or a saved dmesg without
				 * CONFIG_PRINTK_CALLER) */
	const char *text;	/* not NUL-terminated inside; see text_len */
	size_t text_len;
	/*
	 * CONFIG_PRINTK_EXECUTION_CTX (7.x): caller_id's complement (the CPU
	 * when caller_id is a task, the task when it is a CPU) and the
	 * printing task's comm; has_execution_ctx false and both zero when
	 * this kernel's printk_info has no such members.
	 */
	bool has_execution_ctx;
	uint32_t caller_id2;
	char comm[16];
};

struct inodedump_log;

/*
 * Read every finalized record of the printk ring buffer (the lockless
 * format of Linux 5.10 and later), oldest first. A session without types
 * (types_optional) reads it with the offsets and sizes VMCOREINFO exports
 * and the kernel source's constants for the rest (lib/kernel/printk.c);
 * a VMCOREINFO that lacks one or whose values cannot be a ring is an
 * error naming the line. *out holds copies of the
 * records: it may outlive the session; free it with inodedump_log_free().
 */
INODEDUMP_API struct inodedump_error *
inodedump_read_log(struct inodedump *id, struct inodedump_log **out);
/* How many records the log holds. */
INODEDUMP_API size_t inodedump_log_count(const struct inodedump_log *log);
/* Why the log may be incomplete (corrupt ring indices), or NULL. */
INODEDUMP_API const char *
inodedump_log_warning(const struct inodedump_log *log);
/*
 * Record i (0 = oldest), or NULL when i >= inodedump_log_count(). The
 * record and its text belong to the log.
 */
INODEDUMP_API const struct inodedump_record *
inodedump_log_record(const struct inodedump_log *log, size_t i);
/* The log as dmesg(1) prints it ("[%5u.%06u] text"). */
INODEDUMP_API void inodedump_log_print(const struct inodedump_log *log,
				       FILE *out);
/* Free a log and its records; NULL is allowed. */
INODEDUMP_API void inodedump_log_free(struct inodedump_log *log);

/*
 * A kernel log saved as text (dmesg(1)'s output, makedumpfile
 * --dump-dmesg's as kdump-tools keeps it in dmesg.STAMP, RHEL's
 * vmcore-dmesg.txt) read into records, one a line: an optional "<N>"
 * level, "[seconds.micros]" time and "[T123]" caller, then the text.
 * For a dump whose own ring cannot be read (filtered, overwritten): its
 * reports come from inodedump_find_reports() as for the ring. len bytes,
 * no NUL needed; *out is freed with inodedump_log_free(). Fails only when
 * out of memory.
 */
INODEDUMP_API struct inodedump_error *
inodedump_log_from_text(const char *text, size_t len,
			struct inodedump_log **out);

/* Which dump_inode() wrote a report line. */
enum inodedump_report_format {
	INODEDUMP_REPORT_6_15 = 1, /* "<reason> encountered for inode <%px>" */
	INODEDUMP_REPORT_6_18,	   /* ... and "fs %s mode %ho opflags 0x%hx ..." */
	INODEDUMP_REPORT_7_0,	   /* "<reason>: inode:<%px> fs:<name> ..." (7.0) */
};

/* What a report line said about the inode when it was written. */
struct inodedump_report_fields {
	char fs_type[64];
	unsigned int mode;
	unsigned int opflags;
	unsigned int flags;
	unsigned int state;
	int count;
};

/* caller_id when the log names no caller (an impossible CPU number). */
#define INODEDUMP_CALLER_UNKNOWN 0xffffffffu
/*
 * level and facility when the ring was read without the kernel's types
 * and VMCOREINFO's offsets do not place them where the kernel's source
 * does (inodedump_read_log()).
 */
#define INODEDUMP_LEVEL_UNKNOWN 0xffu

struct inodedump_report {
	enum inodedump_report_format format;
	char reason[256];	  /* the failed condition */
	uint64_t address;
	bool unreadable;	  /* "unreadable inode:<addr>" (7.0 format) */
	bool has_fields;	  /* fields below were printed (6.18, 7.0) */
	struct inodedump_report_fields fields;
	uint64_t seq;
	uint64_t ts_nsec;
	uint32_t caller_id;
	char location[256];	  /* the WARNING/BUG line that followed, or "" */
	char task[64];		  /* "insmod" from the splat's "Comm:", or "" */
	/*
	 * Where the assertion fired, from location: the file and line of a
	 * WARNING (both formats) or "kernel BUG at" line ("" and 0 when it
	 * names none), and the function the WARNING names or, for a BUG,
	 * the splat's "RIP:" line ("" when neither says).
	 */
	char site_file[128];
	unsigned int site_line;
	char site_function[128];
};

/*
 * Parse one log line (or a record's text; len bytes, no NUL needed) as a
 * dump_inode() report into *out (the caller's). Returns false when it is
 * none. Used on each record by inodedump_find_reports(); exposed for
 * tests and other log sources.
 */
INODEDUMP_API bool inodedump_parse_report(const char *text, size_t len,
					  struct inodedump_report *out);

/*
 * Every dump_inode() report in the log, with what followed it: *reports
 * is an array of *count reports, malloc'd (the caller frees it with
 * free(3)), NULL when there are none; independent of log once returned.
 * Fails only when out of memory, and then hands back nothing (never a
 * shortened list).
 */
INODEDUMP_API struct inodedump_error *
inodedump_find_reports(const struct inodedump_log *log,
		       struct inodedump_report **reports, size_t *count);
/*
 * The same over records from elsewhere (n of them, oldest first: the
 * kernel's /dev/kmsg as vmcore-inode --follow reads it): a report's 6.18
 * fields line is the record after it, its splat within the 40 after.
 */
INODEDUMP_API struct inodedump_error *
inodedump_find_reports_in(const struct inodedump_record *recs, size_t n,
			  struct inodedump_report **reports, size_t *count);

/* ---- what vmcore-inode writes: documents, differences (lib/output, lib/log) ---- */

/* A field a report line printed that the dump now holds otherwise. */
struct inodedump_difference {
	const char *field;  /* "mode", "opflags", "flags", "state" or "count" */
	int64_t at_report;  /* as the report line printed it */
	int64_t in_dump;    /* as the inode is in the dump */
	const char *format; /* how the kernel prints it, for a long long:
			       "0%llo", "0x%llx" or "%lld" */
};

#define INODEDUMP_MAX_DIFFERENCES 5

/*
 * The fields of report that differ from inode, into out (room for
 * INODEDUMP_MAX_DIFFERENCES); returns how many. 0 when the report printed
 * no fields (the 6.15 format) or inode is NULL. Nothing to free.
 */
INODEDUMP_API size_t
inodedump_report_differences(const struct inodedump_report *report,
			     const struct inodedump_inode *inode,
			     struct inodedump_difference *out);

enum inodedump_format {
	INODEDUMP_FORMAT_TEXT,
	INODEDUMP_FORMAT_JSON, /* documents: pretty; sweep lines: JSON Lines */
};

/*
 * A document about the inodes of one dump, written to out as its parts
 * come: text, or one JSON object (schema INODEDUMP_JSON_SCHEMA in
 * README.md) {"schema", "osrelease", "inodes": [...]} and, when log is
 * given (the inodes its reports name), "reports": [...]. Begin it, add
 * inodes, errors and reports in order, end it; inodedump_document_end()
 * frees it. id and log must outlive it.
 */
struct inodedump_document;

INODEDUMP_API struct inodedump_error *
inodedump_document_begin(struct inodedump *id, const struct inodedump_log *log,
			 enum inodedump_format format, FILE *out,
			 struct inodedump_document **doc);
/*
 * A decoded inode. Without a log: an element of "inodes" (text: the
 * inode's view, a blank line between two). With a log: the text view
 * after its reports; nothing in JSON (each report holds its inode).
 */
INODEDUMP_API void
inodedump_document_inode(struct inodedump_document *doc,
			 const struct inodedump_inode *inode);
/*
 * An address that could not be decoded: without a log, an element of
 * "inodes" {"address", "error": {"kind", "message", "address"}}; nothing
 * in text (the caller tells the user) nor with a log.
 */
INODEDUMP_API void
inodedump_document_error(struct inodedump_document *doc, uint64_t address,
			 const struct inodedump_error *err);
/*
 * A report and the inode it names (inode, or err when it could not be
 * decoded), with their differences: text, the report's lines; JSON, an
 * element of "reports" holding the inode or the error object.
 */
INODEDUMP_API void
inodedump_document_report(struct inodedump_document *doc,
			  const struct inodedump_report *report,
			  const struct inodedump_inode *inode,
			  const struct inodedump_error *err);
/* Close the document (text: says when the log had no report) and free it. */
INODEDUMP_API void inodedump_document_end(struct inodedump_document *doc);
/*
 * One report on its own, with the inode it names (or err: why it could
 * not be decoded) and their differences: JSON, one line (JSON Lines) of
 * the object a document's "reports" holds; text, the report's lines, then
 * the inode's view, then a blank line. What --follow writes per report.
 */
INODEDUMP_API void
inodedump_report_print(const struct inodedump_report *report,
		       const struct inodedump_inode *inode,
		       const struct inodedump_error *err,
		       enum inodedump_format format, FILE *out);

/* What the dump is and whence each fact came, one line each (--info). */
INODEDUMP_API void inodedump_facts_print(struct inodedump *id, FILE *out);

/*
 * A superblock the sweep finished: text, its line (inodes by type,
 * violations, why its walk stopped); JSON, one JSON Lines object
 * {"superblock", "fs_type", "s_id", "inodes", "matched", "violations",
 * "by_type", "error"} and a newline.
 */
INODEDUMP_API void inodedump_sweep_sb_print(const struct inodedump_sweep_sb *sb,
					    enum inodedump_format format,
					    FILE *out);

/* A sweep's totals, printed last by inodedump_sweep_summary_print(). */
struct inodedump_sweep_totals {
	size_t inodes;	   /* inodes decoded */
	size_t violations; /* of which with a violation */
	size_t cut_short;  /* superblocks whose walk stopped early */
	size_t from_slabs; /* inodes found only through the slabs */
};

/* Text: the closing line; JSON: {"summary": {...}} and a newline. */
INODEDUMP_API void
inodedump_sweep_summary_print(const struct inodedump_sweep_totals *totals,
			      enum inodedump_format format, FILE *out);

/*
 * Bytes that are not the dump's but may be anyone's (a file name, a path
 * found in a directory others write), written by the same rules as the
 * dump's own bytes. Text: printable ASCII and well-formed UTF-8 as they
 * are, every other byte C-style ("\e", "\r", "\x9b", "\\"), so no escape
 * sequence reaches a terminal; len bytes, no NUL needed. JSON: one string,
 * quotes included, each byte outside printable ASCII as \u00XX (the bytes
 * read as Latin-1), so the output is valid JSON whatever the bytes and
 * gives them back exactly; NULL writes null.
 */
INODEDUMP_API void inodedump_print_escaped(const char *s, size_t len,
					   FILE *out);
INODEDUMP_API void inodedump_print_json_string(const char *s, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* INODEDUMP_H */
