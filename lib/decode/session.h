/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decode: the session (struct inodedump) every entry point opens. */
#ifndef IDD_DECODE_SESSION_H
#define IDD_DECODE_SESSION_H

#include "core/error.h"
#include "core/walk.h"
#include "kernel/vfs.h"
#include "target/target.h"
#include "types/types.h"

/* ---- the session (session.c) ---- */
struct inode_layout;
struct idd_modules;
struct path_layout;
struct sym_memo;
struct idd_btfl;
struct page_layout;
struct slab_layout;
struct fs_layouts;
struct pagecache_layout;

struct inodedump {
	struct idd_target *target;
	struct idd_types *types; /* NULL: none (no_types says why) */
	/*
	 * Opened with types_optional, and neither vmlinux nor the dump's BTF
	 * gave types: the error the open would have returned, which every
	 * use of the types returns instead (idd_session_need_types()).
	 */
	struct inodedump_error *no_types;
	char *no_types_text; /* INODEDUMP_FACT_NO_TYPES */
	struct idd_symbols *syms;
	char *vmlinux;
	char *vmlinux_source; /* "given with -k", "found by ..." */
	char *types_source, *symbols_source; /* facts: whence each came */
	char *build_id_vmlinux;
	char *kaslr_text, *dump_level_text, *page_size_text;
	uint64_t kaslr;
	bool kaslr_from_vmcoreinfo; /* KERNELOFFSET, not derived */
	uint32_t version;	    /* of release; 0: not known */
	char *release;		    /* the kernel's, or NULL (release.c) */
	const char *release_source; /* whence release came */
	char **notes;		    /* inodedump_note() */
	bool *notes_inform;	    /* inodedump_note_informs() */
	size_t nnotes;
	char *debug_root;	    /* --debug-root, NULL: / */
	uint64_t naming_sb;	    /* the superblock of the inode named now */
	struct inode_layout *layout;
	struct idd_modules *modules; /* loaded on first use */
	struct path_layout *paths_layout;
	struct idd_holders *holders; /* one task walk per session */
	struct idd_mntns *mntns;     /* namespaces and a task of each */
	struct sym_memo *sym_memo;   /* address -> symbol answers */
	struct idd_btfl *btf;	     /* loaded on first use */
	struct page_layout *pages_layout; /* pages_layout.c, on first use */
	struct slab_layout *slab_layout;  /* slab.c, on first use */
	struct fs_layouts *fs_layouts;	  /* fs.c, on first use */
	struct pagecache_layout *pagecache_layout; /* pagecache.c */
	struct idd_btf *module_btf; /* a DWARF session's modules' types */
	bool module_btf_tried;
	bool module_btf_unreadable; /* tried, and a read of it failed */
	bool btf_tried;
	inodedump_symbol_fn host_symbol; /* the caller's symbols, or NULL */
	void *host_arg;
	struct sb_memo {	     /* the last superblock decoded (memo.c) */
		uint64_t addr;
		bool valid;
		struct inodedump_inode *rows; /* its superblock rows */
	} sb_memo;
};

/*
 * What differs between the entry points that open a session; the steps
 * that follow are the same for all (idd_session_open()).
 */
struct idd_session_config {
	const char *vmlinux;	    /* NULL: found by the dump's release */
	const char *vmlinux_source; /* the fact, when vmlinux is given */
	const char *debug_root;	    /* where to look for it (NULL: /) */
	const char *dump_name;	    /* the dump in messages */
	bool ignore_build_id;	    /* skip the vmlinux match check */
	bool live;		    /* /proc/kcore: check /proc/kallsyms too */
	inodedump_symbol_fn symbol; /* the caller's symbols, or NULL */
	void *symbol_arg;
	/* no vmlinux and no BTF: open without types (only log and facts) */
	bool types_optional;
};

/*
 * The one session constructor: types, the architecture default, KASLR,
 * build-id, facts, and the vmlinux match check where the dump has
 * something to check against. Takes ownership of target, also on failure.
 */
/* A session over a target already open (a memory image in tests and
 * fuzzers), with vmlinux given; takes ownership of the target. */
struct inodedump_error *idd_open_target(struct idd_target *target,
					const char *vmlinux,
					struct inodedump **out);
/*
 * A session over a target already open without types or symbols: only
 * its log (VMCOREINFO's layout) and facts are read; takes the target.
 */
struct inodedump_error *idd_open_target_without_types(struct idd_target *target,
						      struct inodedump **out);
struct inodedump_error *idd_session_open(struct idd_target *target,
					 const struct idd_session_config *cfg,
					 struct inodedump **out);
/*
 * release.c: a note of the session (printf-like; the same text once), the
 * kernel's release and the notes of what VMCOREINFO breaks, and the note
 * of a KASLR offset nothing gave.
 */
/*
 * NULL when the session has types; else the reason it has none, as the
 * open would have said it (a new error each call, for the caller to free
 * or return).
 */
struct inodedump_error *idd_session_need_types(const struct inodedump *id);
void idd_session_note(struct inodedump *id, const char *fmt, ...)
	IDD_ATTR_PRINTF(2, 3);
/* A note that begins with head was made (one note for many causes). */
bool idd_session_noted(const struct inodedump *id, const char *head);
/* Whether a note already says why the answers are partial (one that is
 * not information alone): a cause said once is not said again. */
bool idd_session_partial(const struct inodedump *id);
/*
 * err, when a reader found the dump's bytes damaged, said once a session
 * as "WHAT: err's message" (what: what could not be read, by whom it goes
 * without); an absence (filtered, not in the dump) is no note.
 */
void idd_session_note_damage(struct inodedump *id, const char *what,
			     const struct inodedump_error *err);
/*
 * Where the session's symbols come from, for "no symbol X in ..."
 * messages: vmlinux, the dump's kallsyms, or a kallsyms of text symbols
 * only (its kernel's data symbols are not in it).
 */
const char *idd_session_symbols_whence(struct inodedump *id);
void idd_session_notes_free(struct inodedump *id);
void idd_session_find_release(struct inodedump *id);
void idd_session_note_kaslr(struct inodedump *id);

/*
 * A symbol vmlinux does not name: the caller's symbol callback, then the
 * dump's modules. *name "name" or "name+0x10" and *module the module's
 * name, both malloc'd (the caller frees them), or NULL when none.
 */
struct inodedump_error *idd_session_symbol(struct inodedump *id, uint64_t addr,
					   char **name, char **module);
/*
 * The same, with *note (malloc'd, or NULL) saying why an address in a
 * module's memory has no name ("module data; no name: ...").
 */
struct inodedump_error *idd_session_symbol_noted(struct inodedump *id,
						 uint64_t addr, char **name,
						 char **module, char **note);
/*
 * A note that only informs (which debug file named a module's data): said
 * like the others, once, but a run is not partial for it.
 */
void idd_session_inform(struct inodedump *id, const char *text);

struct inodedump_inode;
struct idd_slab_obj;
/*
 * decode.c: the decode, also handing back i_sb_list.next from its bytes;
 * slab (NULL: not asked) what the slab allocator says of the address.
 */
struct inodedump_error *idd_decode(struct inodedump *id, uint64_t address,
				   unsigned int flags,
				   const struct idd_slab_obj *slab,
				   struct inodedump_inode **out,
				   uint64_t *sb_list_next);
/* layout.c: the session's layout, built on first use. */
struct inodedump_error *idd_layout_ready(struct inodedump *id);
/*
 * paths.c: fill ino->paths from its dentry aliases and the mount tree.
 * What the dump does not let it read becomes a note in ino->errors; an
 * error return is the session's (out of memory).
 */
/* paths.c: the members a path walk reads, looked up now (once a session). */
struct inodedump_error *idd_paths_ready(struct inodedump *id);
struct inodedump_error *idd_decode_paths(struct inodedump *id,
					 struct inodedump_inode *ino);
void idd_paths_layout_free(struct path_layout *l);
/* holders.c: the tasks holding ino open, or as cwd/root; notes as above. */
struct idd_holders;
struct inodedump_error *idd_decode_holders(struct inodedump *id,
					   struct inodedump_inode *ino);
void idd_holders_free(struct idd_holders *hs);
/*
 * mntns.c: what namespace ns (a mount's mnt_ns) is, with the lowest pid
 * in it; the namespace of a task. The task walk behind them is done once
 * a session. Only running out of memory is an error.
 */
struct idd_ns_info;
struct idd_mntns;
struct idd_btfl;
struct inodedump_error *idd_mntns_lookup(struct inodedump *id, uint64_t ns,
					 struct idd_ns_info *out);
struct inodedump_error *idd_mntns_of_task(struct inodedump *id, uint64_t task,
					  struct idd_ns_info *out);
void idd_mntns_free(struct idd_mntns *m);
/* mntns.c: the lazy BTF of a DWARF session (NULL: none, or BTF session). */
struct inodedump_error *idd_session_lazy_btf(struct inodedump *id,
					     struct idd_btfl **out);
/*
 * pages.c: what the page at physical address phys was and why its
 * exclusion from the dump does or does not fit that (malloc'd text, or
 * NULL), for the target's filtered-page error (idd_target_set_explain).
 */
char *idd_explain_filtered(void *arg, uint64_t phys);
/* pages_layout.c: the session's struct page layout, freed. */
void idd_pages_layout_free(struct page_layout *l);
/*
 * pages.c: is pfn part of a slab? *slab: the head's struct page (which is
 * the struct slab), *head_pfn its pfn; *unread: its struct page is not
 * in the dump, or where the memory map is is not known (false returned,
 * and not because it is no slab's).
 */
bool idd_pages_slab(struct inodedump *id, uint64_t pfn, uint64_t *slab,
		    uint64_t *head_pfn, bool *unread);
/*
 * pages.c: every slab's head page in pfn order, fn(struct page address,
 * pfn, arg) (false stops); *unread: memmap pages the dump lacks. False
 * when this kernel's pages cannot be read so.
 */
bool idd_pages_each_slab(struct inodedump *id,
			 bool (*fn)(uint64_t page, uint64_t pfn, void *arg),
			 void *arg, uint64_t *unread, char **first_error);
/*
 * pages.c: the physical address of a direct-map address, without a page
 * walk (a caller's reader has none); false outside the direct map.
 */
bool idd_pages_direct_phys(struct inodedump *id, uint64_t va, uint64_t *pa);
/* pages.c: the direct-map address of the memory of struct page page. */
struct inodedump_error *idd_pages_slab_base(struct inodedump *id,
					   uint64_t page, uint64_t *va);
/* pages.c: what the page at pfn is, for a person (malloc'd), or NULL. */
char *idd_pages_describe(struct inodedump *id, uint64_t pfn);
/*
 * For --info: "N of M pages" the dump's bitmaps leave out, or (by_kind)
 * how many of those were free, cache, user, slab... by their struct page;
 * NULL when the format has no bitmaps. Counted on the first call.
 */
const char *idd_pages_excluded(struct inodedump *id, bool by_kind);

/*
 * debuginfod.c: vmlinux of build_id fetched through libdebuginfod (path
 * malloc'd), or NULL: DEBUGINFOD_URLS unset (*why NULL) or the fetch
 * failed (*why malloc'd, one line).
 */
char *idd_debuginfod_vmlinux(const char *build_id, char **why);
/* The same for the debug file of what ("vmlinux", a module's name). */
char *idd_debuginfod_fetch(const char *build_id, const char *what, char **why);

#endif
